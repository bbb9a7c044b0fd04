//! The parallel retrograde builder.
//!
//! # Algorithm
//!
//! RULES.md §4 defines, per level, `lo` as the least and `hi` as the
//! greatest solution of `lo(p) = max(E(p), −hi(c))`, `hi(p) = max(E(p), −lo(c))`
//! over the quiet moves `p → c`, where `E(p)` is the best exit (a capture,
//! worth `captured − value(child)` from the lower tables, or the game-end
//! split). For a threshold `t`, `{lo ≥ t}` and `{hi ≤ −t}` are the two
//! attractor sets of a reachability game:
//!
//! - `p` enters **W** (`lo(p) ≥ t`) when `E(p) ≥ t` or a quiet child is in L;
//! - `c` enters **L** (`hi(c) ≤ −t`) when `E(c) ≤ −t` and every quiet child
//!   is in W.
//!
//! Both sets only grow as `t` falls from `n` to `−n`, so one sweep over `t`
//! settles every position, each exactly once per set:
//!
//! 1. **Forward pass** (parallel over rank chunks): for every position,
//!    `E` and the number of quiet moves (the *counter*).
//! 2. **Sweep** `t = n … −n`. A scan adds positions with `E = t` to W and
//!    positions with `E = −t` and counter 0 to L. Then frontiers alternate:
//!    every new W position generates its quiet *predecessors* (un-moves) and
//!    decrements their counters; a counter reaching 0 with `E ≤ −t` puts that
//!    predecessor in L (`hi = −t`). Every new L position puts its
//!    predecessors in W (`lo = t`).
//! 3. **Finish**: positions never in W have `lo = −∞`, never in L `hi = +∞`.
//!
//! Each position generates its predecessors at most twice, so the work is
//! O(moves) per level plus `2n + 1` cheap byte scans.
//!
//! # Memory and races
//!
//! Three bytes per position: `a` (E, later lo), `b` (counter in the low four
//! bits, W and L flags, two pending bits), `c` (the first bound found, later
//! hi). Frontiers hold `u32` ranks, at most `size / 64` of them per list;
//! beyond that, positions get a pending bit and the next phase collects them
//! with a scan, so the frontiers cost at most about 0.2 byte per position. Counters and flags are atomics; each phase makes only
//! one kind of transition (W or L), and the thread that wins the flag
//! (`fetch_or`) or takes the counter to zero (`fetch_sub`) is the only
//! writer of that position's `a`/`c` in the phase, so the result is the
//! same for any thread count.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};
use std::time::Instant;

use rayon::prelude::*;

use super::{format, level_positions, prefetch, Table, TableError, TableSet};
use crate::game::{for_each_step, Game, Position, Step};
use crate::index::{level_size, rank, unrank};
use crate::progress::Progress;
use crate::value::{capture_value, LoopRule, NEG_INF_BYTE, POS_INF_BYTE};

const CHUNK: usize = 1 << 14;
const CNT: u8 = 0x0F;
const IN_W: u8 = 0x10;
const IN_L: u8 = 0x20;
const PEND_W: u8 = 0x40;
const PEND_L: u8 = 0x80;
const NONE: i8 = i8::MIN;

/// What one level needs.
#[derive(Clone, Debug, serde::Serialize)]
pub struct LevelPlan {
    /// Seeds on the board.
    pub level: u32,
    /// Positions (entries).
    pub positions: u64,
    /// Size of the level's file.
    pub file_bytes: u64,
    /// Working memory of the build: three bytes per position (frontiers extra).
    pub work_bytes: u64,
    /// Lower levels mapped while building this one.
    pub lower_bytes: u64,
}

/// The plan for levels `0..=max`.
///
/// # Errors
/// [`TableError::TooLarge`] for the first level the builder cannot take,
/// before anything is allocated.
pub fn plan<G: Game>(max: u32) -> Result<Vec<LevelPlan>, TableError> {
    let mut lower = 0;
    (0..=max)
        .map(|n| {
            let positions = check_size::<G>(n)?;
            let p = LevelPlan {
                level: n,
                positions,
                file_bytes: format::HEADER_LEN as u64 + positions,
                work_bytes: 3 * positions,
                lower_bytes: lower,
            };
            lower += format::HEADER_LEN as u64 + positions;
            Ok(p)
        })
        .collect()
}

