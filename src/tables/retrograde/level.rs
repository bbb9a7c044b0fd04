//! One level under construction: its cells and the passes over them
//! (forward pass, acyclic pass, threshold sweep, finish).

use std::marker::PhantomData;
use std::ops::RangeInclusive;
use std::sync::atomic::{AtomicBool, Ordering::AcqRel, Ordering::Relaxed};
use std::time::Instant;

use rayon::prelude::*;

use super::cell::{
    cell_fields, cells, exit_words, finished_bounds, plane_cells, Cell, Cells, Tally, PEND_L,
    PEND_W,
};
use super::driver::{LevelPasses, Phase};
use super::events::{event, Ev, Mode, Worker, L, LOCAL_MAX, W};
use super::frontier::{for_each_board, Frontier, Sink, DIRTY_CHUNK};
use super::masks::{mask_has, or_masks, value_masks, ValueMask};
use super::seeds::claim_seeds;
use crate::game::{Game, MAX_PITS};
use crate::games::packed::{rot, unpack, Word};
use crate::index::rank;
use crate::progress::Progress;
use crate::tables::error::TableError;
use crate::tables::exits::{child, fold_captures, for_each_batch, quiet_exits, Capture};
use crate::tables::set::TableSet;

/// Measurements of one level's build.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct LevelReport {
    /// Seeds on the board.
    pub level: u32,
    /// Positions.
    pub positions: u64,
    /// Seconds in the forward pass.
    pub forward_secs: f64,
    /// Seconds in the acyclic pass.
    pub kahn_secs: f64,
    /// Positions the forward and acyclic passes settled (one event each).
    pub kahn_settled: u64,
    /// Seconds in the threshold sweep.
    pub sweep_secs: f64,
    /// Total seconds (including the final pass, not the write).
    pub total_secs: f64,
    /// Largest frontier, in entries (a packed board each: 8 bytes, or
    /// 16 for a level whose boards need 128 bits).
    pub max_frontier: u64,
    /// Thresholds that needed a scan.
    pub scans: u32,
    /// Seconds spent in the threshold scans (part of `sweep_secs`).
    pub scan_secs: f64,
    /// Frontier rounds that overflowed the cap and needed a pending-bit scan.
    pub spills: u32,
    /// Bits of the word the level's boards were packed into: 64, or 128
    /// where 64 do not hold every board.
    pub word_bits: u32,
    /// Bytes of the lower levels that the forward pass read mapped from
    /// their files, not copied into memory (0 where every level it reads
    /// at once is in memory, as the plan counts them; a compressed level
    /// read mapped decodes a block a lookup). Set by the level driver.
    pub lower_mapped_bytes: u64,
    /// Whether the level was built in safe mode (3 bytes a position; fast
    /// mode, 2 bytes, lost a loop-sensitive position: [`super::cell`]).
    pub safe: bool,
}

/// Frontier entries a worker takes at a time in a round.
const SLICE: usize = 1 << 10;

/// The cells of a level (or of a part of one) as `len` u16 words over a
/// memory map, and in safe mode the plane of `len` `hi` bytes after them
/// ([`super::cell`]): anonymous and zeroed, asked for on transparent huge
/// pages where the system offers them (the events' random accesses then
/// miss the TLB far less), or a shard's cell file mapped in place.
pub(super) struct Words {
    map: memmap2::MmapMut,
    len: usize,
    plane: bool,
}

impl Words {
    /// Bytes of `len` cells, with their plane when `plane`.
    pub(super) fn bytes(len: usize, plane: bool) -> usize {
        (len * if plane { 3 } else { 2 }).max(2)
    }

    /// `len` zeroed words, and a zeroed plane when `plane`.
    pub(super) fn zeroed(len: usize, plane: bool) -> std::io::Result<Words> {
        let map = memmap2::MmapMut::map_anon(Self::bytes(len, plane))?;
        #[cfg(target_os = "linux")]
        let _ = map.advise(memmap2::Advice::HugePage);
        Ok(Words { map, len, plane })
    }

    /// `len` words (and their plane when `plane`) over `map`, which must be
    /// at least [`Words::bytes`] long (panics otherwise: a caller's bug,
    /// never a file's content).
    pub(super) fn over(map: memmap2::MmapMut, len: usize, plane: bool) -> Words {
        assert!(
            map.len() >= Self::bytes(len, plane),
            "a cell map shorter than its words"
        );
        Words { map, len, plane }
    }

