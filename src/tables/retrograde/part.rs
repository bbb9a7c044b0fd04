//! One part of a level split into contiguous rank ranges: the step
//! functions that the distributed driver ([`super::dist`], one part a
//! rank) and the out-of-core driver ([`super::outofcore`], one part a shard
//! processed in turn) both run.
//!
//! A part holds the cells of its range only. Its steps:
//! - **local work**: the acyclic pass's seeds ([`Part::kahn_local`]) or a
//!   threshold's scan ([`Part::scan_local`]), and the events they lead to;
//! - **receive**: applies records sent to this part and processes the
//!   events they lead to ([`Part::receive`]).
//!
//! Every step runs on the current rayon pool (the caller's `--threads`),
//! as the one-process builder's rounds do ([`super::level`]): its seeds
//! (a chunk of [`DIRTY_CHUNK`] positions, or a slice of the received
//! records) are split into jobs; a worker processes a job's events and
//! every local event they lead to depth-first from its own stack of up to
//! [`LOCAL_MAX`] events, in prefetched batches, with the builder's atomic
//! cell updates ([`settle`], [`w_event`], [`l_event`]); events beyond its
//! stack wait for the next round of the step, whose jobs are slices of
//! them. An update of a predecessor in another part becomes a record in
//! the worker's own buffer for that part (its offset in the destination
//! part, then two bytes); the workers' buffers are appended to
//! [`Part::out`] after each round. The values do not depend on the order
//! of events (the module comment of [`super`]), so neither the cells nor
//! the records sent depend on the thread count (only the records' order
//! in a buffer does).
//!
//! Which thresholds to scan is a plain OR (or sum) of per-part value masks
//! ([`or_masks`]). Ranks are `u64` throughout; a record's offset takes
//! [`Layout::width`] bytes (4 while every part has fewer than 2^32
//! positions, else 8).

use std::ops::Range;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Mutex;

use rayon::prelude::*;

use super::cell::{Cells, Slot, Tally, PEND_W};
use super::events::{l_event, settle, w_event, Ev, Mode, L, LOCAL_MAX, W};
use super::frontier::{Walker, DIRTY_CHUNK};
use super::masks::{mask_has, ValueMask};
use super::preds::for_each_pred;
use super::seeds::scan_cell;
use crate::game::Game;
use crate::games::packed::Word;
use crate::tables::walk::prefetch;

/// Events handled together (their predecessors' cells are prefetched first).
const BATCH: usize = 32;
/// Positions whose seeds are processed in one step (its jobs are their
/// chunks of [`DIRTY_CHUNK`]) before the next positions' are collected.
const SLAB: usize = 64 * DIRTY_CHUNK;
/// Received records turned into events at a time.
const RECV_SLAB: usize = 1 << 20;
/// Received records of one job.
const RECV_JOB: usize = 1 << 12;
/// Waiting events a job takes in the rounds after the first, as the
/// one-process builder's workers take frontier entries.
const SLICE: usize = 1 << 10;

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

/// What happens to outgoing buffers that exceed a part's
/// [`Part::flush_at`]: the out-of-core driver moves them to its inboxes.
/// Workers call it in turn (under a lock), so it must be `Send`.
pub(super) type Flush<'f> = &'f mut (dyn FnMut(&mut [Vec<u8>]) + Send);

/// Where a part lies in its level: what a worker needs to tell local
/// predecessors from remote ones and to write records.
#[derive(Clone, Copy)]
struct Span<'l> {
    n: u32,
    layout: &'l Layout,
    start: u64,
    end: u64,
    width: usize,
}

impl<'l> Span<'l> {
    /// The state of global rank `r` when it is in the part.
    #[inline]
    fn local<'w>(&self, cells: Cells<'w>, r: u64) -> Option<Slot<'w>> {
        (self.start..self.end)
            .contains(&r)
            .then(|| cells.slot((r - self.start) as usize))
    }

    /// The events of `seeds` (global ranks, ascending; kind, lo, hi), their
    /// packed boards found by one walk, appended to `evs`.
    fn events<G: Game, W: Word>(&self, seeds: &[(u64, u8, i8, i8)], evs: &mut Vec<Ev<W>>) {
        let Some(first) = seeds.first() else { return };
        let mut w = Walker::<G, W>::new(self.n, first.0);
        evs.extend(seeds.iter().map(|&(r, kind, lo, hi)| Ev {
            board: w.advance(r),
            kind,
            lo,
            hi,
        }));
    }
}