/// Measurements of one level's build.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct LevelReport {
    /// Seeds on the board.
    pub level: u32,
    /// Positions.
    pub positions: u64,
    /// Seconds in the forward pass.
    pub forward_secs: f64,
    /// Seconds in the threshold sweep.
    pub sweep_secs: f64,
    /// Total seconds (including the final pass, not the write).
    pub total_secs: f64,
    /// Largest frontier, in entries.
    pub max_frontier: u64,
    /// Thresholds that needed a scan.
    pub scans: u32,
    /// Seconds spent in the threshold scans (part of `sweep_secs`).
    pub scan_secs: f64,
    /// Frontier rounds that overflowed the cap and needed a pending-bit scan.
    pub spills: u32,
}

/// `(E, quiet-move count)` of a position; `E` is [`i8::MIN`] when it has no exit.
/// The lower-level entries of all capture children are located and
/// prefetched first, then read, so their cache misses overlap.
#[inline]
fn exits<G: Game>(pos: &Position, lower: &TableSet) -> (i8, u8) {
    let mut caps = [(0u8, 0u32, 0usize, 0i32); 6];
    let mut ncap = 0;
    let mut cnt = 0u8;
    let any = for_each_step::<G>(pos, |s| match s {
        Step::Capture {
            pos: c, captured, ..
        } => {
            let level = c.level();
            let idx = rank(&c.pits, G::PITS) as usize;
            if let Some(t) = lower.level(level) {
                t.prefetch(idx);
            }
            caps[ncap] = (captured, level, idx, lower.rule.w::<G>(&c));
            ncap += 1;
        }
        Step::Quiet { .. } => cnt += 1,
    });
    let mut e = i32::MIN;
    for &(captured, level, idx, w) in &caps[..ncap] {
        let t = lower
            .level(level)
            .expect("lower level present (checked by build_level)");
        e = e.max(capture_value(captured, t.value(idx, w)));
    }
    if !any {
        e = G::split(pos);
    }
    (if e == i32::MIN { NONE } else { e as i8 }, cnt)
}

/// Frontier entries handled together: their predecessors' ranks are
/// gathered and prefetched before any of them is touched, so the random
/// accesses overlap instead of stalling one by one.
const BATCH: usize = 64;

/// Ranks of the quiet predecessors of the boards ranked `ch`, each prefetched.
fn predecessor_ranks<G: Game>(ch: &[u32], n: u32, flags: &[AtomicU8]) -> Vec<u32> {
    let mut preds = Vec::with_capacity(ch.len() * 6);
    for &x in ch {
        G::for_each_quiet_predecessor(&pos_of::<G>(x, n), |p| {
            let i = rank(&p.pits, G::PITS) as u32;
            prefetch(&flags[i as usize]);
            preds.push(i);
        });
    }
    preds
}

/// Collects frontier ranks up to a shared cap; past it, marks positions
/// with a pending bit instead, so frontiers never outgrow the budget.
struct Sink<'a> {
    cap: usize,
    len: std::sync::atomic::AtomicUsize,
    spilled: std::sync::atomic::AtomicBool,
    flags: &'a [AtomicU8],
    bit: u8,
}

impl<'a> Sink<'a> {
    fn new(cap: usize, flags: &'a [AtomicU8], bit: u8) -> Self {
        Sink {
            cap,
            len: Default::default(),
            spilled: Default::default(),
            flags,
            bit,
        }
    }

    /// Pushes rank `i` into `out`, or marks it pending once the cap is
    /// reached. `budget` is the producer's own reservation, taken from the
    /// shared count 1024 entries at a time so that the counter's cache line
    /// is not fought over on every push.
    #[inline]
    fn push(&self, out: &mut Vec<u32>, budget: &mut usize, i: usize) {
        // Once full, the shared words are only read, never written again.
        if *budget == 0 && !self.spilled.load(Relaxed) {
            if self.len.fetch_add(1024, Relaxed) < self.cap {
                *budget = 1024;
            } else {
                self.spilled.store(true, Relaxed);
            }
        }
        if *budget > 0 {
            *budget -= 1;
            out.push(i as u32);
        } else {
            self.flags[i].fetch_or(self.bit, Relaxed);
        }
    }

    fn spilled(&self) -> bool {
        self.spilled.load(Relaxed)
    }
}

