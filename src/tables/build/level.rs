//! One level under construction: the three planes and the passes over them
//! (forward pass, acyclic settling, threshold sweep, finish). The events
//! the last two generate are in [`super::events`].

use std::marker::PhantomData;
use std::sync::atomic::{
    AtomicBool, AtomicI8, AtomicU8,
    Ordering::{AcqRel, Relaxed},
};
use std::time::Instant;

use rayon::prelude::*;

use super::events::{kahn_event, l_event, w_event, Planes, Scratch};
use super::frontier::{for_each_board, pack, Frontier, Sink, DIRTY_CHUNK};
use super::{LevelReport, CNT, IN_L, IN_W, NONE, PEND_L, PEND_W};
use crate::game::{for_each_step, Game, Position, Step, MAX_PITS};
use crate::index::{boards, rank};
use crate::progress::Progress;
use crate::tables::TableSet;
use crate::value::{capture_value, NEG_INF_BYTE, POS_INF_BYTE};

/// Positions per forward-pass batch: the capture lookups of a whole batch
/// are located and prefetched before any is read.
const FWD_BATCH: usize = 32;

/// One level under construction.
///
/// `a` holds `E_lo` (the best exit, raised by settled quiet children's
/// `−hi`), later `lo`; `c` holds `E_hi` (raised by their `−lo`), later `hi`;
/// `b` the count of unsettled quiet moves and the flags.
pub(super) struct LevelBuild<'a, G: Game> {
    n: u32,
    size: usize,
    lower: &'a TableSet,
    cap: usize,
    a: Vec<u8>,
    b: Vec<u8>,
    c: Vec<u8>,
    dirty_w: Vec<AtomicBool>,
    dirty_l: Vec<AtomicBool>,
    pub(super) report: LevelReport,
    game: PhantomData<G>,
}

/// Which exit values occur among the unsettled positions of a chunk, as
/// bit sets indexed by `value + n` (for `E_lo` and for `E_hi`).
type ValueMask = [u64; 4];

fn mask_has(m: &ValueMask, v: i32, n: i32) -> bool {
    let k = v + n;
    (0..256).contains(&k) && m[k as usize / 64] >> (k % 64) & 1 != 0
}

impl<'a, G: Game> LevelBuild<'a, G> {
    pub(super) fn new(n: u32, size: usize, lower: &'a TableSet, cap: usize) -> Self {
        let chunks = size.div_ceil(DIRTY_CHUNK);
        LevelBuild {
            n,
            size,
            lower,
            cap,
            a: vec![0u8; size],
            b: vec![0u8; size],
            c: vec![0u8; size],
            dirty_w: (0..chunks).map(|_| AtomicBool::new(false)).collect(),
            dirty_l: (0..chunks).map(|_| AtomicBool::new(false)).collect(),
            report: LevelReport {
                level: n,
                positions: size as u64,
                ..Default::default()
            },
            game: PhantomData,
        }
    }

    /// Forward pass: `E` into `a` and `c`, the quiet-move count into `b`.
    /// A position without quiet moves is settled (`lo = hi = E`) and
    /// returned as a seed of the acyclic pass.
    pub(super) fn forward(&mut self, bar: &dyn Progress) -> Frontier {
        bar.message(&format!("level {}: forward pass", self.n));
        let (n, lower) = (self.n, self.lower);
        let sink = Sink::new(self.cap, &self.dirty_w, PEND_W);
        let lists: Vec<Vec<u64>> = self
            .a
            .par_chunks_mut(DIRTY_CHUNK)
            .zip(self.b.par_chunks_mut(DIRTY_CHUNK))
            .zip(self.c.par_chunks_mut(DIRTY_CHUNK))
            .enumerate()
            .map(|(ci, ((ac, bc), cc))| {
                let start = (ci * DIRTY_CHUNK) as u64;
                let mut out = Vec::new();
                let mut prod = sink.producer();
                let mut it = boards(start..start + ac.len() as u64, n as usize, G::PITS);
                let mut batch = [[0u8; MAX_PITS]; FWD_BATCH];
                let mut k0 = 0;
                while k0 < ac.len() {
                    let m = FWD_BATCH.min(ac.len() - k0);
                    for slot in batch.iter_mut().take(m) {
                        *slot = it.next().expect("chunk within the level").1;
                    }
                    for (j, (e, cnt)) in
                        exits_batch::<G>(&batch[..m], lower).into_iter().enumerate()
                    {
                        let k = k0 + j;
                        (ac[k], cc[k], bc[k]) = (e as u8, e as u8, cnt);
                        if cnt == 0 {
                            bc[k] = IN_W | IN_L;
                            if prod.room() {
                                out.push(pack::<G>(&batch[j]));
                            } else {
                                bc[k] |= PEND_W;
                                prod.mark(ci * DIRTY_CHUNK + k);
                            }
                        }
                    }
                    k0 += m;
                }
                bar.inc(ac.len() as u64);
                out
            })
            .collect();
        sink.frontier(lists)
    }