/// One part of a level under construction: its range, its buffers to the
/// other parts, its counts.
pub(super) struct Part<'l, G: Game, W: Word> {
    span: Span<'l>,
    /// Outgoing records, by destination part.
    pub(super) out: Vec<Vec<u8>>,
    /// Bytes in [`Self::out`] beyond which a step calls its flush (each
    /// of `T` workers at a `T`-th of it).
    pub(super) flush_at: usize,
    /// Records sent to other parts.
    pub(super) records_sent: u64,
    /// Bytes of those records.
    pub(super) bytes_sent: u64,
    /// Largest stack of a worker ([`LOCAL_MAX`]; tests make it small).
    pub(super) local_max: usize,
    /// Waiting events a job takes ([`SLICE`]; tests make it small).
    pub(super) slice: usize,
    /// Jobs run on the pool, and rounds of waiting events.
    pub(super) jobs: u64,
    /// Rounds of events that waited beyond a worker's stack.
    pub(super) spill_rounds: u64,
    /// The pool's threads that ran jobs (bit `i % 64`: thread `i`).
    pub(super) threads: u64,
    game: std::marker::PhantomData<fn() -> (G, W)>,
}

impl<'l, G: Game, W: Word> Part<'l, G, W> {
    /// Part `index` of level `n` split by `layout`.
    pub(super) fn new(n: u32, layout: &'l Layout, index: usize) -> Self {
        let r = layout.range(index);
        Part {
            span: Span {
                n,
                layout,
                start: r.start,
                end: r.end,
                width: layout.width(),
            },
            out: vec![Vec::new(); layout.parts()],
            flush_at: usize::MAX,
            records_sent: 0,
            bytes_sent: 0,
            local_max: LOCAL_MAX,
            slice: SLICE,
            jobs: 0,
            spill_rounds: 0,
            threads: 0,
            game: std::marker::PhantomData,
        }
    }

    /// Positions of the part.
    pub(super) fn len(&self) -> usize {
        (self.span.end - self.span.start) as usize
    }

    /// First global rank of the part.
    pub(super) fn start(&self) -> u64 {
        self.span.start
    }

    /// The level.
    pub(super) fn n(&self) -> u32 {
        self.span.n
    }

    /// Bytes waiting in the outgoing buffers.
    pub(super) fn out_bytes(&self) -> usize {
        self.out.iter().map(Vec::len).sum()
    }

    /// The acyclic pass's local work: the positions the forward pass
    /// settled (pending W), slab by slab (a job a chunk), and what they
    /// lead to.
    pub(super) fn kahn_local(&mut self, cells: Cells, flush: Flush) {
        let span = self.span;
        for first in (0..cells.len()).step_by(SLAB) {
            let chunks = first / DIRTY_CHUNK..(first + SLAB).min(cells.len()).div_ceil(DIRTY_CHUNK);
            self.run(cells, Mode::Kahn, flush, chunks, |ci, evs| {
                let seeds: Vec<_> = chunk(ci, cells.len())
                    .filter(|&i| cells.cells[i].flags() & PEND_W != 0)
                    .map(|i| {
                        let c = &cells.cells[i];
                        c.clear_flags(PEND_W, Relaxed);
                        // Settled in the acyclic pass: `lo = hi`.
                        let v = c.value();
                        (span.start + i as u64, W as u8, v, v)
                    })
                    .collect();
                span.events::<G, W>(&seeds, evs);
            });
        }
    }

    /// The scan at threshold `t` of the chunks whose masks (`lo`, `hi`,
    /// per [`DIRTY_CHUNK`] of the part) hold `t` or `−t`, slab by slab (a
    /// job a chunk), and the events its seeds lead to.
    pub(super) fn scan_local(
        &mut self,
        cells: Cells,
        (lo, hi): (&[ValueMask], &[ValueMask]),
        t: i32,
        flush: Flush,
    ) {
        let (n, span) = (self.span.n as i32, self.span);
        let per = SLAB / DIRTY_CHUNK;
        for c0 in (0..lo.len()).step_by(per) {
            let chunks: Vec<usize> = (c0..(c0 + per).min(lo.len()))
                .filter(|&ci| mask_has(&lo[ci], t, n) || mask_has(&hi[ci], -t, n))
                .collect();
            self.run(cells, Mode::Threshold(t), flush, chunks, |ci, evs| {
                let (mut seeds, mut tally) = (Vec::new(), Tally::default());
                for i in chunk(ci, cells.len()) {
                    let (w, l) = scan_cell(cells.slot(i), t, false, &mut tally);
                    let r = span.start + i as u64;
                    seeds.extend(w.then_some((r, W as u8, 0, 0)));
                    seeds.extend(l.then_some((r, L as u8, 0, 0)));
                }
                span.events::<G, W>(&seeds, evs);
            });
        }
    }