/// Runs `f` over a frontier list and, if it spilled, over every position
/// carrying the pending `bit` (clearing it). Returns what `f` produced.
fn phase<F>(
    list: &[u32],
    spilled: bool,
    bit: u8,
    sink: &Sink,
    flags: &[AtomicU8],
    f: &F,
) -> Vec<u32>
where
    F: Fn(&[u32], &Sink, &mut Vec<u32>) + Sync,
{
    let mut out: Vec<u32> = list
        .par_chunks(BATCH * 8)
        .flat_map_iter(|ch| {
            let mut o = Vec::new();
            f(ch, sink, &mut o);
            o
        })
        .collect();
    if spilled {
        let size = flags.len();
        let more: Vec<u32> = (0..size.div_ceil(CHUNK))
            .into_par_iter()
            .flat_map_iter(|ci| {
                let mine: Vec<u32> = (ci * CHUNK..((ci + 1) * CHUNK).min(size))
                    .filter(|&i| {
                        flags[i].load(Relaxed) & bit != 0
                            && flags[i].fetch_and(!bit, Relaxed) & bit != 0
                    })
                    .map(|i| i as u32)
                    .collect();
                let mut o = Vec::new();
                f(&mine, sink, &mut o);
                o
            })
            .collect();
        out.extend(more);
    }
    out
}

#[inline]
fn pos_of<G: Game>(idx: u32, n: u32) -> Position {
    Position {
        pits: unrank(idx as u64, n as usize, G::PITS),
        side: 0,
        opening: 0,
    }
}

fn atomic(v: &mut [u8]) -> &[AtomicU8] {
    // SAFETY: AtomicU8 has the same size and alignment as u8, and the
    // exclusive borrow guarantees no other access for the returned lifetime.
    unsafe { &*(v as *mut [u8] as *const [AtomicU8]) }
}

/// Builds level `n` from the lower levels in `lower`. Returns the lo and hi
/// planes and the measurements.
///
/// # Errors
/// [`TableError::TooLarge`] for a level beyond the builder (before any
/// allocation), [`TableError::Missing`] if `lower` does not cover every
/// level below `n`.
pub fn build_level<G: Game>(
    n: u32,
    lower: &TableSet,
    bar: &dyn Progress,
) -> Result<(Vec<u8>, Vec<u8>, LevelReport), TableError> {
    let size = check_size::<G>(n)? as usize;
    build_level_capped::<G>(n, lower, bar, (size / 64).max(1 << 16))
}

/// [`build_level`] with an explicit frontier cap (entries per list); a small
/// cap forces the pending-bit path, which tests use.
///
/// # Errors
/// As [`build_level`].
pub fn build_level_capped<G: Game>(
    n: u32,
    lower: &TableSet,
    bar: &dyn Progress,
    cap: usize,
) -> Result<(Vec<u8>, Vec<u8>, LevelReport), TableError> {
    let size = check_size::<G>(n)? as usize;
    if lower.covered() < n {
        return Err(TableError::Missing {
            level: lower.covered(),
            path: PathBuf::from("(lower levels)"),
        });
    }
    let t0 = Instant::now();
    let mut lb = LevelBuild::<G>::new(n, size, lower, cap.max(1));
    bar.start(&format!("level {n}"), size as u64);
    let hist = lb.forward(bar);
    lb.report.forward_secs = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    lb.sweep(&hist, bar);
    lb.report.sweep_secs = t1.elapsed().as_secs_f64();
    let (lo, hi, mut report) = lb.finish();
    report.total_secs = t0.elapsed().as_secs_f64();
    Ok((lo, hi, report))
}

/// One level under construction: the three planes and the measurements.
///
/// `a` holds E (later lo), `b` the counter and flags, `c` the first bound
/// found (later hi); see the module comment.
struct LevelBuild<'a, G: Game> {
    n: u32,
    size: usize,
    lower: &'a TableSet,
    /// Frontier cap (entries per list).
    cap: usize,
    a: Vec<u8>,
    b: Vec<u8>,
    c: Vec<u8>,
    report: LevelReport,
    game: std::marker::PhantomData<G>,
}

/// The planes of a [`LevelBuild`] as atomics, shared by the sweep's workers.
struct Planes<'p> {
    a: &'p [AtomicU8],
    b: &'p [AtomicU8],
    c: &'p [AtomicU8],
}