    /// The map under the words (its bytes, for reading and writing files).
    pub(super) fn map(&mut self) -> &mut memmap2::MmapMut {
        &mut self.map
    }

    /// The words and the plane, for exclusive access.
    pub(super) fn split_mut(&mut self) -> (&mut [u16], Option<&mut [u8]>) {
        let (len, plane) = (self.len, self.plane);
        let (cells, rest) = self.map.split_at_mut(2 * len);
        // SAFETY: the map is page-aligned, so its first 2·len bytes are
        // len aligned u16s, only read and written as such.
        let words = unsafe { std::slice::from_raw_parts_mut(cells.as_mut_ptr() as *mut u16, len) };
        (words, plane.then(|| &mut rest[..len]))
    }

    /// The cells and plane for shared atomic access.
    pub(super) fn cells(&mut self) -> Cells<'_> {
        let (words, plane) = self.split_mut();
        Cells {
            cells: cells(words),
            plane: plane.map(plane_cells),
        }
    }
}

impl std::ops::Deref for Words {
    type Target = [u16];
    fn deref(&self) -> &[u16] {
        // SAFETY: the map is page-aligned and at least 2·len bytes long
        // (`zeroed` and `over`), and only read and written as u16 words.
        unsafe { std::slice::from_raw_parts(self.map.as_ptr() as *const u16, self.len) }
    }
}

impl std::ops::DerefMut for Words {
    fn deref_mut(&mut self) -> &mut [u16] {
        self.split_mut().0
    }
}

/// The bounds of every position of a built level, one word per position.
pub(super) struct LevelBounds {
    words: Words,
}

impl LevelBounds {
    /// The bounds of the cells `words` after the sweep: positions never in
    /// W get `lo = −∞`, never in L `hi = +∞`.
    pub(super) fn finish(mut words: Words) -> LevelBounds {
        finish_words(&mut words);
        LevelBounds { words }
    }

    /// Number of positions.
    pub(super) fn len(&self) -> usize {
        self.words.len()
    }

    /// The lo and hi bound bytes of position `i`.
    #[inline]
    pub(super) fn bounds(&self, i: usize) -> (u8, u8) {
        bound_bytes(self.words[i])
    }

    /// The lo and hi planes.
    pub(super) fn into_planes(self) -> (Vec<u8>, Vec<u8>) {
        (0..self.len()).map(|i| self.bounds(i)).unzip()
    }
}

/// Finishes the cells `words` after the sweep in place (see
/// [`LevelBounds::finish`]): each word becomes its `lo` and `hi` bytes,
/// which [`bound_bytes`] then reads.
pub(super) fn finish_words(words: &mut Words) {
    let (words, plane) = words.split_mut();
    let finish = |words: &mut [u16], plane: Option<&[u8]>| {
        for (i, w) in words.iter_mut().enumerate() {
            let (lo, hi) = finished_bounds(*w, plane.map(|p| p[i]));
            *w = u16::from_le_bytes([lo, hi]);
        }
    };
    match plane {
        Some(plane) => words
            .par_chunks_mut(DIRTY_CHUNK)
            .zip(plane.par_chunks(DIRTY_CHUNK))
            .for_each(|(w, p)| finish(w, Some(p))),
        None => words
            .par_chunks_mut(DIRTY_CHUNK)
            .for_each(|w| finish(w, None)),
    }
}

/// The lo and hi bound bytes of a word finished by [`finish_words`].
#[inline]
pub(super) fn bound_bytes(w: u16) -> (u8, u8) {
    let [lo, hi] = w.to_le_bytes();
    (lo, hi)
}

/// One level under construction.
pub(super) struct LevelBuild<'a, G: Game, W: Word> {
    n: u32,
    lower: &'a TableSet,
    cap: usize,
    words: Words,
    dirty: [Vec<AtomicBool>; 2],
    pub(super) report: LevelReport,
    /// Whether the acyclic pass runs (else the sweep settles everything).
    pub(super) acyclic: bool,
    /// Where the forward pass's cells were written ([`super::staged`]):
    /// the forward pass reads them from there, not from the lower levels.
    pub(super) stage: Option<std::path::PathBuf>,
    /// The chunks' masks of the unsettled positions' exit values, taken
    /// after the acyclic pass for the sweep's scans.
    masks: (Vec<ValueMask>, Vec<ValueMask>),
    /// What the workers saw of the fast mode's positions, merged after
    /// each threshold ([`Tally`]).
    tally: Tally,
    game: PhantomData<(G, W)>,
}

