//! What a person sees the first time: `tinymcp` started in a terminal says what it serves and
//! that it waits for a host (and says nothing when a host starts it); `--check` checks every
//! file it is given.

use crate::support::{binary, run_binary, TempDir};
use std::process::Command;

/// Runs `tinymcp ARGS` with stdin a pseudo-terminal (through Python's `pty`, a prerequisite of
/// the test command) and returns the first line it writes to stderr, or "" after 5 s.
fn first_stderr_line_on_a_terminal(args: &[&str]) -> String {
    const SCRIPT: &str = "\
import os, pty, select, subprocess, sys
master, slave = pty.openpty()
p = subprocess.Popen(sys.argv[1:], stdin=slave, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
os.close(slave)
ready, _, _ = select.select([p.stderr], [], [], 5)
sys.stdout.write(p.stderr.readline().decode() if ready else '')
p.kill()
p.wait()
";
    let out = Command::new("python3")
        .arg("-c")
        .arg(SCRIPT)
        .arg(binary())
        .args(args)
        .output()
        .expect("python3 (a prerequisite of the test command) runs");
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn started_in_a_terminal_it_says_what_it_serves_and_that_it_waits_for_a_host() {
    let dir = TempDir::new("hint");
    let line = first_stderr_line_on_a_terminal(&["--root", dir.path().to_str().unwrap()]);
    assert!(line.contains(&format!("serving {} read-only over stdio", dir.path().display())), "{line:?}");
    assert!(line.contains("waiting for an MCP host"), "{line:?}");
    assert!(line.contains("tinymcp config --host"), "{line:?}");
    assert_eq!(line.trim_end().lines().count(), 1, "{line:?}");
    let line = first_stderr_line_on_a_terminal(&["--everything"]);
    assert!(line.contains("serving the everything profile over stdio"), "{line:?}");
}

#[test]
fn started_by_a_host_it_writes_nothing_to_stderr_at_the_default_level() {
    let out = run_binary(&["--everything"]);
    assert!(out.status.success() && out.stderr.is_empty(), "{out:?}");
}

#[test]
fn check_checks_every_file_it_is_given_and_fails_if_any_is_broken() {
    let dir = TempDir::new("check-many");
    let good = dir.write("good.json", r#"{"tools": []}"#);
    let bad = dir.write("bad.json", r#"{"tools": 3}"#);
    let (good, bad) = (good.to_str().unwrap(), bad.to_str().unwrap());
    let out = run_binary(&["--check", good, bad]);
    assert!(!out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains(&format!("{good}: OK")), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains(&format!("{bad}: tools")), "{out:?}");
    let out = run_binary(&["--check", good, good]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout).matches(": OK").count(), 2, "{out:?}");
    let out = run_binary(&["--check", good, "--root", "."]);
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("only manifest files"), "{out:?}");
}

// A manifest with errors had its warnings hidden, so fixing the errors showed
// new problems on the next run: every problem is printed at once, and the errors fail the check.
#[test]
fn check_prints_the_warnings_of_a_manifest_that_also_has_errors() {
    let dir = TempDir::new("check-both");
    let manifest = r#"{"tools": [
        {"name": "shell", "command": ["sh", "-c", "echo {{x}}"],
         "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}}},
        {"name": "has space", "command": ["true"]}
    ]}"#;
    let file = dir.write("both.json", manifest);
    let file = file.to_str().unwrap();
    let out = run_binary(&["--check", file]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(&format!("{file}: tools[1].name: expected a name")), "{stderr}");
    assert!(
        stderr.contains(&format!("{file}: tools[0].command[2]: warning: sh -c runs this text as code")),
        "{stderr}"
    );
    assert!(out.stdout.is_empty(), "{out:?}");
}