impl Planes<'_> {
    /// Puts `i` in W at threshold `t`; false if it already was.
    #[inline]
    fn w_trans(&self, i: usize, t: i32) -> bool {
        let prev = self.b[i].fetch_or(IN_W, Relaxed);
        if prev & IN_W != 0 {
            return false;
        }
        if prev & IN_L != 0 {
            self.a[i].store(t as i8 as u8, Relaxed);
        } else {
            self.c[i].store(t as i8 as u8, Relaxed);
        }
        true
    }

    /// Puts `i` in L at threshold `t` (its caller won the transition).
    #[inline]
    fn l_trans(&self, i: usize, t: i32) {
        let prev = self.b[i].fetch_or(IN_L, Relaxed);
        debug_assert!(prev & IN_L == 0);
        if prev & IN_W != 0 {
            self.a[i].store(self.c[i].load(Relaxed), Relaxed);
        }
        self.c[i].store((-t) as i8 as u8, Relaxed);
    }
}

impl<'a, G: Game> LevelBuild<'a, G> {
    fn new(n: u32, size: usize, lower: &'a TableSet, cap: usize) -> Self {
        LevelBuild {
            n,
            size,
            lower,
            cap,
            a: vec![0u8; size],
            b: vec![0u8; size],
            c: vec![0u8; size],
            report: LevelReport {
                level: n,
                positions: size as u64,
                ..Default::default()
            },
            game: std::marker::PhantomData,
        }
    }

    /// Step 1, the forward pass: E into `a`, the quiet-move count into `b`. Returns
    /// the histogram of E (index `E + n`), to skip empty thresholds.
    fn forward(&mut self, bar: &dyn Progress) -> Vec<u64> {
        bar.message(&format!("level {}: forward pass", self.n));
        let (n, lower) = (self.n, self.lower);
        let zero = || vec![0u64; 2 * n as usize + 1];
        self.a
            .par_chunks_mut(CHUNK)
            .zip(self.b.par_chunks_mut(CHUNK))
            .enumerate()
            .map(|(ci, (ac, bc))| {
                let mut h = zero();
                let ranks = (ci * CHUNK) as u64..(ci * CHUNK + ac.len()) as u64;
                for (k, (_, pos)) in level_positions::<G>(n, ranks).enumerate() {
                    let (e, cnt) = exits::<G>(&pos, lower);
                    ac[k] = e as u8;
                    bc[k] = cnt;
                    if e != NONE {
                        h[(e as i32 + n as i32) as usize] += 1;
                    }
                }
                bar.inc(ac.len() as u64);
                h
            })
            .reduce(zero, |mut x, y| {
                x.iter_mut().zip(y).for_each(|(p, q)| *p += q);
                x
            })
    }

    /// Step 2, the threshold sweep, `t = n … −n`, skipping thresholds no exit has.
    fn sweep(&mut self, hist: &[u64], bar: &dyn Progress) {
        let (n, size, cap) = (self.n, self.size, self.cap);
        let mut report = std::mem::take(&mut self.report);
        let planes = Planes {
            a: atomic(&mut self.a),
            b: atomic(&mut self.b),
            c: atomic(&mut self.c),
        };
        let ni = n as i32;
        for t in (-ni..=ni).rev() {
            if hist[(t + ni) as usize] == 0 && hist[(-t + ni) as usize] == 0 {
                continue;
            }
            report.scans += 1;
            bar.message(&format!("level {n}: threshold {t:+}"));
            let ts = Instant::now();
            let start = scan(&planes, size, cap, t);
            report.scan_secs += ts.elapsed().as_secs_f64();
            propagate::<G>(&planes, n, cap, t, start, &mut report);
        }
        self.report = report;
    }

    /// Step 3, finish: positions never in W get lo = −∞, never in L hi = +∞.
    /// Returns (lo, hi, report).
    fn finish(mut self) -> (Vec<u8>, Vec<u8>, LevelReport) {
        self.a
            .par_chunks_mut(CHUNK)
            .zip(self.b.par_chunks(CHUNK))
            .zip(self.c.par_chunks_mut(CHUNK))
            .for_each(|((ac, bc), cc)| {
                for k in 0..ac.len() {
                    match bc[k] & (IN_W | IN_L) {
                        f if f == IN_W | IN_L => {}
                        IN_W => {
                            ac[k] = cc[k];
                            cc[k] = POS_INF_BYTE as u8;
                        }
                        IN_L => ac[k] = NEG_INF_BYTE as u8,
                        _ => {
                            ac[k] = NEG_INF_BYTE as u8;
                            cc[k] = POS_INF_BYTE as u8;
                        }
                    }
                }
            });
        (self.a, self.c, self.report)
    }
}