impl<'a, G: Game, W: Word> LevelBuild<'a, G, W> {
    pub(super) fn new(
        n: u32,
        size: usize,
        lower: &'a TableSet,
        cap: usize,
        safe: bool,
    ) -> std::io::Result<Self> {
        let dirty = || {
            (0..size.div_ceil(DIRTY_CHUNK))
                .map(|_| AtomicBool::new(false))
                .collect()
        };
        Ok(LevelBuild {
            n,
            lower,
            cap,
            words: Words::zeroed(size, safe)?,
            dirty: [dirty(), dirty()],
            report: LevelReport {
                level: n,
                positions: size as u64,
                word_bits: W::BITS,
                ..Default::default()
            },
            acyclic: true,
            stage: None,
            masks: (Vec::new(), Vec::new()),
            tally: Tally::default(),
            game: PhantomData,
        })
    }

    /// Forward pass: `E` into `a` and `c`, the quiet-move count into `b`.
    /// With `settle`, a position without quiet moves is settled (`lo = hi =
    /// E`) and marked pending for the acyclic pass.
    pub(super) fn forward(&mut self, bar: &dyn Progress, settle: bool) {
        bar.message(&format!("level {}: forward pass", self.n));
        forward_cells::<G, W>(
            &mut self.words,
            0,
            self.n,
            self.lower,
            settle,
            &self.dirty[W],
            bar,
        );
    }

    /// Acyclic pass (Kahn's algorithm), from the positions the forward pass
    /// settled: a settled position raises its quiet predecessors' `E_lo` to
    /// `−hi` and `E_hi` to `−lo` and decrements their counters; a counter
    /// reaching 0 settles that predecessor. Every position that cannot reach
    /// a quiet cycle is settled here, with one event.
    pub(super) fn kahn(&mut self, bar: &dyn Progress) {
        bar.message(&format!("level {}: acyclic pass", self.n));
        let mut front = Frontier::<W> {
            spilled: [true, false],
            ..Default::default()
        };
        let (n, cap) = (self.n, self.cap);
        let dirty = &self.dirty;
        let cells = self.words.cells();
        let mut first = true;
        while !front.is_empty() {
            self.report.max_frontier = self.report.max_frontier.max(front.len() as u64);
            self.report.spills += (!first && front.spilled[W]) as u32;
            front = round::<G, W>(cells, n, Mode::Kahn, front, dirty, cap).0;
            first = false;
        }
    }

    /// The masks of the unsettled positions' exit values, per chunk (kept
    /// for the scans) and over the level; counts the positions the forward
    /// and acyclic passes settled.
    pub(super) fn masks(&mut self) -> (ValueMask, ValueMask) {
        let (mask_lo, mask_hi, settled) = value_masks(&self.words, self.n);
        self.report.kahn_settled = settled;
        let any = (or_masks(&mask_lo), or_masks(&mask_hi));
        self.masks = (mask_lo, mask_hi);
        any
    }

    /// One threshold `t` of the sweep (see the module comment of
    /// [`super`]): its scan, then frontier rounds until none is left.
    pub(super) fn threshold(&mut self, t: i32, bar: &dyn Progress) {
        if self.tally.lost {
            // Lost in fast mode: the level is built again in safe mode.
            return;
        }
        let (n, cap) = (self.n, self.cap);
        let report = &mut self.report;
        report.scans += 1;
        bar.message(&format!("level {n}: threshold {t:+}"));
        let ts = Instant::now();
        let (mask_lo, mask_hi) = (&self.masks.0, &self.masks.1);
        let dirty = &self.dirty;
        let words = &mut self.words;
        let (mut front, tally) = scan::<G, W>(words, n, t, (mask_lo, mask_hi), dirty, cap);
        self.tally.merge(&tally);
        report.scan_secs += ts.elapsed().as_secs_f64();
        let cells = words.cells();
        while !front.is_empty() {
            report.max_frontier = report.max_frontier.max(front.len() as u64);
            report.spills += front.spilled.iter().any(|&s| s) as u32;
            let tally;
            (front, tally) = round::<G, W>(cells, n, Mode::Threshold(t), front, dirty, cap);
            self.tally.merge(&tally);
        }
        if !self.tally.closed_down_to(t) {
            self.tally.lost = true;
        }
    }

    /// Whether the fast mode lost a loop-sensitive position's exit or `hi`
    /// (the level must then be built again in safe mode; always false in
    /// safe mode).
    pub(super) fn lost(&self) -> bool {
        self.tally.lost || !self.tally.closed_down_to(i32::MIN / 2)
    }

