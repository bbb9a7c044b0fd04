//! One thread's search state: the path of the current stretch (for
//! repeats), the counters not yet added to the shared ones, and the
//! shared counters with the stop rule ([`Shared`]).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Instant;

use super::{Abort, Limits, Stats};

/// Slots of the counting filter over the path's keys.
const FILTER: usize = 4096;

/// Largest number of nodes a thread counts before adding them to the
/// shared count and checking the limits.
const FLUSH_MAX: u64 = 1024;

/// One thread's state.
pub(super) struct Ctx {
    /// Set when several threads run the same job: the first to finish
    /// raises it, and the others stop.
    pub done: Option<Arc<AtomicBool>>,
    /// Defer moves other threads are searching (ABDADA).
    pub defer: bool,
    /// Keys of the positions on the path from the root.
    stack: Vec<u64>,
    /// Counting filter over the keys on `stack`: a zero slot proves a key
    /// is not on the path, so most nodes skip the scan.
    filter: Box<[u8; FILTER]>,
    /// Where the current stretch begins on `stack`.
    base: usize,
    /// Nodes visited by this thread.
    pub nodes: u64,
    flushed: u64,
    /// Nodes between two flushes.
    every: u64,
    pub probes: u64,
    pub hits: u64,
    pub table_hits: u64,
}

impl Ctx {
    /// A fresh state for a search under `shared`'s limits.
    pub fn new(shared: &Shared) -> Self {
        Ctx {
            done: None,
            defer: false,
            stack: Vec::with_capacity(256),
            filter: Box::new([0; FILTER]),
            base: 0,
            nodes: 0,
            flushed: 0,
            every: shared.flush_interval(),
            probes: 0,
            hits: 0,
            table_hits: 0,
        }
    }

    /// Enters a node with path key `key`; a stretch start begins a new
    /// stretch. Returns what [`Ctx::leave`] restores.
    #[inline]
    pub fn enter(&mut self, key: u64, stretch_start: bool) -> usize {
        let saved = self.base;
        if stretch_start {
            self.base = self.stack.len();
        }
        self.stack.push(key);
        let f = &mut self.filter[key as usize % FILTER];
        *f = f.saturating_add(1);
        saved
    }

    /// Leaves the node last entered.
    #[inline]
    pub fn leave(&mut self, saved: usize) {
        if let Some(key) = self.stack.pop() {
            let f = &mut self.filter[key as usize % FILTER];
            // A saturated slot stays saturated (it then only costs scans).
            if *f != u8::MAX {
                *f -= 1;
            }
        }
        self.base = saved;
    }

    /// Plies from the job's root to the current node.
    #[inline]
    pub fn ply(&self) -> usize {
        self.stack.len()
    }

    /// Whether `key` is on the path of the current stretch.
    #[inline]
    pub fn repeats(&self, key: u64) -> bool {
        self.filter[key as usize % FILTER] != 0 && self.stack[self.base..].contains(&key)
    }
}

/// Counters shared by the threads of one search, and the stop rule.
pub(super) struct Shared {
    stop: AtomicBool,
    nodes: AtomicU64,
    probes: AtomicU64,
    hits: AtomicU64,
    table_hits: AtomicU64,
    node_limit: Option<u64>,
    /// Shared node count at which the current budgeted job stops (without
    /// stopping the search): `u64::MAX` when none.
    budget_end: AtomicU64,
    deadline: Option<Instant>,
    /// When the search was set up.
    pub born: Instant,
}

impl Shared {
    pub fn new(limits: Limits) -> Self {
        Shared {
            stop: AtomicBool::new(false),
            nodes: AtomicU64::new(0),
            probes: AtomicU64::new(0),
            hits: AtomicU64::new(0),
            table_hits: AtomicU64::new(0),
            node_limit: limits.nodes,
            budget_end: AtomicU64::new(u64::MAX),
            deadline: limits.time.map(|d| Instant::now() + d),
            born: Instant::now(),
        }
    }

    /// Nodes a thread counts between flushes: small enough that all the
    /// threads together pass a node limit by at most an eighth of it (or by
    /// one node each).
    fn flush_interval(&self) -> u64 {
        let threads = rayon::current_num_threads() as u64;
        self.node_limit
            .map_or(FLUSH_MAX, |n| (n / (8 * threads)).clamp(1, FLUSH_MAX))
    }

    /// Counts a node of `ctx`, flushing when due.
    ///
    /// # Errors
    /// [`Abort`] when the search must stop.
    #[inline]
    pub fn count(&self, ctx: &mut Ctx) -> Result<(), Abort> {
        ctx.nodes += 1;
        if ctx.nodes - ctx.flushed >= ctx.every {
            self.flush(ctx)?;
        }
        Ok(())
    }

    /// Adds `ctx`'s counters to the shared ones and checks the limits.
    ///
    /// # Errors
    /// [`Abort`] when the search must stop (a limit, or another thread
    /// finished the same job).
    pub fn flush(&self, ctx: &mut Ctx) -> Result<(), Abort> {
        let d = ctx.nodes - ctx.flushed;
        ctx.flushed = ctx.nodes;
        let total = self.nodes.fetch_add(d, Relaxed) + d;
        self.probes
            .fetch_add(std::mem::take(&mut ctx.probes), Relaxed);
        self.hits.fetch_add(std::mem::take(&mut ctx.hits), Relaxed);
        self.table_hits
            .fetch_add(std::mem::take(&mut ctx.table_hits), Relaxed);
        if ctx.done.as_ref().is_some_and(|h| h.load(Relaxed)) || self.stopped() {
            return Err(Abort);
        }
        let over_nodes = self.node_limit.is_some_and(|n| total >= n);
        let over_time = self.deadline.is_some_and(|d| Instant::now() >= d);
        if over_nodes || over_time {
            self.stop.store(true, Relaxed);
            return Err(Abort);
        }
        // Checked after the limits, so that a budget never hides them.
        if total >= self.budget_end.load(Relaxed) {
            return Err(Abort);
        }
        Ok(())
    }

    /// Makes the next jobs stop (as a limit stops them, but leaving the
    /// search free to go on) once about `nodes` more have been searched;
    /// `None` lifts the budget.
    pub fn set_budget(&self, nodes: Option<u64>) {
        let end = nodes.map_or(u64::MAX, |n| self.nodes().saturating_add(n));
        self.budget_end.store(end, Relaxed);
    }

    /// Whether a limit has been reached.
    #[inline]
    pub fn stopped(&self) -> bool {
        self.stop.load(Relaxed)
    }

    /// Stops every thread as if a limit had been reached.
    pub fn request_stop(&self) {
        self.stop.store(true, Relaxed);
    }

    /// Nodes counted so far (flushed ones).
    pub fn nodes(&self) -> u64 {
        self.nodes.load(Relaxed)
    }

    /// Counts an endgame-table answer given outside any thread's search.
    pub fn table_hit(&self) {
        self.table_hits.fetch_add(1, Relaxed);
    }

    /// The counters so far, with the time since `t0`.
    pub fn stats(&self, t0: Instant) -> Stats {
        Stats {
            nodes: self.nodes.load(Relaxed),
            tt_probes: self.probes.load(Relaxed),
            tt_hits: self.hits.load(Relaxed),
            table_hits: self.table_hits.load(Relaxed),
            time_ms: t0.elapsed().as_millis() as u64,
        }
    }
}
