//! What a settled or newly classified position does to its quiet
//! predecessors: the builder's events. Each handles a slice of packed
//! boards in batches: all predecessors of a batch are generated, ranked and
//! prefetched first, then updated, so that their cache misses overlap.

use std::sync::atomic::{
    AtomicI8, AtomicU8,
    Ordering::{AcqRel, Relaxed},
};

use super::frontier::{pack, unpack, Sink};
use super::{CNT, IN_L, IN_W, NONE};
use crate::game::{Game, Position};
use crate::index::rank;
use crate::tables::prefetch;

/// Boards handled together (their predecessors are prefetched as a group).
const BATCH: usize = 64;

/// The planes of a level under construction, as atomics.
pub(super) struct Planes<'p> {
    /// `E_lo`, later `lo`.
    pub(super) a: &'p [AtomicI8],
    /// Counter and flags.
    pub(super) b: &'p [AtomicU8],
    /// `E_hi`, later `hi`.
    pub(super) c: &'p [AtomicI8],
}

impl Planes<'_> {
    /// Puts `i` in W at threshold `t` (`lo = t`); false if it already was.
    #[inline]
    pub(super) fn w_trans(&self, i: usize, t: i32) -> bool {
        if self.b[i].fetch_or(IN_W, Relaxed) & IN_W != 0 {
            return false;
        }
        self.a[i].store(t as i8, Relaxed);
        true
    }

    /// Puts `i` in L at threshold `t` (`hi = −t`); its caller won the
    /// transition (the scan, or the event that took its counter to 0).
    #[inline]
    pub(super) fn l_trans(&self, i: usize, t: i32) {
        let prev = self.b[i].fetch_or(IN_L, Relaxed);
        debug_assert!(prev & IN_L == 0);
        self.c[i].store((-t) as i8, Relaxed);
    }
}

/// One quiet predecessor: its rank and packed board, and what the event
/// hands it (the negated bounds of the child, for the acyclic pass).
#[derive(Clone, Copy)]
struct Pred {
    rank: u32,
    board: u64,
    neg_hi: i8,
    neg_lo: i8,
}

/// Buffers an event handler reuses.
#[derive(Default)]
pub(super) struct Scratch {
    preds: Vec<Pred>,
}

/// Fills `s.preds` with the quiet predecessors of the boards `xs`, each
/// handed `bounds(x)` and its flags prefetched.
fn gather<G: Game>(
    p: &Planes,
    xs: &[u64],
    s: &mut Scratch,
    bounds: impl Fn(&Position) -> (i8, i8),
) {
    s.preds.clear();
    for &x in xs {
        let pos = Position {
            pits: unpack::<G>(x),
            side: 0,
            opening: 0,
        };
        let (neg_hi, neg_lo) = bounds(&pos);
        G::for_each_quiet_predecessor(&pos, |q| {
            let r = rank(&q.pits, G::PITS) as usize;
            prefetch(&p.b[r]);
            s.preds.push(Pred {
                rank: r as u32,
                board: pack::<G>(&q.pits),
                neg_hi,
                neg_lo,
            });
        });
    }
}

/// Settled positions (acyclic pass): each predecessor's `E_lo` rises to
/// `−hi`, its `E_hi` to `−lo`, and its counter falls; the event that takes
/// a counter to 0 settles that predecessor (`lo = E_lo`, `hi = E_hi`).
pub(super) fn kahn_event<G: Game>(
    p: &Planes,
    xs: &[u64],
    sink: &Sink,
    s: &mut Scratch,
    out: &mut Vec<u64>,
) {
    let mut prod = sink.producer();
    for ch in xs.chunks(BATCH) {
        gather::<G>(p, ch, s, |pos| {
            let r = rank(&pos.pits, G::PITS) as usize;
            let (lo, hi) = (p.a[r].load(Relaxed), p.c[r].load(Relaxed));
            (hi.wrapping_neg(), lo.wrapping_neg())
        });
        for q in &s.preds {
            let i = q.rank as usize;
            p.a[i].fetch_max(q.neg_hi, Relaxed);
            p.c[i].fetch_max(q.neg_lo, Relaxed);
            // AcqRel: the event taking the counter to 0 sees every raise.
            let prev = p.b[i].fetch_sub(1, AcqRel);
            debug_assert!(prev & CNT > 0);
            if prev & CNT == 1 {
                p.b[i].fetch_or(IN_W | IN_L, Relaxed);
                prod.push(out, p.b, i, q.board);
            }
        }
    }
}

/// New W positions at threshold `t`: each predecessor's counter falls; a
/// counter reaching 0 with `E_hi ≤ −t` puts that predecessor in L.
pub(super) fn w_event<G: Game>(
    p: &Planes,
    xs: &[u64],
    t: i32,
    sink: &Sink,
    s: &mut Scratch,
    out: &mut Vec<u64>,
) {
    let mut prod = sink.producer();
    for ch in xs.chunks(BATCH) {
        gather::<G>(p, ch, s, |_| (0, 0));
        for q in &s.preds {
            let i = q.rank as usize;
            let prev = p.b[i].fetch_sub(1, Relaxed);
            debug_assert!(prev & CNT > 0);
            if prev & CNT == 1 && prev & IN_L == 0 {
                let e = p.c[i].load(Relaxed);
                if e == NONE || e as i32 <= -t {
                    p.l_trans(i, t);
                    prod.push(out, p.b, i, q.board);
                }
            }
        }
    }
}

/// New L positions at threshold `t`: every predecessor enters W (`lo = t`).
pub(super) fn l_event<G: Game>(
    p: &Planes,
    xs: &[u64],
    t: i32,
    sink: &Sink,
    s: &mut Scratch,
    out: &mut Vec<u64>,
) {
    let mut prod = sink.producer();
    for ch in xs.chunks(BATCH) {
        gather::<G>(p, ch, s, |_| (0, 0));
        for q in &s.preds {
            let i = q.rank as usize;
            if p.b[i].load(Relaxed) & IN_W == 0 && p.w_trans(i, t) {
                prod.push(out, p.b, i, q.board);
            }
        }
    }
}
