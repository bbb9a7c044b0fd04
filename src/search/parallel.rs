//! The threads of one exact solve, and the stack they run on.
//!
//! Every job (a bisection, a null-window test) runs on `threads` threads
//! at once, all on the same job and the same shared transposition table;
//! the first thread to finish gives the result and stops the others. The
//! threads cooperate ABDADA-style: before searching a move (other than a
//! node's first), a thread looks its child up in [`Busy`], a small shared
//! table of the children some thread is searching now, and defers the move
//! to the end of the node's list if it is there; by the time it comes back
//! to it, the other thread's result is usually in the table. (Lazy SMP,
//! perturbed move orders instead of deferrals, measured 1.3× against
//! ABDADA's 2.0× on two threads: removed. With `abdada` off, the threads
//! share the table only, to measure.) Either way values do not depend on
//! the threads: every move is still searched or cut by a proved bound.
//!
//! Search threads run on stacks of [`STACK_BYTES`], and a path longer than
//! [`MAX_PLY`] stops the search as a limit does (the analysis then reports
//! the bounds proved so far): a very long quiet line can never overflow
//! the stack, whatever the caller's thread.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

use crate::game::Game;
use crate::tt::TransTable;

use super::ctx::Ctx;
use super::Searcher;

/// Stack of every search thread. Only the pages a search touches are
/// ever committed.
pub(super) const STACK_BYTES: usize = 1 << 30;

/// Longest path a search may follow (a stack frame per ply is well under
/// `STACK_BYTES / MAX_PLY`, with room for the caller's frames).
pub const MAX_PLY: usize = 250_000;

/// Slots of the busy table.
const BUSY_SLOTS: usize = 1 << 15;

/// Only nodes this close to the job's root defer moves: deeper subtrees
/// are too small to be worth the shared-memory traffic.
pub(super) const DEFER_PLY: usize = 16;

thread_local! {
    /// Whether this thread already runs on a search stack.
    static BIG_STACK: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` on a thread with a stack of [`STACK_BYTES`]: this one if it
/// already is such a thread, else a new one (or this one if none can be
/// made).
pub(super) fn on_search_stack<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    if BIG_STACK.with(Cell::get) {
        return f();
    }
    let slot = Mutex::new(Some(f));
    let run = || {
        BIG_STACK.with(|b| b.set(true));
        let f = slot.lock().unwrap_or_else(|e| e.into_inner()).take();
        f.map(|f| f())
    };
    let spawned = std::thread::scope(|s| {
        let h = std::thread::Builder::new()
            .stack_size(STACK_BYTES)
            .spawn_scoped(s, run);
        h.ok()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
    });
    match spawned.flatten() {
        Some(r) => r,
        // No thread could be made: run here, as before.
        None => {
            let f = slot.into_inner().unwrap_or_else(|e| e.into_inner());
            (f.expect("not run: the thread was never made"))()
        }
    }
}

/// The children being searched now, by their path keys (a heuristic: a
/// key may be overwritten or missed, which only costs work).
pub(super) struct Busy {
    slots: Box<[AtomicU64]>,
}

impl Busy {
    pub fn new() -> Self {
        Busy {
            slots: (0..BUSY_SLOTS).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    #[inline]
    fn slot(&self, key: u64) -> &AtomicU64 {
        &self.slots[key as usize & (BUSY_SLOTS - 1)]
    }

    /// Whether some thread is searching the child with path key `key`.
    #[inline]
    pub fn is_busy(&self, key: u64) -> bool {
        self.slot(key).load(Relaxed) == key
    }

    /// Marks `key` as being searched.
    #[inline]
    pub fn enter(&self, key: u64) {
        self.slot(key).store(key, Relaxed);
    }

    /// Unmarks `key` (unless another key took its slot meanwhile).
    #[inline]
    pub fn leave(&self, key: u64) {
        let _ = self.slot(key).compare_exchange(key, 0, Relaxed, Relaxed);
    }
}

impl<G: Game, T: TransTable> Searcher<'_, G, T> {
    /// Runs `job` on the pool's number of threads (one unless `parallel`)
    /// and returns the result of the first thread to finish; the others
    /// stop at their next flush.
    pub(super) fn run_threads<R: Send>(&self, job: impl Fn(&mut Ctx) -> R + Sync) -> R {
        let threads = if self.opts.parallel {
            rayon::current_num_threads()
        } else {
            1
        };
        let run = |ctx: &mut Ctx| {
            let r = job(ctx);
            let _ = self.shared.flush(ctx);
            self.shared.merge_profile(ctx);
            r
        };
        if threads == 1 {
            return on_search_stack(|| run(&mut Ctx::new(&self.shared)));
        }
        let abdada = self.opts.abdada;
        if abdada {
            self.busy.get_or_init(Busy::new);
        }
        let done = Arc::new(AtomicBool::new(false));
        let winner = Mutex::new(None);
        let worker = || {
            let mut ctx = Ctx::new(&self.shared);
            ctx.done = Some(done.clone());
            ctx.defer = abdada;
            let (run, done, winner) = (&run, &done, &winner);
            move || {
                let r = run(&mut ctx);
                if !done.swap(true, Relaxed) {
                    *winner.lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
                }
            }
        };
        std::thread::scope(|s| {
            for _ in 1..threads {
                // A helper that cannot be started is simply not there.
                let mut w = worker();
                let _ = std::thread::Builder::new()
                    .stack_size(STACK_BYTES)
                    .spawn_scoped(s, move || {
                        BIG_STACK.with(|b| b.set(true));
                        w()
                    });
            }
            on_search_stack(worker());
        });
        let r = winner.into_inner().unwrap_or_else(|e| e.into_inner());
        r.expect("the first thread to finish leaves its result")
    }
}