    /// Finish: positions never in W get `lo = −∞`, never in L `hi = +∞`.
    pub(super) fn finish(self) -> (LevelBounds, LevelReport) {
        (LevelBounds::finish(self.words), self.report)
    }
}

impl<G: Game, W: Word> LevelPasses for LevelBuild<'_, G, W> {
    fn level(&self) -> u32 {
        self.n
    }

    fn forward(&mut self, bar: &dyn Progress) -> Result<(), TableError> {
        match &self.stage {
            Some(path) => {
                super::staged::load(&mut self.words, path)?;
                let dirty = &self.dirty[W];
                self.words
                    .par_chunks(DIRTY_CHUNK)
                    .zip(dirty.par_iter())
                    .for_each(|(words, d)| chunk_done(words, d, bar));
            }
            None => LevelBuild::forward(self, bar, self.acyclic),
        }
        Ok(())
    }

    fn kahn(&mut self, bar: &dyn Progress) -> Result<(), TableError> {
        if self.acyclic {
            LevelBuild::kahn(self, bar);
        }
        Ok(())
    }

    fn masks(&mut self) -> (ValueMask, ValueMask) {
        LevelBuild::masks(self)
    }

    fn threshold(&mut self, t: i32, bar: &dyn Progress) -> Result<(), TableError> {
        LevelBuild::threshold(self, t, bar);
        Ok(())
    }

    fn took(&mut self, phase: Phase, secs: f64) {
        match phase {
            Phase::Forward => self.report.forward_secs = secs,
            Phase::Kahn => self.report.kahn_secs = secs,
            Phase::Sweep => self.report.sweep_secs = secs,
        }
    }
}

/// The forward pass over `words`, the cells of ranks `start..start +
/// words.len()` of level `n`: `E` into `a` and `c`, the quiet-move count
/// into `b`; with `settle`, a position without quiet moves is settled (`lo
/// = hi = E`), marked pending and its chunk (of `dirty`, counted from
/// `start`) marked dirty.
pub(super) fn forward_cells<G: Game, W: Word>(
    words: &mut [u16],
    start: u64,
    n: u32,
    lower: &TableSet,
    settle: bool,
    dirty: &[AtomicBool],
    bar: &dyn Progress,
) {
    let every = 0..=u32::MAX;
    forward_cells_within::<G, W>(words, start, n, (lower, &every), settle, dirty, bar);
}

/// [`forward_cells`] counting only the captures into the lower levels
/// `levels` (a group of a staged level's forward pass, [`super::staged`]):
/// `lower` need hold no other level in memory, since no other is read.
pub(super) fn forward_cells_within<G: Game, W: Word>(
    words: &mut [u16],
    start: u64,
    n: u32,
    (lower, levels): (&TableSet, &RangeInclusive<u32>),
    settle: bool,
    dirty: &[AtomicBool],
    bar: &dyn Progress,
) {
    words
        .par_chunks_mut(DIRTY_CHUNK)
        .enumerate()
        .for_each(|(ci, words)| {
            let first = start + (ci * DIRTY_CHUNK) as u64;
            let (mut caps, mut exits) = (Vec::new(), Vec::new());
            for_each_batch::<G>(first, words.len(), n, |k, batch| {
                exits_batch::<G, W>(n, batch, (lower, levels), &mut caps, &mut exits);
                exit_words(&mut words[k..k + batch.len()], &exits, settle);
            });
            chunk_done(words, &dirty[ci], bar);
        });
}

/// Marks a chunk of forward-pass cells dirty when one is pending, and
/// counts it done.
pub(super) fn chunk_done(words: &[u16], dirty: &AtomicBool, bar: &dyn Progress) {
    if words.iter().any(|&w| cell_fields(w).1 & PEND_W != 0) {
        dirty.store(true, Relaxed);
    }
    bar.inc(words.len() as u64);
}

/// What a worker pushed, and what it saw of the fast mode's positions.
type Out<W> = ([Vec<W>; 2], Tally);

/// A worker with producers into `sinks`, and what it pushed when done.
fn with_worker<G: Game, W: Word>(
    cells: Cells,
    mode: Mode,
    sinks: &[Sink; 2],
    f: impl FnOnce(&mut Worker<G, W>),
) -> Out<W> {
    let mut w = worker::<G, W>(cells, mode, sinks);
    f(&mut w);
    (std::mem::take(&mut w.lists), std::mem::take(&mut w.tally))
}