    fn planes(&mut self) -> Planes<'_> {
        Planes {
            a: atomic_i8(&mut self.a),
            b: atomic_u8(&mut self.b),
            c: atomic_i8(&mut self.c),
        }
    }

    /// Acyclic pass (Kahn's algorithm): a settled position raises its quiet
    /// predecessors' `E_lo`/`E_hi` and decrements their counters; a counter
    /// reaching 0 settles that predecessor. Positions that cannot reach a
    /// quiet cycle are settled here with one event each.
    pub(super) fn kahn(&mut self, seeds: Frontier, bar: &dyn Progress) {
        bar.message(&format!("level {}: acyclic pass", self.n));
        let (n, cap) = (self.n, self.cap);
        let mut report = std::mem::take(&mut self.report);
        let dirty = std::mem::take(&mut self.dirty_w);
        let p = self.planes();
        let mut front = seeds;
        while !front.is_empty() {
            report.max_frontier = report.max_frontier.max(front.len() as u64);
            report.spills += front.spilled as u32;
            report.kahn_settled += front.len() as u64;
            let sink = Sink::new(cap, &dirty, PEND_W);
            front = round::<G, _>(&p, n, &front, PEND_W, &dirty, &sink, &|xs, s, out| {
                kahn_event::<G>(&p, xs, &sink, s, out)
            });
        }
        self.dirty_w = dirty;
        self.report = report;
    }

    /// The value masks of every chunk (unsettled positions only).
    fn masks(&self) -> (Vec<ValueMask>, Vec<ValueMask>) {
        let n = self.n as i32;
        self.a
            .par_chunks(DIRTY_CHUNK)
            .zip(self.b.par_chunks(DIRTY_CHUNK))
            .zip(self.c.par_chunks(DIRTY_CHUNK))
            .map(|((ac, bc), cc)| {
                let (mut ml, mut mh) = ([0u64; 4], [0u64; 4]);
                for k in 0..ac.len() {
                    if bc[k] & (IN_W | IN_L) == IN_W | IN_L {
                        continue;
                    }
                    for (m, v) in [(&mut ml, ac[k] as i8), (&mut mh, cc[k] as i8)] {
                        if v != NONE {
                            let i = (v as i32 + n) as usize;
                            m[i / 64] |= 1 << (i % 64);
                        }
                    }
                }
                (ml, mh)
            })
            .unzip()
    }

    /// Threshold sweep `t = n … −n` over the positions the acyclic pass
    /// left (see the module comment of [`super`]).
    pub(super) fn sweep(&mut self, bar: &dyn Progress) {
        let (n, size, cap) = (self.n, self.size, self.cap);
        let (mask_lo, mask_hi) = self.masks();
        let all = |m: &[ValueMask]| {
            m.iter()
                .fold([0u64; 4], |x, y| std::array::from_fn(|i| x[i] | y[i]))
        };
        let (any_lo, any_hi) = (all(&mask_lo), all(&mask_hi));
        let mut report = std::mem::take(&mut self.report);
        let (dw, dl) = (
            std::mem::take(&mut self.dirty_w),
            std::mem::take(&mut self.dirty_l),
        );
        let p = self.planes();
        let ni = n as i32;
        for t in (-ni..=ni).rev() {
            if !mask_has(&any_lo, t, ni) && !mask_has(&any_hi, -t, ni) {
                continue;
            }
            report.scans += 1;
            bar.message(&format!("level {n}: threshold {t:+}"));
            let ts = Instant::now();
            let (sw, sl) = (Sink::new(cap, &dw, PEND_W), Sink::new(cap, &dl, PEND_L));
            let (w, l) = scan::<G>(&p, n, size, t, (&mask_lo, &mask_hi), (&sw, &sl));
            report.scan_secs += ts.elapsed().as_secs_f64();
            let (mut w, mut l) = (sw.frontier(w), sl.frontier(l));
            while !w.is_empty() || !l.is_empty() {
                report.max_frontier = report.max_frontier.max((w.len() + l.len()) as u64);
                report.spills += (w.spilled || l.spilled) as u32;
                // A new W position decrements its predecessors' counters; a
                // counter reaching 0 with E_hi ≤ −t puts that predecessor in L.
                let s = Sink::new(cap, &dl, PEND_L);
                let more = round::<G, _>(&p, n, &w, PEND_W, &dw, &s, &|xs, sc, out| {
                    w_event::<G>(&p, xs, t, &s, sc, out)
                });
                l.lists.extend(more.lists);
                l.spilled |= more.spilled;
                // A new L position puts its predecessors in W.
                let s = Sink::new(cap, &dw, PEND_W);
                w = round::<G, _>(&p, n, &l, PEND_L, &dl, &s, &|xs, sc, out| {
                    l_event::<G>(&p, xs, t, &s, sc, out)
                });
                l = Frontier::default();
            }
        }
        (self.dirty_w, self.dirty_l) = (dw, dl);
        self.report = report;
    }

    /// Finish: positions never in W get `lo = −∞`, never in L `hi = +∞`.
    /// Returns the lo and hi planes.
    pub(super) fn finish(mut self) -> (Vec<u8>, Vec<u8>, LevelReport) {
        self.a
            .par_chunks_mut(DIRTY_CHUNK)
            .zip(self.b.par_chunks(DIRTY_CHUNK))
            .zip(self.c.par_chunks_mut(DIRTY_CHUNK))
            .for_each(|((ac, bc), cc)| {
                for k in 0..ac.len() {
                    if bc[k] & IN_W == 0 {
                        ac[k] = NEG_INF_BYTE as u8;
                    }
                    if bc[k] & IN_L == 0 {
                        cc[k] = POS_INF_BYTE as u8;
                    }
                }
            });
        (self.a, self.c, self.report)
    }
}

