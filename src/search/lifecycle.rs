//! A search's life, in one place: what the UCI thread (`go`, `stop`,
//! `ponderhit`, `quit`), the engine's main search thread and every search
//! thread's nodes read and change.
//!
//! ```text
//!             go ponder            ponderhit
//!   (start) ───────────► pondering ─────────► searching
//!      │ go                  │                    │
//!      └─────────────────────┼────────────────────┘
//!                            ▼  a limit / the user's stop
//!                         stopping ──(bestmove released)──► done
//! ```
//!
//! The phase is one atomic byte of flags, since the states overlap: a
//! ponder search can reach its depth limit (stopping) while still
//! pondering, and must then hold its `bestmove` until `ponderhit` or
//! `stop`; an `infinite` search holds it until `stop`. The threads read
//! "must I stop?" at every node with a relaxed load; the main search
//! thread, holding its `bestmove`, sleeps on a condition variable that
//! `stop` and `ponderhit` wake.
//!
//! Each search thread also keeps its own view (`Searcher::should_stop`):
//! it obeys a stop only once its first iteration is done, and then
//! unwinds without reading the shared phase again.

use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::Duration;

/// The search runs on the opponent's time: no time budget counts yet.
const PONDERING: u8 = 1;
/// A limit of the search's own (depth, nodes, time, mate found, the main
/// thread done) ended it.
const STOPPED_BY_LIMIT: u8 = 2;
/// The user said `stop` (or `quit`): this alone ends an `infinite` search.
const STOPPED_BY_USER: u8 = 4;
/// `bestmove` is being printed: a `go` after this is a new search.
const DONE: u8 = 8;

const STOPPING: u8 = STOPPED_BY_LIMIT | STOPPED_BY_USER;

#[derive(Debug, Default)]
pub struct Lifecycle {
    phase: AtomicU8,
    /// Milliseconds after the search started at which its time budget
    /// starts counting (`ponderhit`'s time; 0 otherwise).
    budget_origin_ms: AtomicU64,
    /// Wakes a main thread that holds its `bestmove`; the mutex orders a
    /// wake after the phase it announces.
    release: (Mutex<()>, Condvar),
}

impl Lifecycle {
    /// A new search begins, on the opponent's time if `pondering`.
    pub fn start(&self, pondering: bool) {
        self.budget_origin_ms.store(0, Ordering::SeqCst);
        let phase = if pondering { PONDERING } else { 0 };
        self.phase.store(phase, Ordering::SeqCst);
    }

    /// A limit of the search's own is reached: every thread stops (the
    /// user's stop, if given, stays the user's).
    pub fn limit_reached(&self) {
        self.phase.fetch_or(STOPPED_BY_LIMIT, Ordering::SeqCst);
    }

    /// `stop` or `quit`.
    pub fn user_stop(&self) {
        self.phase.fetch_or(STOPPED_BY_USER, Ordering::SeqCst);
        self.wake();
    }

    /// `ponderhit`, `origin` after the search started: the expected move
    /// was played; the time budget counts from now.
    pub fn ponderhit(&self, origin: Duration) {
        self.budget_origin_ms
            .store(origin.as_millis() as u64, Ordering::SeqCst);
        self.phase.fetch_and(!PONDERING, Ordering::SeqCst);
        self.wake();
    }

    /// `bestmove` is about to be printed.
    pub fn finish(&self) {
        self.phase.fetch_or(DONE, Ordering::SeqCst);
    }

    /// Must the threads stop? (Read at every node: relaxed.)
    pub fn must_stop(&self) -> bool {
        self.phase.load(Ordering::Relaxed) & STOPPING != 0
    }

    pub fn stopped_by_user(&self) -> bool {
        self.phase.load(Ordering::SeqCst) & STOPPED_BY_USER != 0
    }

    /// On the opponent's time (read by the clock checks: relaxed).
    pub fn pondering(&self) -> bool {
        self.phase.load(Ordering::Relaxed) & PONDERING != 0
    }

    /// `bestmove` is printed or on its way.
    pub fn is_done(&self) -> bool {
        self.phase.load(Ordering::SeqCst) & DONE != 0
    }

    /// When the time budget started counting, after the search started.
    pub fn budget_origin(&self) -> Duration {
        Duration::from_millis(self.budget_origin_ms.load(Ordering::Relaxed))
    }

    /// Blocks the main thread, done searching, until its `bestmove` may be
    /// printed: the protocol forbids one before `stop` in an `infinite`
    /// search, and before `ponderhit` or `stop` in a ponder search.
    pub fn wait_for_release(&self, infinite: bool) {
        let held = |phase: u8| phase & STOPPED_BY_USER == 0 && (infinite || phase & PONDERING != 0);
        let (lock, wake) = &self.release;
        let mut guard = lock.lock().unwrap_or_else(PoisonError::into_inner);
        while held(self.phase.load(Ordering::SeqCst)) {
            guard = wake.wait(guard).unwrap_or_else(PoisonError::into_inner);
        }
    }

    fn wake(&self) {
        let (lock, wake) = &self.release;
        let _guard = lock.lock().unwrap_or_else(PoisonError::into_inner);
        wake.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::thread;

    #[test]
    fn stops_and_ponderhit_change_the_phase() {
        let life = Lifecycle::default();
        life.start(true);
        assert!(life.pondering() && !life.must_stop());
        life.limit_reached();
        assert!(life.must_stop() && !life.stopped_by_user() && life.pondering());
        life.ponderhit(Duration::from_millis(250));
        assert!(!life.pondering() && life.must_stop());
        assert_eq!(life.budget_origin(), Duration::from_millis(250));
        life.user_stop();
        assert!(life.stopped_by_user());
        life.finish();
        assert!(life.is_done());
        life.start(false);
        assert!(!life.must_stop() && !life.is_done() && !life.pondering());
        assert_eq!(life.budget_origin(), Duration::ZERO);
    }

    /// A held `bestmove` waits for `stop` (infinite) or `ponderhit`
    /// (ponder), and a limit alone does not release it.
    #[test]
    fn a_held_bestmove_is_released_by_stop_or_ponderhit() {
        for (infinite, pondering) in [(true, false), (false, true), (true, true)] {
            let life = Arc::new(Lifecycle::default());
            life.start(pondering);
            life.limit_reached();
            let waiter = {
                let life = Arc::clone(&life);
                thread::spawn(move || life.wait_for_release(infinite))
            };
            thread::sleep(Duration::from_millis(20));
            assert!(!waiter.is_finished(), "a limit released it");
            if infinite {
                life.ponderhit(Duration::ZERO);
                thread::sleep(Duration::from_millis(20));
                assert!(
                    !waiter.is_finished(),
                    "ponderhit released an infinite search"
                );
                life.user_stop();
            } else {
                life.ponderhit(Duration::ZERO);
            }
            waiter.join().unwrap();
        }
        // Nothing to hold: returns at once.
        let life = Lifecycle::default();
        life.start(false);
        life.wait_for_release(false);
    }
}
