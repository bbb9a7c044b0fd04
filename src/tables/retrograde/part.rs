//! One part of a level split into contiguous rank ranges: the step
//! functions that the distributed driver ([`super::dist`], one part a
//! rank) and the out-of-core driver ([`super::outofcore`], one part a shard
//! processed in turn) both run.
//!
//! A part holds the cells of its range only. Its steps:
//! - **local work**: the acyclic pass's seeds ([`Part::kahn_local`]) or a
//!   threshold's scan ([`Part::scan_local`]), each followed by the events
//!   it leads to ([`Part::drain`]);
//! - **drain**: processes events depth-first; an update of a predecessor in
//!   another part becomes a record in that part's outgoing buffer
//!   ([`Part::out`]: its offset in the destination part, then two bytes);
//! - **receive**: applies records sent to this part and drains what they
//!   lead to ([`Part::receive`]).
//!
//! Which thresholds to scan is a plain OR (or sum) of per-part value masks
//! ([`or_masks`]). Ranks are `u64` throughout; a record's offset takes
//! [`Layout::width`] bytes (4 while every part has fewer than 2^32
//! positions, else 8).

use std::ops::Range;
use std::sync::atomic::Ordering::Relaxed;

use super::cell::{Cell, PEND_W};
use super::events::{l_event, settle, w_event, Ev, Mode, L, W};
use super::frontier::{Walker, DIRTY_CHUNK};
use super::level::{mask_has, ValueMask};
use super::packed::Word;
use super::preds::for_each_pred;
use super::seeds::scan_cell;
use crate::game::Game;
use crate::tables::prefetch;

/// Events handled together (their predecessors' cells are prefetched first).
const BATCH: usize = 32;
/// Positions whose seeds are collected before their events are drained.
const SLAB: usize = 64 * DIRTY_CHUNK;
/// Received records turned into events at a time.
const RECV_SLAB: usize = 1 << 20;

/// A level's rank range split into contiguous parts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Layout {
    /// `parts + 1` boundaries: part `d` is `starts[d]..starts[d + 1]`.
    starts: Vec<u64>,
}

impl Layout {
    /// `0..size` in `parts` parts whose sizes differ by at most one
    /// ([`crate::distributed::share`]).
    pub(super) fn even(size: u64, parts: usize) -> Layout {
        let parts = parts.max(1) as u128;
        Layout {
            starts: (0..=parts)
                .map(|k| (size as u128 * k / parts) as u64)
                .collect(),
        }
    }

    /// Number of parts.
    pub(super) fn parts(&self) -> usize {
        self.starts.len() - 1
    }

    /// Positions of the level.
    pub(super) fn size(&self) -> u64 {
        *self.starts.last().expect("at least one boundary")
    }

    /// The ranks of part `d`.
    pub(super) fn range(&self, d: usize) -> Range<u64> {
        self.starts[d]..self.starts[d + 1]
    }

    /// The part holding rank `r`.
    #[inline]
    pub(super) fn owner(&self, r: u64) -> usize {
        self.starts.partition_point(|&s| s <= r) - 1
    }

    /// Bytes of a record's offset: 4 while every part has at most 2^32
    /// positions, else 8.
    pub(super) fn width(&self) -> usize {
        let max = (0..self.parts()).map(|d| self.range(d).end - self.range(d).start);
        if max.max().unwrap_or(0) <= 1 << 32 {
            4
        } else {
            8
        }
    }

    /// Bytes of one record: the offset and two bytes.
    pub(super) fn record_bytes(&self) -> usize {
        self.width() + 2
    }
}

/// What happens to the outgoing buffers when they exceed a part's
/// [`Part::flush_at`]: the out-of-core driver moves them to its inboxes.
pub(super) type Flush<'f> = &'f mut dyn FnMut(&mut [Vec<u8>]);

/// One part of a level under construction: its range, its buffers to the
/// other parts, its counts.
pub(super) struct Part<'l, G: Game, W: Word> {
    n: u32,
    layout: &'l Layout,
    start: u64,
    end: u64,
    width: usize,
    /// Outgoing records, by destination part.
    pub(super) out: Vec<Vec<u8>>,
    /// Bytes in [`Self::out`] beyond which a drain calls its flush.
    pub(super) flush_at: usize,
    /// Records sent to other parts.
    pub(super) records_sent: u64,
    /// Bytes of those records.
    pub(super) bytes_sent: u64,
    game: std::marker::PhantomData<(G, W)>,
}

