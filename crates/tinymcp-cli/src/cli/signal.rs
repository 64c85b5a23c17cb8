//! SIGTERM and SIGINT for the binary, with no dependency: the one module with `unsafe`, a few
//! lines of FFI (`signal`, `write` and `kill`, in glibc and musl alike). The handler does only what is
//! async-signal-safe: it writes the signal's number, one byte, to a socket pair whose other end
//! a thread blocks on, and that thread does the rest (drain, exit). The library stays
//! `#![forbid(unsafe_code)]`; Cargo.toml denies `unsafe` everywhere else.
//! `kill_group` ends a proxied server's process group (`tinymcp proxy`): the server and
//! whatever it forked.
#![allow(unsafe_code)]

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