    /// Applies `records` (sent to this part under `mode`) and processes
    /// the events they lead to: sorted by offset, a job a slice.
    pub(super) fn receive(&mut self, cells: Cells, records: &[u8], mode: Mode, flush: Flush) {
        let (width, span) = (self.span.width, self.span);
        let rb = width + 2;
        debug_assert_eq!(records.len() % rb, 0, "whole records");
        for slab in records.chunks(RECV_SLAB * rb) {
            let mut got: Vec<(u64, i8, i8)> = slab
                .par_chunks_exact(rb)
                .map(|c| {
                    let mut off = [0u8; 8];
                    off[..width].copy_from_slice(&c[..width]);
                    (u64::from_le_bytes(off), c[width] as i8, c[width + 1] as i8)
                })
                .collect();
            got.par_sort_unstable_by_key(|x| x.0);
            self.run(cells, mode, flush, got.par_chunks(RECV_JOB), |got, evs| {
                let mut tally = Tally::default();
                let new: Vec<_> = got
                    .iter()
                    .filter_map(|&(off, x, y)| {
                        assert!((off as usize) < cells.len(), "a record for this part");
                        recv(mode, cells.slot(off as usize), x, y, &mut tally)
                            .map(|(k, lo, hi)| (span.start + off, k as u8, lo, hi))
                    })
                    .collect();
                span.events::<G, W>(&new, evs);
            });
        }
    }

    /// Runs `jobs` on the current pool: `seed` gives each job's events,
    /// which a worker processes with every local event they lead to; then
    /// rounds over the events that waited beyond the workers' stacks, a job
    /// a slice of them, until none is left.
    fn run<J: Send>(
        &mut self,
        cells: Cells,
        mode: Mode,
        flush: Flush,
        jobs: impl IntoParallelIterator<Item = J>,
        seed: impl Fn(J, &mut Vec<Ev<W>>) + Sync,
    ) {
        let mut waiting = self.round(cells, mode, flush, jobs, seed);
        while !waiting.is_empty() {
            self.spill_rounds += 1;
            let slice = self.slice.max(1);
            waiting = self.round(cells, mode, flush, waiting.par_chunks(slice), |xs, evs| {
                evs.extend_from_slice(xs)
            });
        }
    }

    /// One round of [`Self::run`]: the jobs on the pool, then their
    /// workers' records appended to [`Self::out`] (flushed beyond
    /// [`Self::flush_at`]). Returns the events that waited.
    fn round<J: Send>(
        &mut self,
        cells: Cells,
        mode: Mode,
        flush: Flush,
        jobs: impl IntoParallelIterator<Item = J>,
        seed: impl Fn(J, &mut Vec<Ev<W>>) + Sync,
    ) -> Vec<Ev<W>> {
        let shared = Mutex::new(flush);
        let (span, local_max) = (self.span, self.local_max.max(1));
        let flush_at = self.flush_at / rayon::current_num_threads().max(1);
        let workers: Vec<Worker<G, W>> = jobs
            .into_par_iter()
            .fold(
                || Worker::new(span, cells, mode, local_max, (&shared, flush_at)),
                |mut w, job| {
                    seed(job, &mut w.seeds);
                    w.run();
                    w.jobs += 1;
                    w
                },
            )
            .collect();
        let mut flush = shared.lock().unwrap_or_else(|e| e.into_inner());
        let mut waiting = Vec::new();
        for w in workers {
            for (o, mut b) in self.out.iter_mut().zip(w.out) {
                o.append(&mut b);
            }
            self.records_sent += w.records;
            self.bytes_sent += w.records * (span.width as u64 + 2);
            self.jobs += w.jobs;
            self.threads |= w.thread.map_or(0, |i| 1 << (i % 64));
            waiting.extend(w.waiting);
            if self.out_bytes() > self.flush_at {
                flush(&mut self.out);
            }
        }
        waiting
    }
}

/// The ranks (within a part of `len` positions) of chunk `ci`.
fn chunk(ci: usize, len: usize) -> Range<usize> {
    ci * DIRTY_CHUNK..((ci + 1) * DIRTY_CHUNK).min(len)
}

/// A part's worker: processes events depth-first from its own stack,
/// updates the part's cells with the builder's atomic operations and
/// writes records for other parts into its own buffers.
struct Worker<'a, 'f, G: Game, W: Word> {
    span: Span<'a>,
    cells: Cells<'a>,
    /// The fast mode's tally (parts build in safe mode: never lost).
    tally: Tally,
    mode: Mode,
    local_max: usize,
    /// A job's events, taken when the stack is empty.
    seeds: Vec<Ev<W>>,
    stack: Vec<Ev<W>>,
    /// Events found while the stack was full: the next round's.
    waiting: Vec<Ev<W>>,
    batch: Vec<Ev<W>>,
    preds: Vec<(u64, W, usize)>,
    /// Records by destination part, and their bytes.
    out: Vec<Vec<u8>>,
    out_bytes: usize,
    records: u64,
    jobs: u64,
    /// The pool thread the worker ran on.
    thread: Option<usize>,
    /// The part's flush, and the bytes beyond which this worker calls it.
    flush: (&'a Mutex<Flush<'f>>, usize),
    game: std::marker::PhantomData<fn() -> (G, W)>,
}

