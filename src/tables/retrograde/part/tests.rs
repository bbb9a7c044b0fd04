use super::*;

#[test]
fn layouts_cover_the_level_and_owner_inverts_them() {
    for size in [1u64, 7, 100, 1001] {
        for parts in 1..=5 {
            let l = Layout::even(size, parts);
            assert_eq!(l.parts(), parts);
            assert_eq!(l.size(), size);
            for d in 0..parts {
                for r in l.range(d) {
                    assert_eq!(l.owner(r), d, "size {size} parts {parts} r {r}");
                }
            }
            assert_eq!(l.width(), 4);
        }
    }
    assert_eq!(Layout::even(3 << 32, 2).width(), 8);
    assert_eq!(Layout::even(3 << 32, 3).width(), 4);
}

use super::super::cell::{Cell, Cells, Tally};
use super::super::level::{forward_cells, Words};
use super::super::masks::{needs_scan, or_masks, value_masks};
use crate::progress::NoProgress;
use crate::tables::TableSet;
use crate::value::LoopRule;
use crate::{AdjiBoto, Adjito};
use proptest::prelude::*;
use std::sync::atomic::AtomicBool;
use std::sync::OnceLock;

/// The steps of a part one event at a time on one thread, from one
/// stack (the builder before its parts ran on the pool): the reference.
struct Seq<'l> {
    span: Span<'l>,
    out: Vec<Vec<u8>>,
}

impl Seq<'_> {
    fn drain<G: Game>(&mut self, cells: Cells, seeds: &[(u64, u8, i8, i8)], mode: Mode) {
        let (span, out) = (self.span, &mut self.out);
        let (mut stack, mut tally) = (Vec::new(), Tally::default());
        span.events::<G, u64>(seeds, &mut stack);
        while let Some(e) = stack.pop() {
            for_each_pred::<G, u64>(e.board, |r, b| match span.local(cells, r) {
                Some(slot) => {
                    stack.extend(apply(mode, slot, &e, &mut tally).map(|(k, lo, hi)| Ev {
                        board: b,
                        kind: k as u8,
                        lo,
                        hi,
                    }))
                }
                None => {
                    let d = span.layout.owner(r);
                    let off = r - span.layout.starts[d];
                    let (x, y) = remote(mode, &e);
                    out[d].extend_from_slice(&off.to_le_bytes()[..span.width]);
                    out[d].extend_from_slice(&[x as u8, y as u8]);
                }
            });
        }
    }

    fn kahn<G: Game>(&mut self, cells: Cells) {
        let c = cells.cells;
        let seeds: Vec<_> = (0..cells.len())
            .filter(|&i| c[i].clear_flags(PEND_W, Relaxed) & PEND_W != 0)
            .map(|i| {
                (
                    self.span.start + i as u64,
                    W as u8,
                    c[i].value(),
                    c[i].value(),
                )
            })
            .collect();
        self.drain::<G>(cells, &seeds, Mode::Kahn);
    }

    fn scan<G: Game>(&mut self, cells: Cells, t: i32) {
        let (mut seeds, mut tally) = (Vec::new(), Tally::default());
        for i in 0..cells.len() {
            let (w, l) = scan_cell(cells.slot(i), t, false, &mut tally);
            let r = self.span.start + i as u64;
            seeds.extend(w.then_some((r, W as u8, 0, 0)));
            seeds.extend(l.then_some((r, L as u8, 0, 0)));
        }
        self.drain::<G>(cells, &seeds, Mode::Threshold(t));
    }

    fn receive<G: Game>(&mut self, cells: Cells, records: &[u8], mode: Mode) {
        let w = self.span.width;
        let mut got: Vec<(u64, i8, i8)> = records
            .chunks_exact(w + 2)
            .map(|c| {
                let mut off = [0u8; 8];
                off[..w].copy_from_slice(&c[..w]);
                (u64::from_le_bytes(off), c[w] as i8, c[w + 1] as i8)
            })
            .collect();
        got.sort_by_key(|x| x.0);
        let mut tally = Tally::default();
        let new: Vec<_> = got
            .into_iter()
            .filter_map(|(off, x, y)| {
                recv(mode, cells.slot(off as usize), x, y, &mut tally)
                    .map(|(k, lo, hi)| (self.span.start + off, k as u8, lo, hi))
            })
            .collect();
        self.drain::<G>(cells, &new, mode);
    }
}

/// Lower levels `0..n` of `G` (default rules, start loop rule; `n` is
/// 8 for Adjito, 10 for Adji-Boto), built once per test binary.
fn lower<G: Game>(n: u32) -> &'static TableSet {
    type Built = OnceLock<(tempfile::TempDir, TableSet)>;
    static ADJITO: Built = OnceLock::new();
    static BOTO: Built = OnceLock::new();
    let once = if G::RULES == Adjito::RULES {
        &ADJITO
    } else {
        &BOTO
    };
    let (_, set) = once.get_or_init(|| {
        let d = tempfile::tempdir().unwrap();
        let set =
            super::super::build_tables::<G>(d.path(), LoopRule::Start, n - 1, &NoProgress, |_| {});
        (d, set.unwrap())
    });
    assert_eq!(set.covered(), n, "lower levels of level {n}");
    set
}

