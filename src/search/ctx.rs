//! One thread's search state: the path of the current stretch (for
//! repeats), the counters not yet added to the shared ones, and the
//! shared counters with the stop rule ([`Shared`]).
//!
//! A repeat test costs O(1) at any depth: a counting filter rejects most
//! keys, the first [`SHALLOW`] plies are scanned, and the keys deeper than
//! that are also indexed in a hash map (key → its deepest ply). Paths run
//! to tens of thousands of plies in long quiet stretches (Adjito under
//! `must-reach` with tables), where a scan of the whole stretch per node
//! made the search 25–80× slower.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Instant;

use super::profile::{PlyCounts, Profile};
use super::{Abort, Limits, Stats};

/// Slots of the counting filter over the path's keys.
const FILTER: usize = 4096;

/// Plies of the path found by a scan; deeper ones are indexed in a map.
const SHALLOW: usize = 256;

/// No earlier ply of a key in the deep index.
const NONE: u32 = u32::MAX;

/// A hasher for keys that are already well-mixed hashes
/// ([`crate::game::Packed::key`]): the key is its own hash.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, k: u64) {
        self.0 = k;
    }
}

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
    /// The keys at plies from [`SHALLOW`] on: key → its deepest ply.
    deep: HashMap<u64, u32, BuildHasherDefault<KeyHasher>>,
    /// Per ply from [`SHALLOW`] on, the key's previous deepest ply in
    /// `deep` ([`NONE`] if none), restored when the ply is left.
    prev: Vec<u32>,
    /// Nodes visited by this thread.
    pub nodes: u64,
    flushed: u64,
    /// Nodes between two flushes.
    every: u64,
    pub probes: u64,
    pub hits: u64,
    pub table_hits: u64,
    /// Counters per ply, when the search profiles ([`Shared::profiling`]).
    pub profile: Option<Box<Profile>>,
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
            deep: HashMap::default(),
            prev: Vec::new(),
            nodes: 0,
            flushed: 0,
            every: shared.flush_interval(),
            probes: 0,
            hits: 0,
            table_hits: 0,
            profile: shared.profiling.then(Box::default),
        }
    }

    /// The profile's row of ply `ply`, when the search profiles.
    #[inline]
    pub fn at(&mut self, ply: usize) -> Option<&mut PlyCounts> {
        self.profile.as_deref_mut().map(|p| p.at(ply))
    }

    /// The profile's row of the current ply (the path's length: the ply
    /// of a node not yet entered, or of the children of the last node
    /// entered), when the search profiles.
    #[inline]
    pub fn here(&mut self) -> Option<&mut PlyCounts> {
        let ply = self.stack.len();
        self.at(ply)
    }

    /// Enters a node with path key `key`; a stretch start begins a new
    /// stretch. Returns what [`Ctx::leave`] restores.
    #[inline]
    pub fn enter(&mut self, key: u64, stretch_start: bool) -> usize {
        let saved = self.base;
        if stretch_start {
            self.base = self.stack.len();
        }
        let ply = self.stack.len();
        self.stack.push(key);
        if ply >= SHALLOW {
            let old = self.deep.insert(key, ply as u32);
            self.prev.push(old.unwrap_or(NONE));
        }
        let f = &mut self.filter[key as usize % FILTER];
        *f = f.saturating_add(1);
        saved
    }

    /// Leaves the node last entered.
    #[inline]
    pub fn leave(&mut self, saved: usize) {
        if let Some(key) = self.stack.pop() {
            if self.stack.len() >= SHALLOW {
                match self.prev.pop() {
                    Some(NONE) | None => self.deep.remove(&key),
                    Some(old) => self.deep.insert(key, old),
                };
            }
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
        if self.filter[key as usize % FILTER] == 0 {
            return false;
        }
        let shallow = self.stack.len().min(SHALLOW);
        (self.base < shallow && self.stack[self.base..shallow].contains(&key))
            || (self.stack.len() > SHALLOW
                && self
                    .deep
                    .get(&key)
                    .is_some_and(|&ply| ply as usize >= self.base))
    }
}