/// The W and L frontiers of one threshold's start, and whether each spilled.
struct Frontiers {
    w: Vec<u32>,
    w_spill: bool,
    l: Vec<u32>,
    l_spill: bool,
}

/// The scan at threshold `t`: positions with `E = t` enter W, positions
/// with `E = −t` and no quiet move left outside W enter L.
fn scan(p: &Planes, size: usize, cap: usize, t: i32) -> Frontiers {
    let (sink_w, sink_l) = (Sink::new(cap, p.b, PEND_W), Sink::new(cap, p.b, PEND_L));
    let (w, l) = (0..size.div_ceil(CHUNK))
        .into_par_iter()
        .map(|ci| {
            let (mut w, mut l) = (Vec::new(), Vec::new());
            let (mut bw, mut bl) = (0, 0);
            for i in ci * CHUNK..((ci + 1) * CHUNK).min(size) {
                let f = p.b[i].load(Relaxed);
                let e = p.a[i].load(Relaxed) as i8;
                if f & (IN_W | IN_L) == IN_W | IN_L || e == NONE {
                    continue;
                }
                let e = e as i32;
                if f & IN_W == 0 && e == t && p.w_trans(i, t) {
                    sink_w.push(&mut w, &mut bw, i);
                }
                if f & IN_L == 0 && f & CNT == 0 && e == -t {
                    p.l_trans(i, t);
                    sink_l.push(&mut l, &mut bl, i);
                }
            }
            (w, l)
        })
        .reduce(
            || (Vec::new(), Vec::new()),
            |(mut w1, mut l1), (w2, l2)| {
                w1.extend(w2);
                l1.extend(l2);
                (w1, l1)
            },
        );
    Frontiers {
        w,
        w_spill: sink_w.spilled(),
        l,
        l_spill: sink_l.spilled(),
    }
}

/// The frontier rounds of threshold `t`, until both frontiers are empty.
///
/// Phase A: a new W position decrements its predecessors' counters; a
/// counter reaching 0 with E ≤ −t puts that predecessor in L. Phase B: a
/// new L position puts its predecessors in W.
fn propagate<G: Game>(
    p: &Planes,
    n: u32,
    cap: usize,
    t: i32,
    start: Frontiers,
    report: &mut LevelReport,
) {
    let process_w = |xs: &[u32], sink: &Sink, out: &mut Vec<u32>| {
        let mut budget = 0;
        for ch in xs.chunks(BATCH) {
            for &i in &predecessor_ranks::<G>(ch, n, p.b) {
                let i = i as usize;
                let prev = p.b[i].fetch_sub(1, Relaxed);
                debug_assert!(prev & CNT > 0);
                if prev & CNT == 1 && prev & IN_L == 0 {
                    let e = p.a[i].load(Relaxed) as i8;
                    if e == NONE || (e as i32) <= -t {
                        p.l_trans(i, t);
                        sink.push(out, &mut budget, i);
                    }
                }
            }
        }
    };
    let process_l = |xs: &[u32], sink: &Sink, out: &mut Vec<u32>| {
        let mut budget = 0;
        for ch in xs.chunks(BATCH) {
            for &i in &predecessor_ranks::<G>(ch, n, p.b) {
                let i = i as usize;
                if p.b[i].load(Relaxed) & IN_W == 0 && p.w_trans(i, t) {
                    sink.push(out, &mut budget, i);
                }
            }
        }
    };
    let Frontiers {
        w: mut w_list,
        mut w_spill,
        l: mut l_list,
        mut l_spill,
    } = start;
    while !w_list.is_empty() || w_spill || !l_list.is_empty() || l_spill {
        report.max_frontier = report
            .max_frontier
            .max((w_list.len() + l_list.len()) as u64);
        report.spills += (w_spill || l_spill) as u32;
        let s = Sink::new(cap, p.b, PEND_L);
        l_list.extend(phase(&w_list, w_spill, PEND_W, &s, p.b, &process_w));
        l_spill |= s.spilled();
        let s = Sink::new(cap, p.b, PEND_W);
        w_list = phase(&l_list, l_spill, PEND_L, &s, p.b, &process_l);
        w_spill = s.spilled();
        (l_list, l_spill) = (Vec::new(), false);
    }
}

