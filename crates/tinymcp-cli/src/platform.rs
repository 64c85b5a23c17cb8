//! What differs between Unix and Windows for the binary, one function per concept, so the
//! providers and the proxy hold no `cfg` of their own: how a file is opened for reading, what
//! identifies a file, what names an open file, how a process tree is started and ended, how a
//! failed command is described. Windows calls std does not make are declared by hand in `win`.

use std::fs::{File, Metadata, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus};

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

/// The device and inode that identify a file (Unix), from its metadata. `None` on Windows,
/// where std's metadata holds no identity: [`file_identity`] asks the open file.
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

/// What identifies the open `file` on this machine: its device and inode (Unix), its volume
/// serial number and file index (Windows, `GetFileInformationByHandle`).
pub fn file_identity(file: &File) -> io::Result<(u64, u64)> {
    #[cfg(unix)]
    {
        identity(&file.metadata()?).ok_or_else(|| io::Error::other("no identity"))
    }
    #[cfg(windows)]
    {
        win::identity(file)
    }
}

/// The path that names what `file` is now, as the system tells it from the open handle
/// (Windows: `GetFinalPathNameByHandleW`, spelled `\\?\C:\...` as `fs::canonicalize` spells
/// it); `None` where the system has no such call (Linux reads `/proc` instead: [`via_descriptor`]).
pub fn path_of_open(file: &File) -> Option<io::Result<PathBuf>> {
    #[cfg(windows)]
    {
        Some(win::final_path(file))
    }
    #[cfg(not(windows))]
    {
        let _ = file;
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

/// A process tree the binary started and ends whole: the command's process and all it starts.
/// Unix: a process group of its own (the child's pid is the group's id). Windows: a job object
/// with `JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE`, so the tree also ends when the handle is closed
/// (the `Tree` dropped, or tinymcp gone for any reason); its processes cannot break away.
pub struct Tree {
    /// The head's pid, the group's id (Unix).
    #[cfg(unix)]
    pgid: u32,
    #[cfg(windows)]
    job: win::Job,
}

impl Tree {
    /// Spawns `command` as the head of a new tree. Windows: the process is created suspended,
    /// put in a new job, then resumed, so nothing it starts can leave the job before it is in.
    pub fn spawn(command: &mut Command) -> io::Result<(Child, Tree)> {
        #[cfg(unix)]
        {
            std::os::unix::process::CommandExt::process_group(command, 0);
            let child = command.spawn()?;
            let pgid = child.id();
            Ok((child, Tree { pgid }))
        }
        #[cfg(windows)]
        {
            // CREATE_NEW_PROCESS_GROUP: a Ctrl-C at our console is not also the child's (we
            // end it ourselves); CREATE_SUSPENDED: it runs only once it is in the job.
            std::os::windows::process::CommandExt::creation_flags(command, 0x0000_0200 | 0x0000_0004);
            let mut child = command.spawn()?;
            match win::Job::new().and_then(|job| job.adopt(&child).map(|()| job)) {
                Ok(job) => Ok((child, Tree { job })),
                Err(e) => {
                    // Never left running outside a job: it has not run a single instruction.
                    let _ = child.kill();
                    let _ = child.wait();
                    Err(e)
                }
            }
        }
    }

    /// Ends the tree: Unix, SIGTERM (`hard`: SIGKILL) to the group; Windows, which has no
    /// SIGTERM for a console program (it ends when its stdin closes), only `hard` does
    /// something: every process of the job is terminated. A tree already gone is not an error.
    pub fn end(&self, hard: bool) -> io::Result<()> {
        #[cfg(unix)]
        {
            crate::cli::signal::kill_group(self.pgid, hard)
        }
        #[cfg(windows)]
        {
            if hard {
                self.job.terminate()
            } else {
                Ok(())
            }
        }
    }

    /// Whether any process of the tree may still run (Unix: from `/proc`, else assume so;
    /// Windows: the job's count of active processes).
    pub fn has_members(&self) -> bool {
        #[cfg(unix)]
        {
            let Ok(procs) = std::fs::read_dir("/proc") else { return true };
            procs.filter_map(Result::ok).any(|entry| {
                let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
                // `pid (comm) state ppid pgrp ...`: the name may hold spaces, so split after its `)`.
                let fields = stat.rsplit_once(')').map(|(_, rest)| rest).unwrap_or_default();
                fields.split_whitespace().nth(2).and_then(|g| g.parse::<u32>().ok()) == Some(self.pgid)
            })
        }
        #[cfg(windows)]
        {
            self.job.active().is_none_or(|n| n > 0)
        }
    }

    /// The head's process id (for logs).
    pub fn id(&self) -> String {
        #[cfg(unix)]
        {
            format!("process group {}", self.pgid)
        }
        #[cfg(windows)]
        {
            "job object".to_owned()
        }
    }
}

/// Whether Windows would run `program` through `cmd.exe` (a `.bat` or `.cmd` script, whatever
/// its case and trailing dots or spaces, which Windows ignores): its arguments would then be
/// read by cmd's own rules, not the program's, so a command tool never names one.
pub fn is_batch_script(program: &str) -> bool {
    let name = program.rsplit(['/', '\\']).next().unwrap_or(program).trim_end_matches(['.', ' ']);
    let extension = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    matches!(extension.as_deref(), Some("bat" | "cmd"))
}

/// The variables a command needs from tinymcp's own environment beyond `PATH`, `HOME` and
/// `LANG`: on Windows, where many programs cannot start without `SystemRoot` (Winsock, the
/// C runtime), the system's folders and the user's profile.
pub const PLATFORM_ENV: &[&str] =
    if cfg!(windows) { &["SystemRoot", "SystemDrive", "windir", "TEMP", "TMP", "USERPROFILE", "PATHEXT"] } else { &[] };

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

/// The few Windows calls std does not make for us, declared by hand (kernel32 and ntdll, which
/// every Windows program links): job objects, a process resumed whole, what identifies and
/// names an open file. The binary's only `unsafe` with cli/signal.rs.
#[cfg(windows)]
#[allow(unsafe_code)]
mod win {
    use std::ffi::c_void;
    use std::fs::File;
    use std::io;
    use std::os::windows::io::AsRawHandle;
    use std::process::Child;

    type Handle = *mut c_void;

    /// `JOBOBJECT_BASIC_LIMIT_INFORMATION`.
    #[repr(C)]
    #[derive(Default)]
    struct BasicLimits {
        per_process_user_time: i64,
        per_job_user_time: i64,
        limit_flags: u32,
        min_working_set: usize,
        max_working_set: usize,
        active_process_limit: u32,
        affinity: usize,
        priority_class: u32,
        scheduling_class: u32,
    }

    /// `JOBOBJECT_EXTENDED_LIMIT_INFORMATION` (its `IO_COUNTERS` as six counters).
    #[repr(C)]
    #[derive(Default)]
    struct ExtendedLimits {
        basic: BasicLimits,
        io: [u64; 6],
        process_memory_limit: usize,
        job_memory_limit: usize,
        peak_process_memory: usize,
        peak_job_memory: usize,
    }

    /// `JOBOBJECT_BASIC_ACCOUNTING_INFORMATION`.
    #[repr(C)]
    #[derive(Default)]
    struct Accounting {
        total_user_time: i64,
        total_kernel_time: i64,
        this_period_user_time: i64,
        this_period_kernel_time: i64,
        total_page_faults: u32,
        total_processes: u32,
        active_processes: u32,
        total_terminated: u32,
    }

    /// `BY_HANDLE_FILE_INFORMATION` (its `FILETIME`s as pairs of 32-bit halves).
    #[repr(C)]
    #[derive(Default)]
    pub struct FileInformation {
        attributes: u32,
        created: [u32; 2],
        accessed: [u32; 2],
        written: [u32; 2],
        pub volume_serial: u32,
        size_high: u32,
        size_low: u32,
        links: u32,
        pub index_high: u32,
        pub index_low: u32,
    }

    const JOB_OBJECT_EXTENDED_LIMIT_INFORMATION: i32 = 9;
    const JOB_OBJECT_BASIC_ACCOUNTING_INFORMATION: i32 = 1;
    const JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE: u32 = 0x2000;

    #[link(name = "kernel32")]
    extern "system" {
        fn CreateJobObjectW(attributes: *const c_void, name: *const u16) -> Handle;
        fn SetInformationJobObject(job: Handle, class: i32, info: *const c_void, len: u32) -> i32;
        fn QueryInformationJobObject(job: Handle, class: i32, info: *mut c_void, len: u32, ret: *mut u32) -> i32;
        fn AssignProcessToJobObject(job: Handle, process: Handle) -> i32;
        fn TerminateJobObject(job: Handle, exit_code: u32) -> i32;
        fn CloseHandle(handle: Handle) -> i32;
        fn GetFileInformationByHandle(file: Handle, info: *mut FileInformation) -> i32;
        fn GetFinalPathNameByHandleW(file: Handle, path: *mut u16, len: u32, flags: u32) -> u32;
    }

    #[link(name = "ntdll")]
    extern "system" {
        /// Resumes every thread of a process (undocumented but stable since NT; Wine has it):
        /// std keeps the main thread's handle to itself.
        fn NtResumeProcess(process: Handle) -> i32;
    }

    /// A job object's handle, closed on drop (which ends what is left in it).
    pub struct Job(Handle);

    // SAFETY: a job handle may be used and closed from any thread.
    unsafe impl Send for Job {}
    unsafe impl Sync for Job {}

    impl Job {
        /// A new, unnamed job whose processes end when its last handle closes.
        pub fn new() -> io::Result<Job> {
            // SAFETY: no security attributes (not inheritable), no name.
            let handle = unsafe { CreateJobObjectW(std::ptr::null(), std::ptr::null()) };
            if handle.is_null() {
                return Err(io::Error::last_os_error());
            }
            let job = Job(handle);
            let mut limits = ExtendedLimits::default();
            limits.basic.limit_flags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
            let size = u32::try_from(std::mem::size_of::<ExtendedLimits>()).unwrap_or(u32::MAX);
            // SAFETY: `limits` is the structure the class names, with its size.
            let set = unsafe {
                SetInformationJobObject(
                    job.0,
                    JOB_OBJECT_EXTENDED_LIMIT_INFORMATION,
                    std::ptr::from_ref(&limits).cast(),
                    size,
                )
            };
            if set == 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(job)
        }

        /// Puts the suspended `child` in the job, then lets it run.
        pub fn adopt(&self, child: &Child) -> io::Result<()> {
            let process = child.as_raw_handle();
            // SAFETY: both handles are open (the child's is std's until it is dropped).
            if unsafe { AssignProcessToJobObject(self.0, process) } == 0 {
                return Err(io::Error::last_os_error());
            }
            // SAFETY: as above; an NTSTATUS below zero is a failure.
            let status = unsafe { NtResumeProcess(process) };
            if status < 0 {
                return Err(io::Error::other(format!("cannot resume the process (NTSTATUS {status:#x})")));
            }
            Ok(())
        }

        /// Ends every process of the job.
        pub fn terminate(&self) -> io::Result<()> {
            // SAFETY: the handle is open until drop. Exit code 1, as a killed process has.
            if unsafe { TerminateJobObject(self.0, 1) } == 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        }

        /// How many processes of the job are running, if Windows tells.
        pub fn active(&self) -> Option<u32> {
            let mut info = Accounting::default();
            let size = u32::try_from(std::mem::size_of::<Accounting>()).ok()?;
            // SAFETY: `info` is the structure the class names, with its size.
            let ok = unsafe {
                QueryInformationJobObject(
                    self.0,
                    JOB_OBJECT_BASIC_ACCOUNTING_INFORMATION,
                    std::ptr::from_mut(&mut info).cast(),
                    size,
                    std::ptr::null_mut(),
                )
            };
            (ok != 0).then_some(info.active_processes)
        }
    }

    impl Drop for Job {
        fn drop(&mut self) {
            // SAFETY: closed once, here; KILL_ON_JOB_CLOSE ends what is left.
            unsafe { CloseHandle(self.0) };
        }
    }

    /// The volume serial number and 64-bit file index of an open file: what identifies it on
    /// its volume, as the device and inode do on Unix.
    pub fn identity(file: &File) -> io::Result<(u64, u64)> {
        let mut info = FileInformation::default();
        // SAFETY: the handle is the open file's; `info` is the structure the call fills.
        if unsafe { GetFileInformationByHandle(file.as_raw_handle(), &mut info) } == 0 {
            return Err(io::Error::last_os_error());
        }
        Ok((u64::from(info.volume_serial), u64::from(info.index_high) << 32 | u64::from(info.index_low)))
    }

    /// The path Windows names an open file by now (`\\?\C:\dir\file`, links resolved): what
    /// was opened, not what its path names after a swap.
    pub fn final_path(file: &File) -> io::Result<std::path::PathBuf> {
        use std::os::windows::ffi::OsStringExt;
        let mut buf = vec![0u16; 512];
        loop {
            let len = u32::try_from(buf.len()).unwrap_or(u32::MAX);
            // SAFETY: `buf` holds `len` u16s; flags 0: the normalized DOS path.
            let n = unsafe { GetFinalPathNameByHandleW(file.as_raw_handle(), buf.as_mut_ptr(), len, 0) };
            let n = usize::try_from(n).unwrap_or(usize::MAX);
            if n == 0 {
                return Err(io::Error::last_os_error());
            }
            if n < buf.len() {
                buf.truncate(n);
                return Ok(std::ffi::OsString::from_wide(&buf).into());
            }
            // Too small: `n` is the length needed, with the terminating zero.
            if n > 32 * 1024 + 1 {
                return Err(io::Error::other("the path of an open file is longer than Windows allows"));
            }
            buf.resize(n, 0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_open_file_is_known_by_its_identity_and_final_path() {
        let dir = std::env::temp_dir().join(format!("tinymcp-identity-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (a, b) = (dir.join("a.txt"), dir.join("b.txt"));
        std::fs::write(&a, "a").unwrap();
        std::fs::write(&b, "b").unwrap();
        let open = |p: &Path| read_options().open(p).unwrap();
        let first = file_identity(&open(&a)).unwrap();
        assert_eq!(first, file_identity(&open(&a)).unwrap(), "two handles of one file");
        assert_ne!(first, file_identity(&open(&b)).unwrap(), "two files");
        assert_eq!(file_identity(&open(&dir)).unwrap(), file_identity(&open(&dir.join("."))).unwrap(), "a folder");
        let held = open(&a);
        if let Some(named) = path_of_open(&held) {
            assert_eq!(named.unwrap(), std::fs::canonicalize(&a).unwrap());
        }
        // Renamed after the open: the handle's name follows the file, not the old path, and its
        // identity stays. (Not under Wine, which answers the name it was opened by, and no volume
        // serial once that name is gone: docs/testing.md.)
        std::fs::rename(&a, dir.join("c.txt")).unwrap();
        if std::env::var_os("WINEPREFIX").is_none() {
            if let Some(named) = path_of_open(&held) {
                assert_eq!(named.unwrap(), std::fs::canonicalize(dir.join("c.txt")).unwrap());
            }
            assert_eq!(file_identity(&held).unwrap(), first, "the same file after its rename");
        }
        drop(held);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn batch_scripts_are_known_however_spelled() {
        for program in ["run.bat", "RUN.CMD", r"C:\tools\x.Bat", "dir/x.cmd. ", "x.bat...", r"\\server\share\y.cmd"] {
            assert!(is_batch_script(program), "{program}");
        }
        for program in ["run.exe", "bat", "x.bat.exe", r"C:\bat\x", "cmd", "x.cmdx"] {
            assert!(!is_batch_script(program), "{program}");
        }
    }
}
