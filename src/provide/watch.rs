//! The watcher: one named thread that runs polling jobs (changed files, a changed manifest)
//! at a fixed interval, std only. It holds the server weakly and ends when the server is gone.

use crate::Server;
use std::io;
use std::sync::{Arc, Weak};
use std::thread::{self, JoinHandle};
use std::time::Duration;

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

    /// Whether there is nothing to poll.
    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
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
                job(&server);
            }
        })?;
        Ok(Some(handle))
    }
}
