//! SIGTERM and SIGINT for the binary (Ctrl-C, Ctrl-Break and console close on Windows), with no
//! dependency: the one module with `unsafe` but platform.rs, a few lines of FFI (`signal`,
//! `write` and `kill`, in glibc and musl alike; `SetConsoleCtrlHandler` on Windows). The Unix
//! handler does only what is async-signal-safe: it writes the signal's number, one byte, to a
//! socket pair whose other end a thread blocks on, and that thread does the rest (drain, exit).
//! Windows calls its handler on a thread of its own, which sends the event on a channel to the
//! same waiting thread: both feed one shutdown path (`Signals::wait`). The library stays
//! `#![forbid(unsafe_code)]`; Cargo.toml denies `unsafe` everywhere else.
//! `kill_group` ends a proxied server's process group (`tinymcp proxy`, Unix): the server and
//! whatever it forked.
#![allow(unsafe_code)]

/// What a console control event is called in the log (Windows' `CTRL_*_EVENT` numbers), and
/// whether Windows ends the process as soon as the handler returns (then the handler waits for
/// the drain instead).
#[cfg_attr(not(windows), allow(dead_code))]
pub fn console_event(kind: u32) -> (&'static str, bool) {
    match kind {
        0 => ("Ctrl-C", false),
        1 => ("Ctrl-Break", false),
        2 => ("console close", true),
        5 => ("logoff", true),
        6 => ("shutdown", true),
        _ => ("console event", false),
    }
}

#[cfg(windows)]
pub use windows::{install, Signals};

#[cfg(unix)]
pub use unix::{install, kill_group, Signals};

#[cfg(windows)]
mod windows {
    use super::console_event;
    use std::io;
    use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
    use std::sync::{Mutex, PoisonError};
    use std::time::Duration;

    /// Where the handler sends each event (None until installed).
    static EVENTS: Mutex<Option<SyncSender<u32>>> = Mutex::new(None);

    #[link(name = "kernel32")]
    extern "system" {
        fn SetConsoleCtrlHandler(handler: Option<unsafe extern "system" fn(u32) -> i32>, add: i32) -> i32;
    }

    /// Runs on a thread Windows starts for the event: hands it to `Signals::wait` and answers
    /// "handled" (TRUE), so the default (ending the process at once) does not happen. For a
    /// console close, logoff or shutdown Windows ends the process when this returns (or after
    /// its own limit, 5 s for a close): it waits, so the drain thread's exit comes first.
    unsafe extern "system" fn on_event(kind: u32) -> i32 {
        let events = EVENTS.lock().unwrap_or_else(PoisonError::into_inner).clone();
        // A full channel drops the event: one waiting is enough.
        let sent = events.is_some_and(|tx| tx.try_send(kind).is_ok());
        if sent && console_event(kind).1 {
            std::thread::sleep(Duration::from_secs(30));
        }
        i32::from(sent)
    }

    /// Where the events arrive, once installed.
    pub struct Signals {
        events: Receiver<u32>,
    }

    /// From now on Ctrl-C, Ctrl-Break and console close no longer end the process:
    /// `Signals::wait` returns instead.
    pub fn install() -> io::Result<Signals> {
        let (tx, events) = sync_channel(4);
        *EVENTS.lock().unwrap_or_else(PoisonError::into_inner) = Some(tx);
        // SAFETY: `on_event` has the signature Windows calls, and only locks, sends and sleeps.
        if unsafe { SetConsoleCtrlHandler(Some(on_event), 1) } == 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(Signals { events })
    }

    impl Signals {
        /// Blocks until a console event arrives; its name.
        pub fn wait(&mut self) -> io::Result<&'static str> {
            let kind = self.events.recv().map_err(|_| io::Error::from(io::ErrorKind::UnexpectedEof))?;
            Ok(console_event(kind).0)
        }
    }
}

#[cfg(unix)]
mod unix {

    use std::ffi::{c_int, c_void};
    use std::io::{self, Read};
    use std::os::fd::IntoRawFd;
    use std::os::unix::net::UnixStream;
    use std::sync::atomic::{AtomicI32, Ordering};