impl<'l, G: Game, W: Word> Part<'l, G, W> {
    /// Part `index` of level `n` split by `layout`.
    pub(super) fn new(n: u32, layout: &'l Layout, index: usize) -> Self {
        let r = layout.range(index);
        Part {
            n,
            layout,
            start: r.start,
            end: r.end,
            width: layout.width(),
            out: vec![Vec::new(); layout.parts()],
            flush_at: usize::MAX,
            records_sent: 0,
            bytes_sent: 0,
            game: std::marker::PhantomData,
        }
    }

    /// Positions of the part.
    pub(super) fn len(&self) -> usize {
        (self.end - self.start) as usize
    }

    /// First global rank of the part.
    pub(super) fn start(&self) -> u64 {
        self.start
    }

    /// Bytes waiting in the outgoing buffers.
    pub(super) fn out_bytes(&self) -> usize {
        self.out.iter().map(Vec::len).sum()
    }

    /// The cell of global rank `r` when it is in the part.
    #[inline]
    fn local<'w>(&self, cells: &'w [Cell], r: u64) -> Option<&'w Cell> {
        (self.start..self.end)
            .contains(&r)
            .then(|| &cells[(r - self.start) as usize])
    }

    /// Appends an update of rank `r` (another part's) to its owner's buffer.
    #[inline]
    fn send(&mut self, r: u64, x: i8, y: i8) {
        let d = self.layout.owner(r);
        let off = r - self.layout.starts[d];
        let b = &mut self.out[d];
        b.extend_from_slice(&off.to_le_bytes()[..self.width]);
        b.extend_from_slice(&[x as u8, y as u8]);
        self.records_sent += 1;
        self.bytes_sent += self.width as u64 + 2;
    }

    /// The events of `seeds` (global ranks, ascending; kind, lo, hi): their
    /// packed boards found by one walk.
    fn events(&self, seeds: &[(u64, u8, i8, i8)]) -> Vec<Ev<W>> {
        let Some(first) = seeds.first() else {
            return Vec::new();
        };
        let mut w = Walker::<G, W>::new(self.n, first.0);
        seeds
            .iter()
            .map(|&(r, kind, lo, hi)| Ev {
                board: w.advance(r),
                kind,
                lo,
                hi,
            })
            .collect()
    }

    /// Processes `stack` and every local event it leads to under `mode`.
    /// Remote predecessors get a record; when the outgoing buffers exceed
    /// [`Self::flush_at`], `flush` takes them. Events are taken in batches
    /// whose local predecessors' cells are prefetched before any is
    /// updated, as in the one-process builder.
    pub(super) fn drain(
        &mut self,
        cells: &[Cell],
        stack: &mut Vec<Ev<W>>,
        mode: Mode,
        flush: Flush,
    ) {
        let (mut batch, mut ps) = (Vec::with_capacity(BATCH), Vec::new());
        while !stack.is_empty() {
            batch.clear();
            batch.extend(stack.drain(stack.len().saturating_sub(BATCH)..));
            ps.clear();
            for (k, e) in batch.iter().enumerate() {
                for_each_pred::<G, W>(e.board, |r, b| {
                    if let Some(cell) = self.local(cells, r) {
                        prefetch(cell);
                    }
                    ps.push((r, b, k));
                });
            }
            for &(r, b, k) in &ps {
                let e = &batch[k];
                match self.local(cells, r) {
                    Some(cell) => stack.extend(apply(mode, cell, e).map(|(kind, lo, hi)| Ev {
                        board: b,
                        kind: kind as u8,
                        lo,
                        hi,
                    })),
                    None => {
                        let (x, y) = remote(mode, e);
                        self.send(r, x, y);
                    }
                }
            }
            if self.out_bytes() > self.flush_at {
                flush(&mut self.out);
            }
        }
    }

    /// The acyclic pass's local work: the positions the forward pass
    /// settled (pending W), slab by slab, and what they lead to.
    pub(super) fn kahn_local(&mut self, cells: &[Cell], flush: Flush) {
        for first in (0..cells.len()).step_by(SLAB) {
            let seeds: Vec<_> = (first..(first + SLAB).min(cells.len()))
                .filter(|&i| cells[i].flags() & PEND_W != 0)
                .map(|i| {
                    let c = &cells[i];
                    c.clear_flags(PEND_W, Relaxed);
                    let (lo, hi) = c.bounds();
                    (self.start + i as u64, W as u8, lo, hi)
                })
                .collect();
            let mut stack = self.events(&seeds);
            self.drain(cells, &mut stack, Mode::Kahn, flush);
        }
    }

    /// The scan at threshold `t` of the chunks whose masks (`lo`, `hi`,
    /// per [`DIRTY_CHUNK`] of the part) hold `t` or `−t`, slab by slab,
    /// and the events its seeds lead to.
    pub(super) fn scan_local(
        &mut self,
        cells: &[Cell],
        (lo, hi): (&[ValueMask], &[ValueMask]),
        t: i32,
        flush: Flush,
    ) {
        let n = self.n as i32;
        let per = SLAB / DIRTY_CHUNK;
        for c0 in (0..lo.len()).step_by(per) {
            let mut seeds = Vec::new();
            for ci in c0..(c0 + per).min(lo.len()) {
                if !mask_has(&lo[ci], t, n) && !mask_has(&hi[ci], -t, n) {
                    continue;
                }
                for i in ci * DIRTY_CHUNK..((ci + 1) * DIRTY_CHUNK).min(cells.len()) {
                    let (w, l) = scan_cell(&cells[i], t);
                    let r = self.start + i as u64;
                    seeds.extend(w.then_some((r, W as u8, 0, 0)));
                    seeds.extend(l.then_some((r, L as u8, 0, 0)));
                }
            }
            let mut stack = self.events(&seeds);
            self.drain(cells, &mut stack, Mode::Threshold(t), flush);
        }
    }

    /// Applies `records` (sent to this part under `mode`) and drains the
    /// events they lead to.
    pub(super) fn receive(&mut self, cells: &[Cell], records: &[u8], mode: Mode, flush: Flush) {
        let rb = self.width + 2;
        debug_assert_eq!(records.len() % rb, 0, "whole records");
        for slab in records.chunks(RECV_SLAB * rb) {
            let mut got: Vec<(u64, i8, i8)> = slab
                .chunks_exact(rb)
                .map(|c| {
                    let mut off = [0u8; 8];
                    off[..self.width].copy_from_slice(&c[..self.width]);
                    let (x, y) = (c[self.width] as i8, c[self.width + 1] as i8);
                    (u64::from_le_bytes(off), x, y)
                })
                .collect();
            got.sort_unstable_by_key(|x| x.0);
            let new: Vec<_> = got
                .into_iter()
                .filter_map(|(off, x, y)| {
                    let cell = cells.get(off as usize).expect("a record for this part");
                    recv(mode, cell, x, y).map(|(k, lo, hi)| (self.start + off, k as u8, lo, hi))
                })
                .collect();
            let mut stack = self.events(&new);
            self.drain(cells, &mut stack, mode, flush);
        }
    }

    /// The level.
    pub(super) fn n(&self) -> u32 {
        self.n
    }
}