impl<'a, 'f, G: Game, W: Word> Worker<'a, 'f, G, W> {
    fn new(
        span: Span<'a>,
        cells: Cells<'a>,
        mode: Mode,
        local_max: usize,
        flush: (&'a Mutex<Flush<'f>>, usize),
    ) -> Self {
        Worker {
            span,
            cells,
            tally: Tally::default(),
            mode,
            local_max,
            seeds: Vec::new(),
            stack: Vec::new(),
            waiting: Vec::new(),
            batch: Vec::with_capacity(BATCH),
            preds: Vec::with_capacity(BATCH * 8),
            out: vec![Vec::new(); span.layout.parts()],
            out_bytes: 0,
            records: 0,
            jobs: 0,
            thread: rayon::current_thread_index(),
            flush,
            game: std::marker::PhantomData,
        }
    }

    /// Processes the seeds and every local event they lead to, in batches
    /// whose local predecessors' cells are prefetched before any is
    /// updated, as in the one-process builder.
    fn run(&mut self) {
        let mut preds = std::mem::take(&mut self.preds);
        loop {
            self.batch.clear();
            while self.batch.len() < BATCH {
                match self.stack.pop().or_else(|| self.seeds.pop()) {
                    Some(e) => self.batch.push(e),
                    None => break,
                }
            }
            if self.batch.is_empty() {
                break;
            }
            preds.clear();
            for (k, e) in self.batch.iter().enumerate() {
                for_each_pred::<G, W>(e.board, |r, b| {
                    if let Some(slot) = self.span.local(self.cells, r) {
                        prefetch(slot.cell);
                    }
                    preds.push((r, b, k));
                });
            }
            for &(r, b, k) in &preds {
                let e = self.batch[k];
                match self.span.local(self.cells, r) {
                    Some(slot) => {
                        if let Some((kind, lo, hi)) = apply(self.mode, slot, &e, &mut self.tally) {
                            self.emit(Ev {
                                board: b,
                                kind: kind as u8,
                                lo,
                                hi,
                            });
                        }
                    }
                    None => self.send(r, remote(self.mode, &e)),
                }
            }
            if self.out_bytes > self.flush.1 {
                let mut f = self.flush.0.lock().unwrap_or_else(|e| e.into_inner());
                f(&mut self.out);
                self.out_bytes = self.out.iter().map(Vec::len).sum();
            }
        }
        self.preds = preds;
    }

    /// A new local event: onto the stack, or, when it is full, to the
    /// next round.
    #[inline]
    fn emit(&mut self, e: Ev<W>) {
        if self.stack.len() < self.local_max {
            self.stack.push(e);
        } else {
            self.waiting.push(e);
        }
    }

    /// Appends an update `(x, y)` of rank `r` (another part's) to its
    /// owner's buffer.
    #[inline]
    fn send(&mut self, r: u64, (x, y): (i8, i8)) {
        let l = self.span.layout;
        let d = l.owner(r);
        let off = r - l.starts[d];
        let w = self.span.width;
        let b = &mut self.out[d];
        b.extend_from_slice(&off.to_le_bytes()[..w]);
        b.extend_from_slice(&[x as u8, y as u8]);
        self.records += 1;
        self.out_bytes += w + 2;
    }
}

/// The update of a local predecessor's cell by event `e` under `mode`.
#[inline]
fn apply<W: Word>(mode: Mode, slot: Slot, e: &Ev<W>, tally: &mut Tally) -> Option<(usize, i8, i8)> {
    match mode {
        Mode::Kahn => settle(slot.cell, *e),
        Mode::Threshold(t) => threshold_event(slot, e.kind, t, tally),
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
fn recv(mode: Mode, slot: Slot, x: i8, y: i8, tally: &mut Tally) -> Option<(usize, i8, i8)> {
    match mode {
        Mode::Kahn => settle(
            slot.cell,
            Ev {
                board: 0u64,
                kind: W as u8,
                lo: x,
                hi: y,
            },
        ),
        Mode::Threshold(t) => threshold_event(slot, x as u8, t, tally),
    }
}

/// A child of kind `kind` (W or L) entered its set at threshold `t`: the
/// builder's [`w_event`] or [`l_event`] on the predecessor's cell.
#[inline]
fn threshold_event(slot: Slot, kind: u8, t: i32, tally: &mut Tally) -> Option<(usize, i8, i8)> {
    if kind as usize == W {
        w_event(slot, t, tally)
    } else {
        l_event(slot, t, tally)
    }
}

#[cfg(test)]
mod tests;