/// The records of `bufs` as one sorted list: what was sent to a
/// part, whatever the sender and order.
fn sorted(bufs: &[&[u8]], rb: usize) -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = bufs
        .iter()
        .flat_map(|b| b.chunks_exact(rb).map(<[u8]>::to_vec))
        .collect();
    v.sort();
    v
}

/// What the parallel steps' knobs are in one case.
#[derive(Clone, Copy, Debug)]
struct Knobs {
    parts: usize,
    local_max: usize,
    slice: usize,
    flush_at: usize,
    shuffle: u64,
}

/// Position `i`'s state as the values see it: `a`, the counter and flags
/// but [`HP`], and `hi` once in L. Where a position enters W and L at the
/// same threshold (`t = 0`), the order of the two events decides whether
/// `hi` went to the plane ([`HP`]) before `lo` came equal to it, not the
/// bounds.
fn canonical(c: Cells, i: usize) -> (u16, Option<u8>) {
    use super::super::cell::{finished_bounds, HP, IN_L};
    let w = c.cells[i].word();
    let hi = c.plane.map(|p| p[i].load(Relaxed));
    let in_l = (w >> 8) as u8 & IN_L != 0;
    (
        w & !((HP as u16) << 8),
        in_l.then(|| finished_bounds(w, hi).1),
    )
}

/// One level's parts built by the reference (`seq`, cells `ca`) and
/// by the parallel steps (`par`, cells `cb`) side by side.
struct Sim<'a, G: Game> {
    k: Knobs,
    rb: usize,
    ca: Vec<Cells<'a>>,
    cb: Vec<Cells<'a>>,
    seq: Vec<Seq<'a>>,
    par: Vec<Part<'a, G, u64>>,
    /// What the parallel parts' flushes took, by destination.
    flushed: Vec<Vec<u8>>,
    rng: u64,
}

impl<G: Game> Sim<'_, G> {
    /// Checks that the cells are the same and that the same records
    /// were sent to each part, and empties the buffers into inboxes by
    /// destination (the parallel parts' shuffled).
    fn check(&mut self, what: &str) -> Vec<(Vec<u8>, Vec<u8>)> {
        let (parts, rb) = (self.k.parts, self.rb);
        for d in 0..parts {
            let same =
                (0..self.ca[d].len()).all(|i| canonical(self.ca[d], i) == canonical(self.cb[d], i));
            assert!(same, "cells of part {d} after {what} ({:?})", self.k);
        }
        (0..parts)
            .map(|d| {
                let a: Vec<u8> = self
                    .seq
                    .iter_mut()
                    .flat_map(|s| std::mem::take(&mut s.out[d]))
                    .collect();
                let mut b = std::mem::take(&mut self.flushed[d]);
                self.par.iter_mut().for_each(|p| b.append(&mut p.out[d]));
                assert_eq!(
                    sorted(&[&a], rb),
                    sorted(&[&b], rb),
                    "records to part {d} after {what}"
                );
                let mut recs: Vec<&[u8]> = b.chunks_exact(rb).collect();
                for i in (1..recs.len()).rev() {
                    self.rng ^= self.rng << 13;
                    self.rng ^= self.rng >> 7;
                    self.rng ^= self.rng << 17;
                    recs.swap(i, (self.rng % (i as u64 + 1)) as usize);
                }
                let b = recs.concat();
                (a, b)
            })
            .collect()
    }

    /// Exchange rounds under `mode` until nothing is sent, checked
    /// after each.
    fn exchange(&mut self, mode: Mode, what: &str) {
        let mut inbox = self.check(what);
        while inbox.iter().any(|(a, _)| !a.is_empty()) {
            for (d, (a, b)) in inbox.iter().enumerate() {
                self.seq[d].receive::<G>(self.ca[d], a, mode);
                let f = &mut self.flushed;
                self.par[d].receive(self.cb[d], b, mode, &mut |o| {
                    f.iter_mut()
                        .zip(o.iter_mut())
                        .for_each(|(x, y)| x.append(y))
                });
            }
            inbox = self.check(&format!("a round after {what}"));
        }
    }

    /// The acyclic pass and the sweep, checked after every step.
    fn run(&mut self, n: u32) {
        for d in 0..self.k.parts {
            self.seq[d].kahn::<G>(self.ca[d]);
            let f = &mut self.flushed;
            self.par[d].kahn_local(self.cb[d], &mut |o| {
                f.iter_mut()
                    .zip(o.iter_mut())
                    .for_each(|(x, y)| x.append(y))
            });
        }
        self.exchange(Mode::Kahn, "the acyclic pass's seeds");
        let masks: Vec<_> = self
            .ca
            .iter()
            .map(|c| value_masks(&c.cells.iter().map(Cell::word).collect::<Vec<_>>(), n))
            .collect();
        let lo = or_masks(&masks.iter().map(|m| or_masks(&m.0)).collect::<Vec<_>>());
        let hi = or_masks(&masks.iter().map(|m| or_masks(&m.1)).collect::<Vec<_>>());
        let ni = n as i32;
        for t in (-ni..=ni).rev().filter(|&t| needs_scan(&lo, &hi, t, n)) {
            for (d, m) in masks.iter().enumerate() {
                self.seq[d].scan::<G>(self.ca[d], t);
                let f = &mut self.flushed;
                self.par[d].scan_local(self.cb[d], (&m.0, &m.1), t, &mut |o| {
                    f.iter_mut()
                        .zip(o.iter_mut())
                        .for_each(|(x, y)| x.append(y))
                });
            }
            self.exchange(Mode::Threshold(t), &format!("the scan at {t}"));
        }
    }
}