/// A worker on `cells` with producers into `sinks`.
fn worker<'p, 's, 'a, G: Game, W: Word>(
    cells: Cells<'p>,
    mode: Mode,
    sinks: &'s [Sink<'a>; 2],
) -> Worker<'p, 's, 'a, G, W> {
    let local_max = sinks[W].cap().min(LOCAL_MAX);
    Worker::new(
        cells,
        mode,
        [sinks[W].producer(), sinks[L].producer()],
        local_max,
    )
}

/// The frontier of what `outs` pushed into `sinks`, and their tally.
fn collect<W: Word>(mut outs: Vec<Out<W>>, sinks: &[Sink; 2]) -> (Frontier<W>, Tally) {
    let mut front = Frontier::default();
    for k in 0..2 {
        let lists = outs
            .iter_mut()
            .map(|o| std::mem::take(&mut o.0[k]))
            .collect();
        front.add(k, lists, &sinks[k]);
    }
    let mut tally = Tally::default();
    for o in &outs {
        tally.merge(&o.1);
    }
    (front, tally)
}

/// One round over a frontier: its entries (of each kind, sorted in the
/// sweep) are taken by workers in slices, then, for a kind that spilled,
/// the positions of dirty chunks that carry its pending bit (cleared as
/// they are taken); what the events push is the next frontier.
fn round<G: Game, W: Word>(
    cells: Cells,
    n: u32,
    mode: Mode,
    input: Frontier<W>,
    dirty: &[Vec<AtomicBool>; 2],
    cap: usize,
) -> (Frontier<W>, Tally) {
    let sinks = [
        Sink::new(cap, &dirty[W], PEND_W),
        Sink::new(cap, &dirty[L], PEND_L),
    ];
    let mut outs = Vec::new();
    for (k, lists) in input.lists.into_iter().enumerate() {
        let all = lists.concat();
        drop(lists);
        outs.par_extend(all.par_chunks(SLICE).map(|xs| {
            with_worker::<G, W>(cells, mode, &sinks, |w| {
                w.run(xs.iter().map(|&x| {
                    let board = rot::<G, W>(x);
                    match mode {
                        Mode::Kahn => {
                            let r = rank(&unpack::<G, W>(board), G::PITS) as usize;
                            event(cells, r, board, k)
                        }
                        Mode::Threshold(_) => Ev {
                            board,
                            kind: k as u8,
                            lo: 0,
                            hi: 0,
                        },
                    }
                }))
            })
        }));
    }
    for k in (0..2).filter(|&k| input.spilled[k]) {
        let bit = [PEND_W, PEND_L][k];
        outs.par_extend(
            (0..dirty[k].len())
                .into_par_iter()
                .filter(|&ci| dirty[k][ci].swap(false, Relaxed))
                .map(|ci| {
                    let offsets = take_pending(cells.cells, ci, bit);
                    with_worker::<G, W>(cells, mode, &sinks, |w| {
                        let mut evs = Vec::with_capacity(offsets.len());
                        let base = (ci * DIRTY_CHUNK) as u64;
                        for_each_board::<G, W>(base, &offsets, n, |r, b| {
                            evs.push(event(cells, r as usize, b, k))
                        });
                        w.run(evs)
                    })
                }),
        );
    }
    collect(outs, &sinks)
}

/// The positions of chunk `ci` whose cells carry pending `bit`, which is
/// cleared as they are taken, as offsets from the chunk's first rank.
fn take_pending(cells: &[Cell], ci: usize, bit: u8) -> Vec<u32> {
    let first = ci * DIRTY_CHUNK;
    (first..(first + DIRTY_CHUNK).min(cells.len()))
        .filter(|&i| cells[i].flags() & bit != 0 && cells[i].clear_flags(bit, AcqRel) & bit != 0)
        .map(|i| (i - first) as u32)
        .collect()
}

/// The seeds of one chunk ([`claim_seeds`]): their offsets from the
/// chunk's first rank, and their codes.
type Seeds = (Vec<u32>, Vec<u8>);

/// Chunks scanned at a time before their seeds' events are processed: the
/// seed lists stay small (at most one rank and code, 5 bytes, per position
/// of a slab: 40 MiB, within [`super::plan::OVERHEAD_BYTES`]), and the two
/// threads meet at the end of each slab's claims and events (slabs of 64
/// chunks made the sweep at Adji-Boto 34 5 % slower).
const SLAB: usize = 512;