/// Counters shared by the threads of one search, and the stop rule.
pub(super) struct Shared {
    stop: AtomicBool,
    /// Set when a path reached the ply cap (and stopped the search).
    ply_cap: AtomicBool,
    /// The ply cap ([`super::Options::max_ply`]).
    max_ply: usize,
    nodes: AtomicU64,
    probes: AtomicU64,
    hits: AtomicU64,
    table_hits: AtomicU64,
    node_limit: Option<u64>,
    /// Shared node count at which the current budgeted job stops (without
    /// stopping the search): `u64::MAX` when none.
    budget_end: AtomicU64,
    deadline: Option<Instant>,
    /// The tables' alarm: raised when a probe met damaged data
    /// ([`crate::tables::TableSet::check_damage`]); the search then stops
    /// as a limit stops it, and its caller refuses the answer.
    alarm: Option<std::sync::Arc<AtomicBool>>,
    /// When the search was set up.
    pub born: Instant,
    /// Whether threads keep counters per ply ([`super::Options::profile`]).
    pub profiling: bool,
    /// The counters per ply of the jobs finished so far.
    profile: std::sync::Mutex<Profile>,
}

impl Shared {
    pub fn new(limits: Limits, max_ply: usize) -> Self {
        Shared {
            stop: AtomicBool::new(false),
            ply_cap: AtomicBool::new(false),
            max_ply,
            nodes: AtomicU64::new(0),
            probes: AtomicU64::new(0),
            hits: AtomicU64::new(0),
            table_hits: AtomicU64::new(0),
            node_limit: limits.nodes,
            budget_end: AtomicU64::new(u64::MAX),
            deadline: limits.time.map(|d| Instant::now() + d),
            alarm: None,
            born: Instant::now(),
            profiling: false,
            profile: Default::default(),
        }
    }

    /// Watches `alarm` (the tables' damage alarm): the search stops when
    /// it is raised.
    pub fn with_alarm(self, alarm: Option<std::sync::Arc<AtomicBool>>) -> Self {
        Shared { alarm, ..self }
    }

    /// Keeps counters per ply when `on`.
    pub fn with_profile(self, on: bool) -> Self {
        Shared {
            profiling: on,
            ..self
        }
    }

    /// Adds the counters per ply of `ctx` (a finished job's thread) to
    /// the search's.
    pub fn merge_profile(&self, ctx: &mut Ctx) {
        if let Some(p) = ctx.profile.take() {
            let mut all = self.profile.lock().unwrap_or_else(|e| e.into_inner());
            all.merge(&p);
        }
    }

    /// The counters per ply of the jobs finished so far.
    pub fn profile(&self) -> Profile {
        self.profile
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
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
        let damaged = self.alarm.as_ref().is_some_and(|a| a.load(Relaxed));
        if over_nodes || over_time || damaged {
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

    /// Stops every thread because a path reached the ply cap.
    pub fn stop_at_ply_cap(&self) {
        self.ply_cap.store(true, Relaxed);
        self.request_stop();
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
            ply_cap: self.ply_cap.load(Relaxed),
            max_ply: self.max_ply,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The naive answer: whether `key` is on the stretch `stack[base..]`.
    fn naive(stack: &[(u64, bool)], key: u64) -> bool {
        let base = stack.iter().rposition(|&(_, s)| s).unwrap_or(0);
        stack[base..].iter().any(|&(k, _)| k == key)
    }

    #[test]
    fn repeats_agree_with_a_scan_of_the_stretch_on_deep_paths() {
        // Paths well past SHALLOW, with stretch starts at every depth and
        // keys that repeat across stretches (few distinct keys), entered
        // and left at random: the indexed test answers as the scan does.
        let shared = Shared::new(Limits::default(), super::super::MAX_PLY);
        let mut ctx = Ctx::new(&shared);
        let mut model: Vec<(u64, bool)> = Vec::new();
        let mut saved = Vec::new();
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for step in 0..200_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let key = (x >> 8) % 600;
            let depth_goal = if step % 40_000 < 20_000 { 1500 } else { 300 };
            if model.len() < depth_goal && (!x.is_multiple_of(8) || model.is_empty()) {
                let start = x.is_multiple_of(97);
                if !start && naive(&model, key) {
                    assert!(ctx.repeats(key), "step {step}: missed a repeat of {key}");
                    continue;
                }
                assert!(
                    start || !ctx.repeats(key),
                    "step {step}: false repeat of {key}"
                );
                saved.push(ctx.enter(key, start));
                model.push((key, start));
            } else {
                ctx.leave(saved.pop().unwrap());
                model.pop();
            }
            let probe = (x >> 20) % 600;
            assert_eq!(ctx.repeats(probe), naive(&model, probe), "step {step}");
        }
        while let Some(s) = saved.pop() {
            ctx.leave(s);
        }
        assert!(ctx.deep.is_empty() && ctx.prev.is_empty() && ctx.stack.is_empty());
    }
}