/// One round over a frontier: `f` runs on every list in parallel slices,
/// then, if the frontier spilled, on the positions of dirty chunks that
/// carry `bit` (cleared as they are taken). Returns what `f` pushed into
/// `sink`.
fn round<G: Game, F>(
    p: &Planes,
    n: u32,
    input: &Frontier,
    bit: u8,
    dirty: &[AtomicBool],
    sink: &Sink,
    f: &F,
) -> Frontier
where
    F: Fn(&[u64], &mut Scratch, &mut Vec<u64>) + Sync,
{
    let run = |xs: &[u64]| {
        let mut out = Vec::new();
        f(xs, &mut Scratch::default(), &mut out);
        out
    };
    let mut lists: Vec<Vec<u64>> = input
        .lists
        .par_iter()
        .flat_map(|l| l.par_chunks(4096))
        .map(run)
        .collect();
    if input.spilled {
        let size = p.b.len();
        lists.extend(
            (0..dirty.len())
                .into_par_iter()
                .filter(|&ci| dirty[ci].swap(false, Relaxed))
                .map(|ci| {
                    let ranks: Vec<u32> = (ci * DIRTY_CHUNK..((ci + 1) * DIRTY_CHUNK).min(size))
                        .filter(|&i| {
                            p.b[i].load(Relaxed) & bit != 0
                                && p.b[i].fetch_and(!bit, AcqRel) & bit != 0
                        })
                        .map(|i| i as u32)
                        .collect();
                    let mut xs = Vec::with_capacity(ranks.len());
                    for_each_board::<G>(&ranks, n, |_, b| xs.push(pack::<G>(b)));
                    run(&xs)
                })
                .collect::<Vec<_>>(),
        );
    }
    sink.frontier(lists)
}