/// The scan at threshold `t` over the chunks whose masks hold `t` (for
/// `E_lo`) or `−t` (for `E_hi`): unsettled positions with `E_lo = t` enter
/// W, those with `E_hi = −t` and no quiet move left outside W enter L.
/// Slab by slab, the chunks are scanned with the cells held exclusively
/// ([`claim_seeds`]), then each chunk's worker processes every event its
/// seeds lead to. Returns the overflow.
fn scan<G: Game, W: Word>(
    words: &mut Words,
    n: u32,
    t: i32,
    (mask_lo, mask_hi): (&[ValueMask], &[ValueMask]),
    dirty: &[Vec<AtomicBool>; 2],
    cap: usize,
) -> (Frontier<W>, Tally) {
    let ni = n as i32;
    let fast = words.cells().plane.is_none();
    let sinks = [
        Sink::new(cap, &dirty[W], PEND_W),
        Sink::new(cap, &dirty[L], PEND_L),
    ];
    let mut outs: Vec<Out<W>> = Vec::new();
    let slab = SLAB * DIRTY_CHUNK;
    for first in (0..words.len()).step_by(slab) {
        let end = (first + slab).min(words.len());
        // Each chunk's seeds as offsets from its first rank.
        let seeds: Vec<(usize, Seeds)> = words[first..end]
            .par_chunks_mut(DIRTY_CHUNK)
            .enumerate()
            .filter(|&(i, _)| {
                let ci = first / DIRTY_CHUNK + i;
                mask_has(&mask_lo[ci], t, ni) || mask_has(&mask_hi[ci], -t, ni)
            })
            .map(|(i, ws)| (first + i * DIRTY_CHUNK, claim_seeds(ws, 0, t, fast)))
            .filter(|(_, (offsets, _))| !offsets.is_empty())
            .collect();
        let cells = words.cells();
        // One worker and one event list per rayon job, reused over its chunks.
        outs.par_extend(seeds.into_par_iter().map_init(
            || {
                (
                    worker::<G, W>(cells, Mode::Threshold(t), &sinks),
                    Vec::new(),
                )
            },
            |(w, evs), (base, (offsets, codes))| {
                seed_events::<G, W>(n, base as u64, &offsets, &codes, evs);
                w.run(evs.drain(..));
                (std::mem::take(&mut w.lists), std::mem::take(&mut w.tally))
            },
        ));
    }
    collect(outs, &sinks)
}

/// The events of the seeds of ranks `base + o` of level `n`, `o` over
/// the ascending `offsets`, with their `codes` ([`claim_seeds`]), into
/// `evs`.
fn seed_events<G: Game, W: Word>(
    n: u32,
    base: u64,
    offsets: &[u32],
    codes: &[u8],
    evs: &mut Vec<Ev<W>>,
) {
    let mut codes = codes.iter();
    for_each_board::<G, W>(base, offsets, n, |_, b| {
        let code = codes.next().expect("one code a seed");
        for kind in [W, L].into_iter().filter(|&k| code >> k & 1 != 0) {
            evs.push(Ev {
                board: b,
                kind: kind as u8,
                lo: 0,
                hi: 0,
            })
        }
    });
}

/// `(E, quiet-move count)` of each board of `batch` into `out`; `E` is
/// `i32::MIN` when it has no exit (the cell then holds [`NONE`]), and the
/// split when the board has no move at all (a pass counts as a quiet
/// move). The lower-level entries of all capture
/// children of the batch are located and prefetched first, then read, so
/// that their cache misses overlap. `caps` is scratch space.
fn exits_batch<G: Game, W: Word>(
    n: u32,
    batch: &[[u8; MAX_PITS]],
    (lower, levels): (&TableSet, &RangeInclusive<u32>),
    caps: &mut Vec<Capture<W>>,
    out: &mut Vec<(i32, u8)>,
) {
    caps.clear();
    out.clear();
    quiet_exits::<G, W>(n, batch, caps, out, |level, idx| match lower.level(level) {
        Some(t) if levels.contains(&level) => t.prefetch(idx),
        _ => {}
    });
    if *levels.end() < n {
        // A group of levels: the captures into the others count elsewhere.
        caps.retain(|c| levels.contains(&c.2));
    }
    fold_captures(caps, out, |&(_, _, level, idx, c)| {
        let t = lower
            .level(level)
            .expect("lower level present (checked by build_level)");
        // A damaged entry (only if a lower file changed since it was
        // checked) counts as the worst capture here; the level's build is
        // then refused ([`TableSet::check_damage`] after its passes).
        t.value_with(idx, || lower.rule.w::<G>(&child::<G, W>(c)))
            .unwrap_or(level as i32)
    });
}
