//! The events that change the state of a level under construction
//! ([`Cells`]): what a settled or newly classified position does to its
//! quiet predecessors.
//!
//! Events are processed in batches: all predecessors of a batch are
//! generated, ranked and prefetched first, then updated a batch later, so
//! that their cache misses overlap each other and the next batch's
//! generation. A worker handles the events it creates itself,
//! depth-first from a local stack of up to [`LOCAL_MAX`] entries; beyond
//! that they go to the next round's frontier. The order in which events
//! are processed never changes the result: the acyclic pass computes exact
//! bounds, and within one threshold W and L are closures.

use super::cell::{cell_fields, Cell, Cells, Slot, Tally, CNT, IN_L, IN_W, NONE};
use super::frontier::Producer;
use super::preds::for_each_pred;
use crate::game::Game;
use crate::games::packed::{rot, Word};
use crate::tables::walk::prefetch;

/// Events handled together (their predecessors are prefetched as a group).
const BATCH: usize = 32;
/// Largest local stack of a worker; beyond it, events go to the frontier.
pub(super) const LOCAL_MAX: usize = 1 << 12;

/// What the events of a pass mean.
#[derive(Clone, Copy)]
pub(super) enum Mode {
    /// Acyclic pass: an event is a settled position.
    Kahn,
    /// Sweep at threshold `t`: an event is a new W or L position.
    Threshold(i32),
}

/// Kind index of W events (and of acyclic-pass events).
pub(super) const W: usize = 0;
/// Kind index of L events.
pub(super) const L: usize = 1;

/// One event: a position (packed board), its kind, and for the acyclic
/// pass its bounds.
#[derive(Clone, Copy)]
pub(super) struct Ev<W: Word> {
    pub(super) board: W,
    pub(super) kind: u8,
    pub(super) lo: i8,
    pub(super) hi: i8,
}

/// The event of position `board` (rank `r`) of kind `kind`; in the
/// acyclic pass its bounds are read from its (settled) cell.
pub(super) fn event<W: Word>(cells: Cells, r: usize, board: W, kind: usize) -> Ev<W> {
    // A settled position of the acyclic pass has `lo = hi` (the module
    // comment of [`super::cell`]).
    let v = cells.cells[r].value();
    Ev {
        board,
        kind: kind as u8,
        lo: v,
        hi: v,
    }
}

/// One quiet predecessor of an event's position. Its rank (below 2^40,
/// [`super::plan::MAX_POSITIONS`]) is split into a low word and a high byte, so
/// that a predecessor of a 64-bit board takes 16 bytes, as with 32-bit
/// ranks.
#[derive(Clone, Copy)]
struct Pred<W: Word> {
    rank_lo: u32,
    rank_hi: u8,
    board: W,
    ev: u8,
}

impl<W: Word> Pred<W> {
    /// The predecessor of rank `r`, board `board`, of event `ev`.
    #[inline]
    fn new(r: u64, board: W, ev: u8) -> Self {
        debug_assert!(
            r < super::plan::MAX_POSITIONS,
            "rank {r} beyond the builder"
        );
        Pred {
            rank_lo: r as u32,
            rank_hi: (r >> 32) as u8,
            board,
            ev,
        }
    }

    /// Its rank.
    #[inline]
    fn rank(&self) -> usize {
        (self.rank_hi as usize) << 32 | self.rank_lo as usize
    }
}

/// A worker's event processor: the cells, the mode, its local stack and
/// its producers into the round's frontier (one per kind).
pub(super) struct Worker<'p, 's, 'a, G: Game, W: Word> {
    cells: Cells<'p>,
    /// What the worker saw of the fast mode's positions.
    pub(super) tally: Tally,
    mode: Mode,
    stack: Vec<Ev<W>>,
    local_max: usize,
    batch: [Vec<Ev<W>>; 2],
    preds: [Vec<Pred<W>>; 2],
    /// Producers into the frontier, by kind.
    pub(super) out: [Producer<'s, 'a>; 2],
    /// Lists produced, by kind (boards in [`rot`] form).
    pub(super) lists: [Vec<W>; 2],
    game: std::marker::PhantomData<G>,
}

impl<'p, 's, 'a, G: Game, W: Word> Worker<'p, 's, 'a, G, W> {
    /// A worker on the cells of a level whose local stack holds up to
    /// `local_max` events.
    pub(super) fn new(
        cells: Cells<'p>,
        mode: Mode,
        out: [Producer<'s, 'a>; 2],
        local_max: usize,
    ) -> Self {
        Worker {
            cells,
            tally: Tally::default(),
            mode,
            stack: Vec::new(),
            local_max,
            batch: [Vec::with_capacity(BATCH), Vec::with_capacity(BATCH)],
            preds: [Vec::with_capacity(BATCH * 6), Vec::with_capacity(BATCH * 6)],
            out,
            lists: [Vec::new(), Vec::new()],
            game: std::marker::PhantomData,
        }
    }