/// The OR of the chunk masks `m`: the values some chunk holds.
pub(super) fn or_masks(m: &[ValueMask]) -> ValueMask {
    m.iter()
        .fold([0u64; 4], |x, y| std::array::from_fn(|i| x[i] | y[i]))
}

/// Whether a threshold `t` needs a scan somewhere, given the OR (over all
/// parts) of the `E_lo` and `E_hi` masks of level `n`.
pub(super) fn needs_scan(lo: &ValueMask, hi: &ValueMask, t: i32, n: u32) -> bool {
    mask_has(lo, t, n as i32) || mask_has(hi, -t, n as i32)
}

/// The update of a local predecessor's cell by event `e` under `mode`.
#[inline]
fn apply<W: Word>(mode: Mode, cell: &Cell, e: &Ev<W>) -> Option<(usize, i8, i8)> {
    match mode {
        Mode::Kahn => settle(cell, *e),
        Mode::Threshold(t) => threshold_event(cell, e.kind, t),
    }
}

/// The two bytes of a record for a remote predecessor of `e`: its bounds
/// in the acyclic pass, its kind in the sweep.
#[inline]
fn remote<W: Word>(mode: Mode, e: &Ev<W>) -> (i8, i8) {
    match mode {
        Mode::Kahn => (e.lo, e.hi),
        Mode::Threshold(_) => (e.kind as i8, 0),
    }
}

/// The update of a cell by a received record `(x, y)` under `mode`.
#[inline]
fn recv(mode: Mode, cell: &Cell, x: i8, y: i8) -> Option<(usize, i8, i8)> {
    match mode {
        Mode::Kahn => settle(
            cell,
            Ev {
                board: 0u64,
                kind: W as u8,
                lo: x,
                hi: y,
            },
        ),
        Mode::Threshold(t) => threshold_event(cell, x as u8, t),
    }
}

/// A child of kind `kind` (W or L) entered its set at threshold `t`: the
/// builder's [`w_event`] or [`l_event`] on the predecessor's cell.
#[inline]
fn threshold_event(cell: &Cell, kind: u8, t: i32) -> Option<(usize, i8, i8)> {
    if kind as usize == W {
        w_event(cell, t)
    } else {
        l_event(cell, t)
    }
}

#[cfg(test)]
mod tests {
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
}
