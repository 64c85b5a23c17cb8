//! What differs between Unix and Windows for the binary, one function per concept, so the
//! providers and the proxy hold no `cfg` of their own: how a file is opened for reading, what
//! identifies a file, what names an open file, how a process tree is started and ended, how a
//! failed command is described, and what Windows does not serve yet.

use std::fs::{File, Metadata, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};

/// What the Windows build refuses to start rather than serve without the guarantees it has on
/// Unix (docs/security.md, "Windows"): `Some(why)` there, `None` elsewhere.
pub fn not_yet_on_windows(what: &str) -> Option<String> {
    cfg!(windows).then(|| format!("not yet supported on Windows: {what} (see docs/security.md, \"Windows\")"))
}

/// `std::fs::canonicalize`, spelled for a person and a host's config: on Windows the plain
/// `C:\dir` rather than the verbatim `\\?\C:\dir` std gives, where both name the same folder.
pub fn canonicalize(path: &Path) -> io::Result<PathBuf> {
    let canonical = std::fs::canonicalize(path)?;
    if cfg!(windows) {
        if let Some(plain) = canonical.to_str().and_then(crate::provide::winpath::plain) {
            return Ok(PathBuf::from(plain));
        }
    }
    Ok(canonical)
}

/// `O_NONBLOCK`, so opening a FIFO never waits for a writer. std does not name it and its value
/// differs by platform.
#[cfg(unix)]
const O_NONBLOCK: i32 = if cfg!(any(
    target_os = "macos",
    target_os = "ios",
    target_os = "freebsd",
    target_os = "openbsd",
    target_os = "netbsd",
    target_os = "dragonfly"
)) {
    0x4
} else if cfg!(any(target_arch = "mips", target_arch = "mips64")) {
    0x80
} else if cfg!(any(target_arch = "sparc", target_arch = "sparc64")) {
    0x4000
} else {
    0o4000
};

/// Options that open a file or a folder for reading. Unix: non-blocking, so a FIFO swapped in
/// never makes the open wait. Windows: `FILE_FLAG_BACKUP_SEMANTICS`, without which a folder
/// cannot be opened (FIFOs there live under `\\.\pipe\`, which the sandbox never names).
pub fn read_options() -> OpenOptions {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, O_NONBLOCK);
    #[cfg(windows)]
    std::os::windows::fs::OpenOptionsExt::custom_flags(&mut options, 0x0200_0000);
    options
}

/// The device and inode that identify a file (Unix). `None` on Windows: its file index and
/// volume serial are not in stable std yet, and nothing must pass for an identity there.
pub fn identity(meta: &Metadata) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((meta.dev(), meta.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        None
    }
}

/// The path that names an open file itself, not whatever its path names now: `/proc/self/fd/N`
/// on Linux; `None` elsewhere.
pub fn via_descriptor(file: &File) -> Option<PathBuf> {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::io::AsRawFd;
        Some(PathBuf::from(format!("/proc/self/fd/{}", file.as_raw_fd())))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = file;
        None
    }
}

/// Gives the new `file` the owner (when the server may: run as root, or the same user) and the
/// permission bits of the file it replaces, minus `clear` (Unix; Windows files keep the
/// folder's inherited rights).
pub fn keep_owner_and_mode(file: &File, replaced: &Metadata, clear: u32) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        // Not allowed unless root (or the same owner): the file then stays the server's user's.
        let _ = std::os::unix::fs::fchown(file, Some(replaced.uid()), Some(replaced.gid()));
        let mode = replaced.permissions().mode() & !clear;
        file.set_permissions(std::fs::Permissions::from_mode(mode))
    }
    #[cfg(not(unix))]
    {
        let _ = (file, replaced, clear);
        Ok(())
    }
}

/// Starts `command` as the head of a process group of its own (Unix: its pid is the group's
/// id), so that ending it ends what it started ([`end_tree`]). Windows: a new console process
/// group, which `taskkill /T` follows by parent pid.
pub fn own_group(command: &mut Command) -> &mut Command {
    #[cfg(unix)]
    {
        std::os::unix::process::CommandExt::process_group(command, 0)
    }
    #[cfg(windows)]
    {
        // CREATE_NEW_PROCESS_GROUP: a Ctrl-C at our console is not also the child's.
        std::os::windows::process::CommandExt::creation_flags(command, 0x0000_0200)
    }
}

/// Ends the process tree started by [`own_group`] whose head is `pid`: Unix, SIGTERM (`hard`:
/// SIGKILL) to the group; Windows, `taskkill /T` (`hard`: `/F`) by the system's own program.
/// A tree already gone is not an error.
pub fn end_tree(pid: u32, hard: bool) -> io::Result<()> {
    #[cfg(unix)]
    {
        crate::cli::signal::kill_group(pid, hard)
    }
    #[cfg(windows)]
    {
        let system = std::env::var_os("SystemRoot").map_or_else(|| PathBuf::from(r"C:\Windows"), PathBuf::from);
        let mut taskkill = Command::new(system.join(r"System32\taskkill.exe"));
        taskkill.args(["/PID", &pid.to_string(), "/T"]);
        if hard {
            taskkill.arg("/F");
        }
        // Exit status 128: no such process (already gone).
        let status = taskkill.stdin(std::process::Stdio::null()).stdout(std::process::Stdio::null()).status()?;
        match status.code() {
            Some(0 | 128) => Ok(()),
            _ => Err(io::Error::other(format!("taskkill /PID {pid} /T: {status}"))),
        }
    }
}

/// How a command that did not succeed ended, for its error: "exited with status N", "was
/// killed by signal N" (Unix).
pub fn how_it_failed(status: &ExitStatus) -> String {
    #[cfg(unix)]
    let signal = std::os::unix::process::ExitStatusExt::signal(status);
    #[cfg(not(unix))]
    let signal: Option<i32> = None;
    match (status.code(), signal) {
        (Some(code), _) => format!("exited with status {code}"),
        (None, Some(signal)) => format!("was killed by signal {signal}"),
        (None, None) => "failed".to_owned(),
    }
}
