//! The command line itself: every subcommand's `--help`, `tinymcp help [COMMAND]`, the help
//! kept in step with docs/options.md, argument errors that say what to do, and the secrets
//! `proxy --pass-env` refuses.

use crate::support::{run_binary, run_binary_in, TempDir};
use std::collections::BTreeSet;

/// The subcommands, each with flags its usage must name.
const COMMANDS: [(&str, &[&str]); 6] = [
    ("config", &["--host", "--url"]),
    ("install", &["--host", "--scope", "--config-file", "--dry-run"]),
    ("connect", &["--transport", "--header", "--token-env"]),
    ("proxy", &["--http", "--shared", "--pass-env", "--answer-within-secs", "--config", "--max-connections"]),
    ("health", &[]),
    ("gateway", &["--config", "--ca-file", "--pass-env", "--http", "--max-connections"]),
];

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The flags an option line of a help text defines: lines indented by four spaces that start
/// with `-` (`    -h, --help`, `    --root DIR`); the synopses start with `tinymcp`, the
/// explanations are indented further.
fn help_flags(help: &str) -> BTreeSet<String> {
    help.lines()
        .filter_map(|line| line.strip_prefix("    "))
        .filter(|line| line.starts_with('-'))
        .flat_map(|line| line.split([' ', ',']).take_while(|w| w.is_empty() || w.starts_with('-')))
        .filter(|w| w.starts_with("--"))
        .map(str::to_owned)
        .collect()
}

/// The flags docs/options.md's tables define: the first cell of each row (`| \`--root DIR\` |`).
fn documented_flags() -> BTreeSet<String> {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/options.md")).unwrap();
    doc.lines()
        .filter_map(|line| line.strip_prefix("| `"))
        .filter_map(|cell| cell.split('|').next())
        .flat_map(|cell| cell.split(['`', ' ', ',']))
        .filter(|w| w.starts_with("--"))
        .map(str::to_owned)
        .collect()
}

// The help lists every flag the options page documents, and the page every
// flag the help lists, so neither drifts from the other again.
#[test]
fn the_help_and_the_options_page_list_the_same_flags() {
    let out = run_binary(&["--help"]);
    assert!(out.status.success() && out.stderr.is_empty(), "{out:?}");
    let help = help_flags(&stdout(&out));
    let documented = documented_flags();
    assert!(documented.len() > 30 && documented.contains("--root"), "{documented:?}");
    let undocumented: Vec<_> = help.difference(&documented).collect();
    let missing: Vec<_> = documented.difference(&help).collect();
    assert!(missing.is_empty(), "documented in docs/options.md but not in --help: {missing:?}");
    assert!(undocumented.is_empty(), "in --help but not in docs/options.md: {undocumented:?}");
    for flag in ["--max-connections", "--idle-secs", "--oauth-issuer", "--oauth-client-secret-file"] {
        assert!(help.contains(flag), "{flag} not in --help");
    }
}

// `install --help` said "config needs --host", `connect --help` "unknown
// option": every subcommand prints its own usage, to stdout, and exits 0, whatever comes
// before the `--help`; `tinymcp help COMMAND` prints the same.
#[test]
fn every_subcommand_prints_its_own_usage_for_help() {
    for (command, flags) in COMMANDS {
        for asked in [vec![command, "--help"], vec![command, "-h"], vec![command, "--host", "nope", "--help"]] {
            let out = run_binary(&asked);
            assert!(out.status.success() && out.stderr.is_empty(), "{asked:?}: {out:?}");
            let help = stdout(&out);
            assert!(help.contains(&format!("tinymcp {command}")), "{asked:?}:\n{help}");
            for flag in flags {
                assert!(help.contains(flag), "{asked:?}: no {flag} in\n{help}");
            }
        }
        let by_help = run_binary(&["help", command]);
        assert!(by_help.status.success(), "{by_help:?}");
        assert_eq!(stdout(&by_help), stdout(&run_binary(&[command, "--help"])), "help {command}");
    }
    // A subcommand's help is its own, not the whole list.
    let connect = stdout(&run_binary(&["connect", "--help"]));
    assert!(!connect.contains("tinymcp install") && !connect.contains("--write-root"), "{connect}");
}

