//! The watcher: one named thread that runs polling jobs (changed files, a changed manifest)
//! at a fixed interval, std only. It holds the server weakly and ends when the server is gone.

use std::io;
use std::panic::{self, AssertUnwindSafe};
use std::sync::{Arc, Weak};
use std::thread::{self, JoinHandle};
use std::time::Duration;
use tinymcp::Server;

/// A polling job, run once per tick with the server.
pub type Job = Box<dyn FnMut(&Server) + Send>;

/// Collects jobs, then polls them on one thread.
pub struct Watcher {
    interval: Duration,
    jobs: Vec<Job>,
}

impl Watcher {
    /// A watcher that ticks every `interval` (1 s suits people; tests use less).
    pub fn new(interval: Duration) -> Self {
        Watcher { interval, jobs: Vec::new() }
    }

    /// Adds a job.
    pub fn add(&mut self, job: impl FnMut(&Server) + Send + 'static) {
        self.jobs.push(Box::new(job));
    }

    /// Starts the `tinymcp-watch` thread (none when there is no job).
    pub fn spawn(mut self, server: &Arc<Server>) -> io::Result<Option<JoinHandle<()>>> {
        if self.jobs.is_empty() {
            return Ok(None);
        }
        let server: Weak<Server> = Arc::downgrade(server);
        let handle = thread::Builder::new().name("tinymcp-watch".into()).spawn(move || loop {
            thread::sleep(self.interval);
            let Some(server) = server.upgrade() else { return };
            for job in &mut self.jobs {
                // A job's bug costs that job's tick, not every later notification: the job
                // runs again at the next tick.
                let ran = panic::catch_unwind(AssertUnwindSafe(|| job(&server)));
                if ran.is_err() {
                    log::error!("a watch job panicked; it runs again at the next tick");
                }
            }
        })?;
        Ok(Some(handle))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    // One panicking job used to end the watcher thread, and with it every change
    // notification for good.
    #[test]
    fn a_panicking_job_does_not_stop_the_others() {
        let server = Arc::new(Server::new("watch-test", "0"));
        let ticks = Arc::new(AtomicUsize::new(0));
        let mut watcher = Watcher::new(Duration::from_millis(5));
        watcher.add(|_: &Server| panic!("a job's bug"));
        let counted = Arc::clone(&ticks);
        watcher.add(move |_: &Server| {
            counted.fetch_add(1, Ordering::SeqCst);
        });
        let handle = watcher.spawn(&server).unwrap().unwrap();
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while ticks.load(Ordering::SeqCst) < 3 && std::time::Instant::now() < deadline {
            thread::sleep(Duration::from_millis(5));
        }
        assert!(ticks.load(Ordering::SeqCst) >= 3, "the other job stopped after the panic");
        assert!(!handle.is_finished(), "the watcher thread ended");
        drop(server);
        handle.join().unwrap();
    }
}