/// The scan at threshold `t` over the chunks whose masks hold `t` (for
/// `E_lo`) or `−t` (for `E_hi`): unsettled positions with `E_lo = t` enter
/// W, those with `E_hi = −t` and no quiet move left outside W enter L.
fn scan<G: Game>(
    p: &Planes,
    n: u32,
    size: usize,
    t: i32,
    (mask_lo, mask_hi): (&[ValueMask], &[ValueMask]),
    (sw, sl): (&Sink, &Sink),
) -> (Vec<Vec<u64>>, Vec<Vec<u64>>) {
    let ni = n as i32;
    (0..size.div_ceil(DIRTY_CHUNK))
        .into_par_iter()
        .filter(|&ci| mask_has(&mask_lo[ci], t, ni) || mask_has(&mask_hi[ci], -t, ni))
        .map(|ci| {
            let (mut wr, mut lr) = (Vec::new(), Vec::new());
            for i in ci * DIRTY_CHUNK..((ci + 1) * DIRTY_CHUNK).min(size) {
                let f = p.b[i].load(Relaxed);
                if f & (IN_W | IN_L) == IN_W | IN_L {
                    continue;
                }
                if f & IN_W == 0 && p.a[i].load(Relaxed) as i32 == t && p.w_trans(i, t) {
                    wr.push(i as u32);
                }
                if f & (IN_L | CNT) == 0 && p.c[i].load(Relaxed) as i32 == -t {
                    p.l_trans(i, t);
                    lr.push(i as u32);
                }
            }
            let lists = [(wr, sw), (lr, sl)].map(|(ranks, sink)| {
                let (mut out, mut prod) = (Vec::new(), sink.producer());
                for_each_board::<G>(&ranks, n, |r, b| {
                    prod.push(&mut out, p.b, r as usize, pack::<G>(b))
                });
                out
            });
            let [w, l] = lists;
            (w, l)
        })
        .unzip()
}

/// `(E, quiet-move count)` of each position of `batch`; `E` is [`NONE`]
/// when it has no exit. The lower-level entries of all capture children of
/// the batch are located and prefetched first, then read, so their cache
/// misses overlap.
fn exits_batch<G: Game>(batch: &[[u8; MAX_PITS]], lower: &TableSet) -> Vec<(i8, u8)> {
    let mut caps: Vec<(usize, u8, u32, usize, i32)> = Vec::with_capacity(batch.len() * 3);
    let mut out = Vec::with_capacity(batch.len());
    for (j, b) in batch.iter().enumerate() {
        let pos = Position {
            pits: *b,
            side: 0,
            opening: 0,
        };
        let mut cnt = 0u8;
        let any = for_each_step::<G>(&pos, |s| match s {
            Step::Capture {
                pos: c, captured, ..
            } => {
                let level = c.level();
                let idx = rank(&c.pits, G::PITS) as usize;
                if let Some(t) = lower.level(level) {
                    t.prefetch(idx);
                }
                caps.push((j, captured, level, idx, lower.rule.w::<G>(&c)));
            }
            Step::Quiet { .. } => cnt += 1,
        });
        out.push((if any { i32::MIN } else { G::split(&pos) }, cnt));
    }
    for (j, captured, level, idx, w) in caps {
        let t = lower
            .level(level)
            .expect("lower level present (checked by build_level)");
        out[j].0 = out[j].0.max(capture_value(captured, t.value(idx, w)));
    }
    out.into_iter()
        .map(|(e, cnt)| (if e == i32::MIN { NONE } else { e as i8 }, cnt))
        .collect()
}

fn atomic_u8(v: &mut [u8]) -> &[AtomicU8] {
    // SAFETY: AtomicU8 has the same size and alignment as u8, and the
    // exclusive borrow guarantees no other access for the returned lifetime.
    unsafe { &*(v as *mut [u8] as *const [AtomicU8]) }
}

fn atomic_i8(v: &mut [u8]) -> &[AtomicI8] {
    // SAFETY: AtomicI8 has the same size and alignment as u8 (any bit
    // pattern is valid), and the exclusive borrow guarantees no other access.
    unsafe { &*(v as *mut [u8] as *const [AtomicI8]) }
}
