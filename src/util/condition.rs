//! `Condition`: waiting for a condition on state others change (a count reaching zero), on a
//! condition variable, at no cost to whoever changes that state while nobody waits; `InFlight`,
//! such a count of things in flight, held by guards. std only.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Instant;

/// Wakes whoever waits for a condition once it may hold. The changer calls [`Condition::notify`]
/// after each change; that costs one atomic load unless someone waits, so a hot path may
/// call it for every message.
#[derive(Default)]
pub struct Condition {
    waiting: AtomicUsize,
    lock: Mutex<()>,
    changed: Condvar,
}

impl Condition {
    /// Waits until `done()` holds (checked now and after each change), or `deadline` passes;
    /// says whether it holds. What `done` reads must be changed with `SeqCst` (or under a lock
    /// `done` takes too) before `notify`, so no change slips between the check and the wait.
    pub fn wait_until(&self, done: impl Fn() -> bool, deadline: Option<Instant>) -> bool {
        if done() {
            return true;
        }
        let mut guard = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        self.waiting.fetch_add(1, Ordering::SeqCst);
        let held = loop {
            if done() {
                break true;
            }
            guard = match deadline {
                None => self.changed.wait(guard).unwrap_or_else(PoisonError::into_inner),
                Some(deadline) => {
                    let left = deadline.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        break false;
                    }
                    self.changed.wait_timeout(guard, left).unwrap_or_else(PoisonError::into_inner).0
                }
            };
        };
        self.waiting.fetch_sub(1, Ordering::SeqCst);
        held
    }

    /// Wakes every waiter to check its condition again: call after a change it may wait for.
    pub fn notify(&self) {
        if self.waiting.load(Ordering::SeqCst) > 0 {
            // Taking the lock orders this wake-up after a waiter's check: it is either waiting
            // already or has yet to check, and then sees the change.
            drop(self.lock.lock().unwrap_or_else(PoisonError::into_inner));
            self.changed.notify_all();
        }
    }
}

/// A count of things in flight, each held by a [`Held`] until it is dropped, that someone may
/// wait to see reach zero (`Server::drain`, for the requests a relay has handed on).
#[derive(Default)]
pub(crate) struct InFlight {
    count: AtomicUsize,
    settled: Condition,
}

impl InFlight {
    /// Counts one more until the guard is dropped.
    pub(crate) fn hold(self: &Arc<Self>) -> Held {
        self.count.fetch_add(1, Ordering::SeqCst);
        Held(Arc::clone(self))
    }

    /// Waits until nothing is held, or `deadline`; says whether nothing is.
    pub(crate) fn wait_zero(&self, deadline: Instant) -> bool {
        self.settled.wait_until(|| self.count.load(Ordering::SeqCst) == 0, Some(deadline))
    }
}

/// One thing counted by a [`InFlight`], until dropped.
pub(crate) struct Held(Arc<InFlight>);

impl Drop for Held {
    fn drop(&mut self) {
        self.0.count.fetch_sub(1, Ordering::SeqCst);
        self.0.settled.notify();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;
    use std::time::Duration;

    #[test]
    fn a_waiter_wakes_on_the_change_and_a_deadline_ends_a_wait_for_nothing() {
        let condition = Arc::new(Condition::default());
        let flag = Arc::new(AtomicBool::new(false));
        let (s, f) = (Arc::clone(&condition), Arc::clone(&flag));
        let setter = std::thread::spawn(move || {
            f.store(true, Ordering::SeqCst);
            s.notify();
        });
        assert!(condition.wait_until(|| flag.load(Ordering::SeqCst), Some(Instant::now() + Duration::from_secs(5))));
        setter.join().unwrap();
        let never = Instant::now() + Duration::from_millis(20);
        assert!(!condition.wait_until(|| false, Some(never)));
        assert!(Instant::now() >= never);
    }

    #[test]
    fn a_count_in_flight_is_waited_for_until_its_last_guard_is_dropped() {
        let in_flight = Arc::new(InFlight::default());
        let (one, two) = (in_flight.hold(), in_flight.hold());
        assert!(!in_flight.wait_zero(Instant::now() + Duration::from_millis(20)));
        drop(one);
        let dropper = std::thread::spawn(move || drop(two));
        assert!(in_flight.wait_zero(Instant::now() + Duration::from_secs(5)));
        dropper.join().unwrap();
    }
}