/// Level `n` of `G` split in parts, built by the reference and by the
/// parallel steps (on the current pool, under `k`) side by side, the
/// records of each step exchanged as the distributed driver does (in
/// a shuffled order for the parallel parts): after every step, the
/// cells and the records sent to each part are the same. Returns the
/// parallel parts' jobs, rounds of waiting events and threads.
fn same_steps<G: Game>(n: u32, k: Knobs) -> (u64, u64, u64) {
    let lower = lower::<G>(n);
    let size = crate::index::level_size(n as usize, G::PITS);
    let layout = Layout::even(size, k.parts);
    let forward = |d: usize| {
        let r = layout.range(d);
        let mut w = Words::zeroed((r.end - r.start) as usize, true).unwrap();
        let dirty: Vec<_> = (0..w.len().div_ceil(DIRTY_CHUNK))
            .map(|_| AtomicBool::new(false))
            .collect();
        forward_cells::<G, u64>(&mut w, r.start, n, lower, true, &dirty, &NoProgress);
        w
    };
    let (mut wa, mut wb): (Vec<Words>, Vec<Words>) =
        (0..k.parts).map(|d| (forward(d), forward(d))).unzip();
    let mut sim = Sim::<G> {
        k,
        rb: layout.record_bytes(),
        ca: wa.iter_mut().map(|w| w.cells()).collect(),
        cb: wb.iter_mut().map(|w| w.cells()).collect(),
        seq: (0..k.parts)
            .map(|d| Seq {
                span: Part::<G, u64>::new(n, &layout, d).span,
                out: vec![Vec::new(); k.parts],
            })
            .collect(),
        par: (0..k.parts)
            .map(|d| {
                let mut p = Part::<G, u64>::new(n, &layout, d);
                (p.local_max, p.slice, p.flush_at) = (k.local_max, k.slice, k.flush_at);
                p
            })
            .collect(),
        flushed: vec![Vec::new(); k.parts],
        rng: k.shuffle | 1,
    };
    sim.run(n);
    let sum = |f: fn(&Part<G, u64>) -> u64| sim.par.iter().map(f).sum();
    let threads = sim.par.iter().fold(0, |m, p| m | p.threads);
    (sum(|p| p.jobs), sum(|p| p.spill_rounds), threads)
}

/// The steps run their jobs on more than one of the pool's threads
/// (tried up to 20 times: a loaded machine may leave a thread idle).
#[test]
fn steps_run_on_several_threads() {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    let k = Knobs {
        parts: 2,
        local_max: 4,
        slice: 2,
        flush_at: usize::MAX,
        shuffle: 7,
    };
    let seen = (0..20)
        .map(|_| pool.install(|| same_steps::<AdjiBoto>(10, k).2))
        .find(|m| m.count_ones() > 1);
    assert!(seen.is_some(), "every job ran on one thread");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// The parallel steps, on 3 threads with small stacks, slices and
    /// flush limits, give the reference's cells and records after every
    /// step of Adjito 8 and Adji-Boto 10; they ran in many jobs and
    /// rounds of waiting events.
    #[test]
    fn parallel_steps_equal_the_one_stack_reference(
        boto in any::<bool>(),
        parts in 1usize..=4,
        local_max in 1usize..=8,
        slice in 1usize..=5,
        flush_at in prop_oneof![Just(usize::MAX), 0usize..200],
        shuffle in any::<u64>(),
    ) {
        let k = Knobs { parts, local_max, slice, flush_at, shuffle };
        let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        let (jobs, waits, _) = pool.install(|| match boto {
            false => same_steps::<Adjito>(8, k),
            true => same_steps::<AdjiBoto>(10, k),
        });
        prop_assert!(waits > 0, "events waited beyond stacks of {local_max}");
        prop_assert!(jobs > 8 * parts as u64, "{jobs} jobs");
    }
}