    /// The numbers are the same on every Linux architecture and on the BSDs.
    const SIGINT: c_int = 2;
    const SIGTERM: c_int = 15;
    const SIGKILL: c_int = 9;
    /// `SIG_ERR`, `(sighandler_t) -1`.
    const SIG_ERR: usize = usize::MAX;

    /// The write end the handler signals on (-1 until installed). Never closed: a signal may come
    /// at any moment until the process ends.
    static WAKE: AtomicI32 = AtomicI32::new(-1);

    extern "C" {
        fn signal(signum: c_int, handler: extern "C" fn(c_int)) -> usize;
        fn write(fd: c_int, buf: *const c_void, count: usize) -> isize;
        fn kill(pid: c_int, sig: c_int) -> c_int;
        #[cfg_attr(any(target_os = "linux", target_os = "android"), link_name = "__errno_location")]
        #[cfg_attr(not(any(target_os = "linux", target_os = "android")), link_name = "__error")]
        fn errno_location() -> *mut c_int;
    }

    extern "C" fn on_signal(signum: c_int) {
        let fd = WAKE.load(Ordering::Relaxed);
        if fd < 0 {
            return;
        }
        let byte = u8::try_from(signum).unwrap_or(u8::MAX);
        // SAFETY: `write` and reading or setting errno are async-signal-safe; the buffer is a local
        // byte; the descriptor is non-blocking (a full socket drops the byte, and one is enough)
        // and stays open until exit. errno is restored for the code the signal interrupted.
        unsafe {
            let errno = errno_location();
            let saved = *errno;
            write(fd, std::ptr::from_ref(&byte).cast(), 1);
            *errno = saved;
        }
    }

    /// Where the signals arrive, once installed.
    pub struct Signals {
        wake: UnixStream,
    }

    /// From now on SIGTERM and SIGINT no longer end the process: `Signals::wait` returns instead.
    pub fn install() -> io::Result<Signals> {
        let (wake, writer) = UnixStream::pair()?;
        writer.set_nonblocking(true)?;
        WAKE.store(writer.into_raw_fd(), Ordering::SeqCst);
        for signum in [SIGTERM, SIGINT] {
            // SAFETY: `on_signal` is an `extern "C" fn(c_int)` that only does async-signal-safe work.
            if unsafe { signal(signum, on_signal) } == SIG_ERR {
                return Err(io::Error::last_os_error());
            }
        }
        Ok(Signals { wake })
    }

    impl Signals {
        /// Blocks until SIGTERM or SIGINT arrives; its name.
        pub fn wait(&mut self) -> io::Result<&'static str> {
            let mut byte = [0u8];
            loop {
                match self.wake.read(&mut byte) {
                    Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
                    Ok(_) => return Ok(if c_int::from(byte[0]) == SIGINT { "SIGINT" } else { "SIGTERM" }),
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
        }
    }

    /// Sends SIGTERM (`hard`: SIGKILL) to every process of the group `pgid` (a child started in a
    /// group of its own, `CommandExt::process_group(0)`, whose pid is the group's id). A group
    /// already gone is not an error.
    pub fn kill_group(pgid: u32, hard: bool) -> io::Result<()> {
        // 0 and 1 would name our own group and every process we may signal: never.
        let pgid = c_int::try_from(pgid).ok().filter(|p| *p > 1).ok_or(io::ErrorKind::InvalidInput)?;
        let sig = if hard { SIGKILL } else { SIGTERM };
        // SAFETY: `kill` takes two integers and touches no memory of ours; a negative pid names
        // the group, which is checked above to be a real one's.
        if unsafe { kill(-pgid, sig) } == 0 {
            return Ok(());
        }
        let error = io::Error::last_os_error();
        // ESRCH: nothing is left in the group.
        if error.raw_os_error() == Some(3) {
            return Ok(());
        }
        Err(error)
    }
}

#[cfg(test)]
mod tests {
    use super::console_event;

    #[test]
    fn console_events_are_named_and_the_ones_that_end_the_process_known() {
        assert_eq!(console_event(0), ("Ctrl-C", false));
        assert_eq!(console_event(1), ("Ctrl-Break", false));
        assert_eq!(console_event(2), ("console close", true));
        assert_eq!(console_event(6), ("shutdown", true));
        assert_eq!(console_event(99), ("console event", false));
    }
}
