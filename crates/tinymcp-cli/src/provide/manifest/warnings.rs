//! The warnings of `--check` about a command tool: a placeholder inside code that an
//! interpreter runs (`sh -c`, `python -c`, ...), and a tool marked read-only whose command
//! plainly writes. They do not stop the manifest from loading.

use super::{index, key, problem, Problem};
use crate::provide::command::placeholders;

/// Programs that run their argument after `flag` as code: a placeholder in that code is
/// injectable (values should be separate arguments, such as `"$1"` for a shell).
const INTERPRETERS: &[(&str, &str)] = &[
    ("sh", "-c"),
    ("bash", "-c"),
    ("dash", "-c"),
    ("zsh", "-c"),
    ("ksh", "-c"),
    ("fish", "-c"),
    ("csh", "-c"),
    ("tcsh", "-c"),
    ("busybox", "-c"),
    ("cmd", "/c"),
    ("cmd.exe", "/c"),
    ("cmd", "/C"),
    ("cmd.exe", "/C"),
    ("powershell", "-Command"),
    ("pwsh", "-Command"),
    ("powershell", "-c"),
    ("pwsh", "-c"),
    ("python", "-c"),
    ("python3", "-c"),
    ("perl", "-e"),
    ("perl", "-E"),
    ("ruby", "-e"),
    ("node", "-e"),
    ("node", "--eval"),
    ("php", "-r"),
    ("lua", "-e"),
    ("osascript", "-e"),
];

/// Programs that write files whatever their arguments.
const WRITERS: &[&str] = &[
    "rm", "rmdir", "mv", "cp", "dd", "tee", "touch", "mkdir", "chmod", "chown", "chgrp", "ln", "truncate", "install",
    "shred", "unlink", "mkfifo", "rsync",
];
/// `git` subcommands that change the repository or the work tree.
const GIT_WRITERS: &[&str] = &[
    "add",
    "am",
    "apply",
    "branch",
    "checkout",
    "cherry-pick",
    "clean",
    "clone",
    "commit",
    "config",
    "fetch",
    "gc",
    "init",
    "merge",
    "mv",
    "pull",
    "push",
    "rebase",
    "reset",
    "restore",
    "revert",
    "rm",
    "stash",
    "switch",
    "tag",
    "worktree",
];

/// Why a command writes, when it plainly does (a heuristic for `readOnlyHint` tools).
fn writes(argv: &[String]) -> Option<String> {
    let program = argv.first().map(|p| p.rsplit('/').next().unwrap_or(p))?;
    if WRITERS.contains(&program) {
        return Some(program.to_owned());
    }
    let args = argv.get(1..).unwrap_or_default();
    if program == "sed" && args.iter().any(|a| a == "-i" || a.starts_with("--in-place") || a.starts_with("-i")) {
        return Some("sed -i".into());
    }
    if program == "git" {
        if let Some(sub) = args.iter().find(|a| !a.starts_with('-')).filter(|a| GIT_WRITERS.contains(&a.as_str())) {
            return Some(format!("git {sub}"));
        }
    }
    args.iter()
        .find(|a| a.starts_with("--output") || a.as_str() == "-o" || a.starts_with("--out-file"))
        .map(|a| a.to_owned())
}

/// Warnings about the command at `path`: code for an interpreter that holds a placeholder, and
/// a read-only tool whose command writes.
pub(super) fn command(argv: &[String], path: &str, read_only: bool) -> Vec<Problem> {
    let mut warnings = Vec::new();
    let mut warn = |at: &str, message: String| warnings.push(problem(at, format!("warning: {message}")));
    let at = key(path, "command");
    let program = argv.first().map(|p| p.rsplit('/').next().unwrap_or(p)).unwrap_or_default();
    for (i, pair) in argv.windows(2).enumerate() {
        let [flag, code] = pair else { continue };
        let interpreted = INTERPRETERS.iter().any(|(p, f)| *p == program && f == flag);
        if interpreted && !placeholders(code).is_empty() {
            warn(
                &index(&at, i + 1),
                format!(
                    "{program} {flag} runs this text as code, so a value put in it by a placeholder can run \
                     commands of its own; pass values as separate arguments (for a shell: \"$1\" in the code, \
                     the placeholder after it)"
                ),
            );
        }
    }
    if read_only {
        if let Some(why) = writes(argv) {
            warn(
                &key(&key(path, "annotations"), "readOnlyHint"),
                format!("{why} writes, but the tool is marked read-only"),
            );
        }
    }
    warnings
}