    /// Processes `seeds` and every event they lead to, depth-first. Two
    /// batches are in flight: the predecessors of one are generated and
    /// prefetched while the other's, prefetched a batch earlier, are
    /// updated, so that the cache misses overlap the generation.
    pub(super) fn run(&mut self, seeds: impl IntoIterator<Item = Ev<W>>) {
        let mut seeds = seeds.into_iter();
        // Invariant: batch 1 and its predecessors are empty here (apply
        // empties batch 0, which then changes places with it).
        loop {
            while self.batch[1].len() < BATCH {
                match self.stack.pop().or_else(|| seeds.next()) {
                    Some(e) => self.batch[1].push(e),
                    None => break,
                }
            }
            if self.batch[0].is_empty() && self.batch[1].is_empty() {
                return;
            }
            self.gather();
            self.apply();
            self.batch.swap(0, 1);
            self.preds.swap(0, 1);
        }
    }

    /// The quiet predecessors of the incoming batch, each ranked and
    /// prefetched.
    fn gather(&mut self) {
        let preds = &mut self.preds[1];
        for (k, e) in self.batch[1].iter().enumerate() {
            for_each_pred::<G, W>(e.board, |r, board| {
                prefetch(&self.cells.cells[r as usize]);
                preds.push(Pred::new(r, board, k as u8));
            });
        }
    }

    /// Updates the predecessors of the outgoing batch.
    fn apply(&mut self) {
        for j in 0..self.preds[0].len() {
            let q = self.preds[0][j];
            let e = self.batch[0][q.ev as usize];
            let slot = self.cells.slot(q.rank());
            let new = match self.mode {
                Mode::Kahn => settle(slot.cell, e),
                Mode::Threshold(t) if e.kind as usize == W => w_event(slot, t, &mut self.tally),
                Mode::Threshold(t) => l_event(slot, t, &mut self.tally),
            };
            if let Some((kind, lo, hi)) = new {
                self.emit(q.rank(), q.board, kind, lo, hi);
            }
        }
        self.preds[0].clear();
        self.batch[0].clear();
    }

    /// A new event: onto the local stack, or into the frontier when the
    /// stack is full.
    fn emit(&mut self, r: usize, board: W, kind: usize, lo: i8, hi: i8) {
        if self.stack.len() < self.local_max {
            self.stack.push(Ev {
                board,
                kind: kind as u8,
                lo,
                hi,
            });
        } else {
            let cell = &self.cells.cells[r];
            self.out[kind].push(&mut self.lists[kind], cell, r, rot::<G, W>(board));
        }
    }
}

/// Acyclic pass: the predecessor's exit rises to `−value` of the settled
/// child (whose `lo = hi`), its counter falls; the event taking it to 0
/// settles it (all in one atomic update, so the settling event sees every
/// raise).
#[inline]
pub(super) fn settle<W: Word>(cell: &Cell, e: Ev<W>) -> Option<(usize, i8, i8)> {
    debug_assert_eq!(e.lo, e.hi, "a position settled in the acyclic pass");
    let v = e.lo.wrapping_neg();
    let prev = cell.update(|a, b| {
        debug_assert!(b & CNT > 0);
        let b = b - 1;
        let b = if b & CNT == 0 { b | IN_W | IN_L } else { b };
        Some((a.max(v), b))
    })?;
    let (a, b) = cell_fields(prev);
    (b & CNT == 1).then_some((W, a.max(v), a.max(v)))
}

/// A child entered W at `t`: the counter falls; reaching 0 with `a ≤ −t`
/// puts the predecessor in L (`a` is its exit, or its `lo` if it is in W:
/// the same test, the module comment of [`super::cell`]).
#[inline]
pub(super) fn w_event(slot: Slot, t: i32, tally: &mut Tally) -> Option<(usize, i8, i8)> {
    let prev = slot.cell.decrement();
    let (e, b) = cell_fields(prev);
    debug_assert!(b & CNT > 0);
    if b & CNT != 1 || b & IN_L != 0 {
        return None;
    }
    ((e == NONE || e as i32 <= -t) && slot.l_trans(t, tally)).then_some((L, 0, 0))
}

/// A child entered L at `t`: the predecessor enters W.
#[inline]
pub(super) fn l_event(slot: Slot, t: i32, tally: &mut Tally) -> Option<(usize, i8, i8)> {
    (slot.cell.flags() & IN_W == 0 && slot.w_trans(t, tally)).then_some((W, 0, 0))
}

#[cfg(test)]
mod tests {
    use super::Pred;

    /// A predecessor keeps ranks of 40 bits, in the 16 bytes of a 32-bit
    /// rank's.
    #[test]
    fn predecessors_hold_ranks_of_40_bits() {
        for r in [0, 1, u32::MAX as u64, 1 << 32, 4_431_613_549, (1 << 40) - 1] {
            assert_eq!(Pred::new(r, 7u64, 3).rank() as u64, r);
        }
        assert_eq!(std::mem::size_of::<Pred<u64>>(), 16);
    }
}