#[test]
fn help_alone_is_the_whole_help_and_an_unknown_topic_names_the_commands() {
    let whole = run_binary(&["--help"]);
    for asked in [&["help"][..], &["-h"]] {
        let out = run_binary(asked);
        assert!(out.status.success() && out.stderr.is_empty(), "{out:?}");
        assert_eq!(stdout(&out), stdout(&whole), "{asked:?}");
    }
    let help = stdout(&whole);
    for (command, _) in COMMANDS {
        assert!(help.contains(&format!("tinymcp {command}")), "no {command} in\n{help}");
    }
    assert!(help.contains("tinymcp help [COMMAND]"), "{help}");
    let out = run_binary(&["help", "nope"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let why = stderr(&out);
    assert!(why.contains("nope") && why.contains("config, install, connect, proxy, health"), "{why}");
}

// The help says which of its flags this build lacks.
#[test]
fn the_help_marks_the_oauth_flags_a_build_without_oauth_lacks() {
    let help = stdout(&run_binary(&["--help"]));
    let line = help.lines().find(|l| l.starts_with("OAUTH OPTIONS")).expect("an OAuth section");
    let marked = line.contains("not in this build");
    assert_eq!(marked, !cfg!(feature = "oauth"), "{line}");
}

// The messages of argument errors say what to do.
#[test]
fn an_argument_of_another_command_or_a_folder_says_what_to_give_instead() {
    let out = run_binary(&["--host", "claude"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        stderr(&out).contains("tinymcp config --host") && stderr(&out).contains("tinymcp install --host"),
        "{out:?}"
    );
    let out = run_binary(&["--pass-env", "X"]);
    assert!(stderr(&out).contains("tinymcp proxy"), "{out:?}");
    let dir = TempDir::new("positional");
    let folder = dir.path().to_str().unwrap();
    let out = run_binary(&[folder]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(stderr(&out).contains(&format!("--root {folder}")), "{out:?}");
    let out = run_binary(&["serve"]);
    assert!(stderr(&out).contains("config, install, connect, proxy, health"), "{out:?}");
    let out = run_binary(&["--nope"]);
    assert!(stderr(&out).contains("unknown option --nope") && stderr(&out).contains("tinymcp --help"), "{out:?}");
    let out = run_binary(&["connect", "--nope", "http://127.0.0.1:1/mcp"]);
    assert!(stderr(&out).contains("tinymcp connect --help"), "{out:?}");
}

// The OAuth client secret guards the issuer's introspection endpoint: a child
// that could read it could call it as this server; refused like the bearer token's variable.
#[test]
fn proxy_refuses_to_pass_any_secret_variable_of_the_binary() {
    for variable in ["TINYMCP_TOKEN", "TINYMCP_OAUTH_CLIENT_SECRET"] {
        let out = run_binary(&["proxy", "--http", "127.0.0.1:99999", "--pass-env", variable, "--", "true"]);
        assert_eq!(out.status.code(), Some(1), "{variable}: {out:?}");
        let why = stderr(&out);
        assert!(why.contains(variable) && why.contains("never passed"), "{variable}: {why}");
    }
}

// One parser for every command: `--flag=value` is `--flag value` everywhere, a flag where a
// value belongs is named, a value given to a switch is refused, and `--` hands the rest over.
#[test]
fn every_command_takes_flag_equals_value_and_says_which_flag_lacks_its_value() {
    let dir = TempDir::new("equals");
    let folder = dir.path().canonicalize().unwrap();
    let folder = folder.to_str().unwrap();
    let out = run_binary_in(&["config", "--host=claude-code", "--root=."], Some(dir.path()), &[]);
    assert!(out.status.success(), "{out:?}");
    assert!(stdout(&out).contains(folder), "the relative --root=. is made absolute: {out:?}");
    let out = run_binary(&["--page-size", "--root", "."]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(stderr(&out).contains("--page-size needs a number"), "{out:?}");
    let out = run_binary(&["--version=2"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(stderr(&out).contains("--version"), "{out:?}");
    let out = run_binary(&["connect", "--transport=carrier-pigeon", "http://127.0.0.1:1/mcp"]);
    assert!(stderr(&out).contains("--transport: expected auto, http or sse"), "{out:?}");
    let out = run_binary(&["health", "--verbose"]);
    assert!(stderr(&out).contains("unknown option --verbose") && stderr(&out).contains("health --help"), "{out:?}");
    let out = run_binary(&["proxy", "--http=127.0.0.1:99999", "--pass-env=TINYMCP_TOKEN", "--", "true"]);
    assert!(stderr(&out).contains("TINYMCP_TOKEN"), "{out:?}");
}

// Arguments are text: a path that is not UTF-8 is refused by name, not a panic.
#[cfg(unix)]
#[test]
fn an_argument_that_is_not_utf8_is_refused_by_name() {
    use std::os::unix::ffi::OsStrExt;
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tinymcp"))
        .arg("--root")
        .arg(std::ffi::OsStr::from_bytes(b"/tmp/\xff"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(stderr(&out).contains("not valid UTF-8"), "{out:?}");
}

// A build without the gateway says so, and how to get one.
#[cfg(not(feature = "gateway"))]
#[test]
fn a_build_without_the_gateway_says_how_to_get_it() {
    let out = run_binary(&["gateway", "--config", "gateway.json"]);
    assert!(!out.status.success());
    let why = stderr(&out);
    assert!(why.contains("built without the gateway") && why.contains("--features gateway"), "{why}");
}