/// Largest level size the builder takes: frontiers hold `u32` ranks.
pub const MAX_POSITIONS: u64 = u32::MAX as u64;

/// The positions of level `n`, or a refusal when the builder cannot take it.
///
/// # Errors
/// [`TableError::TooLarge`].
pub fn check_size<G: Game>(n: u32) -> Result<u64, TableError> {
    let positions = crate::index::try_level_size(n as usize, G::PITS).unwrap_or(u64::MAX);
    if positions >= MAX_POSITIONS {
        return Err(TableError::TooLarge {
            level: n,
            positions,
            max: MAX_POSITIONS - 1,
        });
    }
    Ok(positions)
}

/// The "floor": one parallel pass that generates and plays every move of
/// every position of level `n`. Returns the number of moves played.
pub fn floor_pass<G: Game>(n: u32) -> u64 {
    let size = level_size(n as usize, G::PITS) as usize;
    (0..size.div_ceil(CHUNK))
        .into_par_iter()
        .map(|ci| {
            let mut moves = 0u64;
            let mut sink = 0u64;
            let ranks = (ci * CHUNK) as u64..((ci + 1) * CHUNK).min(size) as u64;
            for (_, pos) in level_positions::<G>(n, ranks) {
                for mv in G::legal_moves(&pos).iter() {
                    let p = G::play_unchecked(&pos, mv);
                    sink = sink.wrapping_add(p.pos.pits[0] as u64 + p.captured as u64);
                    moves += 1;
                }
            }
            std::hint::black_box(sink);
            moves
        })
        .sum()
}

/// What [`build_tables`] did for one level.
#[derive(Clone, Debug, serde::Serialize)]
pub struct BuildEvent {
    /// Level.
    pub level: u32,
    /// True when an existing file was kept. It was opened and its header
    /// and payload checksum checked; its entries were not recomputed
    /// (that is `tables verify`).
    pub skipped: bool,
    /// Why an existing file was replaced (corrupt, truncated, old format…).
    pub replaced: Option<String>,
    /// Measurements when built.
    pub report: Option<LevelReport>,
}

/// Builds (or resumes) levels `0..=max` in `dir`. First removes the
/// temporary files a killed build left there. Levels whose file opens and
/// checks (header, game, rule, size, checksum) are kept; missing, truncated
/// or corrupt ones are built and written atomically. `on_level` is told
/// after each level.
///
/// # Errors
/// [`TableError::TooLarge`] before anything is built when a level is
/// beyond the builder; I/O errors; a lower level built under another loop
/// rule or for the other game; something other than a regular file (a
/// FIFO, a directory) in place of a level file.
pub fn build_tables<G: Game>(
    dir: &Path,
    rule: LoopRule,
    max: u32,
    bar: &dyn Progress,
    mut on_level: impl FnMut(&BuildEvent),
) -> Result<TableSet, TableError> {
    plan::<G>(max)?;
    format::remove_stale_temps(dir)?;
    let mut set = TableSet::empty(G::ID, rule);
    for n in 0..=max {
        let path = format::level_path(dir, G::ID, rule, n);
        let replaced = match Table::open(&path, G::ID, rule, n, G::PITS) {
            Ok(t) => {
                set.push(t);
                on_level(&BuildEvent {
                    level: n,
                    skipped: true,
                    replaced: None,
                    report: None,
                });
                continue;
            }
            Err(TableError::Missing { .. }) => None,
            Err(
                e @ (TableError::WrongRule { .. }
                | TableError::WrongGame { .. }
                | TableError::NotRegular { .. }
                | TableError::Io { .. }),
            ) => return Err(e),
            // Truncated, corrupt or of an old format: rebuild it.
            Err(e) => Some(e.to_string()),
        };
        let (lo, hi, report) = build_level::<G>(n, &set, bar)?;
        format::write_level(dir, G::ID, rule, n, &lo, &hi)?;
        drop((lo, hi));
        set.push(Table::open(&path, G::ID, rule, n, G::PITS)?);
        on_level(&BuildEvent {
            level: n,
            skipped: false,
            replaced,
            report: Some(report),
        });
    }
    Ok(set)
}
