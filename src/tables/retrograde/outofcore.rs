//! The out-of-core builder: one level in one process, split into `S`
//! shards ([`super::part`]'s parts) of which one at a time is in memory,
//! running the same steps as the ranks of the distributed builder
//! ([`super::dist`]).
//!
//! Each shard takes **turns**. A turn loads the shard's cells, does its
//! local work (the forward pass and the acyclic pass's seeds on its first
//! turn, a threshold's scan on the threshold's first pass), applies the
//! update records other shards sent it, drains every event that leads to,
//! and puts the records for other shards in their inboxes; then the cells
//! go back to their file (by default they stay mapped: [`CellStore`]).
//! Every step of a turn runs on the process's thread pool
//! (`--threads`; [`super::part`]). A **round** is a pass over the shards, in order;
//! records a shard sends to a later one are applied in the same round, to
//! an earlier one in the next. A turn with no local work and an empty
//! inbox is skipped. The acyclic pass, and each threshold of the sweep,
//! ends when a round leaves every inbox empty. The result does not depend
//! on the order of events (the module comment of [`super`]), so the level
//! is byte-identical to a one-process build.
//!
//! The cells of the shards not being processed live in files
//! ([`CellStore`]); inboxes hold records in memory up to a budget and
//! spill to files beyond it. These temporary files are in the tables
//! directory, named `.adji-ooc-…​.tmp` so that a later build's stale-temp
//! cleanup removes what a killed run left, and are removed at the end of
//! the level.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use memmap2::{MmapMut, MmapOptions};

use super::driver::{run_level, LevelPasses, Phase};
use super::events::Mode;
use super::frontier::DIRTY_CHUNK;
use super::level::{bound_bytes, finish_words, forward_cells, Words};
use super::masks::{needs_scan, or_masks, value_masks, ValueMask};
use super::part::{Layout, Part};
use super::plan::check_size_sharded;
use crate::distributed::process_cpu_secs;
use crate::fsutil::{TMP_PREFIX, TMP_SUFFIX};
use crate::game::Game;
use crate::games::packed::{packs, Word};
use crate::progress::Progress;
use crate::tables::error::TableError;
use crate::tables::set::TableSet;
use crate::tables::shard;
use crate::value::LoopRule;

/// How the cells of the shards not being processed are kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum CellStore {
    /// A file per shard, read into anonymous memory for a turn and written
    /// back after it.
    File,
    /// A file per shard mapped for a turn and unmapped after it, without
    /// a sync: its dirty pages wait in the page cache, where the next turn
    /// finds them, until the kernel writes them back (the file is scratch).
    Mmap,
    /// A file per shard, mapped on its first turn and kept mapped to the
    /// end of the level: a turn finds its pages already mapped, where
    /// [`CellStore::Mmap`] maps them again and takes a page fault on each
    /// one it touches. The idle shards' pages are the page cache's all the
    /// same, which the kernel writes back and reclaims under pressure as
    /// with `Mmap`, so the memory the level needs is the same.
    Kept,
}

/// How a level is built out of core.
#[derive(Clone, Debug)]
pub struct OocConfig {
    /// Shards the level is split into (at least 1).
    pub shards: usize,
    /// Bytes of update records the inboxes hold in memory before they
    /// spill to files.
    pub inbox_bytes: usize,
    /// Where the cells of idle shards are kept.
    pub store: CellStore,
    /// Whether the boards are packed into 128 bits even where 64 hold them
    /// (the 64-bit word is used wherever it can be unless this is set).
    pub wide: bool,
}

/// Measurements of one level built out of core.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct OocReport {
    /// Level.
    pub level: u32,
    /// Positions.
    pub positions: u64,
    /// Shards.
    pub shards: usize,
    /// Seconds in the forward pass (cells written included).
    pub forward_secs: f64,
    /// Seconds in the acyclic pass.
    pub kahn_secs: f64,
    /// Seconds in the sweep.
    pub sweep_secs: f64,
    /// Seconds finishing and writing the level.
    pub write_secs: f64,
    /// Seconds in all.
    pub total_secs: f64,
    /// CPU seconds of the process over the level (all threads).
    pub cpu_secs: f64,
    /// Positions settled by the forward and acyclic passes.
    pub kahn_settled: u64,
    /// Thresholds that needed a scan.
    pub scans: u32,
    /// Rounds (passes over the shards) after the first turns.
    pub rounds: u32,
    /// Shard turns taken.
    pub turns: u64,
    /// Shard turns skipped (no local work, empty inbox).
    pub turns_skipped: u64,
    /// Bytes of update records sent between shards.
    pub update_bytes: u64,
    /// Bytes of update records that spilled to files.
    pub spilled_bytes: u64,
    /// Bytes of cells loaded and saved: the shard's size per load and per
    /// save (with [`CellStore::Mmap`] an upper bound: only the pages a
    /// turn touches are read, only those it changed written).
    pub cell_bytes: u64,
    /// Shards that already checked and were kept (a resumed build).
    pub shards_kept: u32,
    /// Bits of the word the level's boards were packed into: 64, or 128
    /// where 64 do not hold every board.
    pub word_bits: u32,
}

/// Builds level `n` out of core from the lower levels `lower` and writes
/// its file into `dir` (tables `G::RULES`, loop rule `rule`), the boards
/// packed into 64 bits where they fit unless `config.wide`, else into 128.
///
/// # Errors
/// A level beyond the sharded builders ([`check_size_sharded`]), missing
/// lower levels, or an I/O error (the temporary files are then removed).
pub fn build_level_out_of_core<G: Game>(
    dir: &Path,
    rule: LoopRule,
    n: u32,
    lower: &TableSet,
    bar: &dyn Progress,
    config: &OocConfig,
) -> Result<OocReport, TableError> {
    let size = check_size_sharded::<G>(n)?;
    if lower.covered() < n {
        return Err(TableError::Missing {
            level: lower.covered(),
            path: PathBuf::from("(lower levels)"),
        });
    }
    crate::fsutil::create_dir_all(dir).map_err(|e| io_at(dir, e))?;
    let layout = Layout::even(size, config.shards.clamp(1, size.max(1) as usize));
    if packs::<G, u64>(n) && !config.wide {
        run::<G, u64>(dir, rule, (n, &layout), lower, bar, config)
    } else {
        run::<G, u128>(dir, rule, (n, &layout), lower, bar, config)
    }
}

/// The build of [`build_level_out_of_core`], boards packed into `W`.
fn run<G: Game, W: Word>(
    dir: &Path,
    rule: LoopRule,
    (n, layout): (u32, &Layout),
    lower: &TableSet,
    bar: &dyn Progress,
    config: &OocConfig,
) -> Result<OocReport, TableError> {
    let mut ooc = Ooc::<G, W>::new(dir, n, layout, config);
    let r = ooc.run(lower, bar, rule);
    ooc.remove_temps();
    r?;
    Ok(ooc.report)
}

/// An I/O error at `path`.
fn io_at(path: &Path, e: std::io::Error) -> TableError {
    TableError::Io {
        path: path.to_path_buf(),
        source: e,
    }
}

/// The temporary file `what` of shard `s` of level `n` in `dir`.
fn temp_path(dir: &Path, n: u32, what: &str, s: usize) -> PathBuf {
    dir.join(format!("{TMP_PREFIX}ooc-{n:03}-{what}-{s}{TMP_SUFFIX}"))
}

/// The cells of one shard: in memory for a turn, on disk between turns.
type Loaded = Words;

/// Where a shard's cells are between turns.
struct Stored {
    path: PathBuf,
    len: usize,
    store: CellStore,
    /// With [`CellStore::Kept`], the cells' map between turns.
    kept: Option<Loaded>,
}

impl Stored {
    fn bytes(&self) -> u64 {
        Words::bytes(self.len, true) as u64
    }

    /// Zeroed cells for the shard's first turn.
    fn create(&self) -> std::io::Result<Loaded> {
        // (Never `kept`: `Ooc::first_turn` creates each shard once.)
        let map = match self.store {
            CellStore::File => {
                let map = MmapMut::map_anon(self.bytes() as usize)?;
                #[cfg(target_os = "linux")]
                let _ = map.advise(memmap2::Advice::HugePage);
                map
            }
            CellStore::Mmap | CellStore::Kept => {
                let f = OpenOptions::new()
                    .read(true)
                    .write(true)
                    .create(true)
                    .truncate(true)
                    .open(&self.path)?;
                f.set_len(self.bytes())?;
                self.map_file(&f)?
            }
        };
        Ok(Words::over(map, self.len, true))
    }

    fn map_file(&self, f: &File) -> std::io::Result<MmapMut> {
        // SAFETY: the file is this build's own temporary file, which
        // nothing else changes while it is mapped.
        unsafe { MmapOptions::new().len(self.bytes() as usize).map_mut(f) }
    }

    /// The cells as the last turn left them.
    fn load(&mut self) -> std::io::Result<Loaded> {
        if let Some(cells) = self.kept.take() {
            return Ok(cells);
        }
        match self.store {
            CellStore::File => {
                let mut cells = self.create()?;
                let f = File::open(&self.path)?;
                f.read_exact_at(&mut cells.map()[..], 0)?;
                Ok(cells)
            }
            CellStore::Mmap | CellStore::Kept => {
                let f = OpenOptions::new().read(true).write(true).open(&self.path)?;
                Ok(Words::over(self.map_file(&f)?, self.len, true))
            }
        }
    }

    /// Puts the cells back on disk and frees their memory (with
    /// [`CellStore::Kept`], keeps their map for the next turn).
    fn save(&mut self, mut cells: Loaded) -> std::io::Result<()> {
        match self.store {
            CellStore::File => {
                // Overwritten in place, not truncated: the file keeps its
                // blocks from turn to turn.
                let f = OpenOptions::new()
                    .write(true)
                    .create(true)
                    .truncate(false)
                    .open(&self.path)?;
                f.write_all_at(&cells.map()[..], 0)
            }
            CellStore::Mmap => {
                // Unmapped without a sync: the dirty pages stay in the page
                // cache, which the next turn's map of the same file reads
                // (Linux keeps them coherent), and the kernel writes them
                // back when it likes. The file is scratch: a killed build
                // restarts the level, so nothing needs it on disk now.
                drop(cells);
                Ok(())
            }
            CellStore::Kept => {
                self.kept = Some(cells);
                Ok(())
            }
        }
    }
}

/// The update records waiting for each shard: in memory up to a budget,
/// then appended to the shard's inbox file.
struct Inboxes {
    mem: Vec<Vec<u8>>,
    files: Vec<Option<(File, u64)>>,
    paths: Vec<PathBuf>,
    budget: usize,
    held: usize,
    sent: u64,
    spilled: u64,
    err: Option<(PathBuf, std::io::Error)>,
}

impl Inboxes {
    fn new(dir: &Path, n: u32, shards: usize, budget: usize) -> Self {
        Inboxes {
            mem: vec![Vec::new(); shards],
            files: (0..shards).map(|_| None).collect(),
            paths: (0..shards).map(|s| temp_path(dir, n, "in", s)).collect(),
            budget,
            held: 0,
            sent: 0,
            spilled: 0,
            err: None,
        }
    }

    /// Whether shard `s` has records waiting.
    fn has(&self, s: usize) -> bool {
        !self.mem[s].is_empty() || self.files[s].as_ref().is_some_and(|f| f.1 > 0)
    }

    fn any(&self) -> bool {
        (0..self.mem.len()).any(|s| self.has(s))
    }

    /// Takes a part's outgoing records (emptying `out`); spills every
    /// inbox to its file when the memory held exceeds the budget.
    fn push(&mut self, out: &mut [Vec<u8>]) {
        for (d, b) in out.iter_mut().enumerate() {
            self.held += b.len();
            self.sent += b.len() as u64;
            self.mem[d].append(b);
        }
        if self.held > self.budget {
            for d in 0..self.mem.len() {
                if let Err(e) = self.spill(d) {
                    self.err.get_or_insert((self.paths[d].clone(), e));
                }
            }
        }
    }

    /// Appends inbox `d`'s records in memory to its file.
    fn spill(&mut self, d: usize) -> std::io::Result<()> {
        if self.mem[d].is_empty() {
            return Ok(());
        }
        if self.files[d].is_none() {
            let f = OpenOptions::new()
                .read(true)
                .append(true)
                .create(true)
                .open(&self.paths[d])?;
            f.set_len(0)?;
            self.files[d] = Some((f, 0));
        }
        let (f, len) = self.files[d].as_mut().expect("opened above");
        f.write_all(&self.mem[d])?;
        *len += self.mem[d].len() as u64;
        self.spilled += self.mem[d].len() as u64;
        self.held -= self.mem[d].len();
        self.mem[d] = Vec::new();
        Ok(())
    }

    /// The error of a spill, if one failed.
    fn check(&mut self) -> Result<(), TableError> {
        match self.err.take() {
            Some((p, e)) => Err(io_at(&p, e)),
            None => Ok(()),
        }
    }
}

/// The out-of-core build of one level.
struct Ooc<'a, G: Game, W: Word> {
    dir: &'a Path,
    n: u32,
    layout: &'a Layout,
    stored: Vec<Stored>,
    /// Each shard's chunk masks of its unsettled positions' exit values,
    /// and how many of its positions are settled, as of its last turn of
    /// the acyclic pass.
    masks: Vec<(Vec<ValueMask>, Vec<ValueMask>)>,
    settled: Vec<u64>,
    inbox: Inboxes,
    report: OocReport,
    game: std::marker::PhantomData<(G, W)>,
}

impl<'a, G: Game, W: Word> Ooc<'a, G, W> {
    fn new(dir: &'a Path, n: u32, layout: &'a Layout, config: &OocConfig) -> Self {
        let s = layout.parts();
        let rb = layout.record_bytes();
        Ooc {
            dir,
            n,
            layout,
            stored: (0..s)
                .map(|d| Stored {
                    path: temp_path(dir, n, "cells", d),
                    len: (layout.range(d).end - layout.range(d).start) as usize,
                    store: config.store,
                    kept: None,
                })
                .collect(),
            masks: vec![(Vec::new(), Vec::new()); s],
            settled: vec![0; s],
            inbox: Inboxes::new(dir, n, s, config.inbox_bytes.max(rb)),
            report: OocReport {
                level: n,
                positions: layout.size(),
                shards: s,
                word_bits: W::BITS,
                ..Default::default()
            },
            game: std::marker::PhantomData,
        }
    }

    /// The whole level: the passes ([`run_level`]), then the file.
    fn run(
        &mut self,
        lower: &TableSet,
        bar: &dyn Progress,
        rule: LoopRule,
    ) -> Result<(), TableError> {
        let (t0, c0) = (Instant::now(), process_cpu_secs());
        bar.start(&format!("level {}", self.n), self.layout.size());
        run_level(&mut OocPasses { ooc: self, lower }, bar)?;
        // No byte of a level whose passes met damaged lower data is written.
        lower.check_damage()?;
        let t3 = Instant::now();
        self.write(rule)?;
        self.report.write_secs = t3.elapsed().as_secs_f64();
        self.report.total_secs = t0.elapsed().as_secs_f64();
        self.report.cpu_secs = process_cpu_secs() - c0;
        self.report.update_bytes = self.inbox.sent;
        self.report.spilled_bytes = self.inbox.spilled;
        Ok(())
    }

    fn io(&self, s: usize) -> impl Fn(std::io::Error) -> TableError + '_ {
        move |e| io_at(&self.stored[s].path, e)
    }

    /// Shard `s`'s first turn: the forward pass over its cells, then the
    /// acyclic pass from what it settled.
    fn first_turn(
        &mut self,
        s: usize,
        lower: &TableSet,
        bar: &dyn Progress,
    ) -> Result<(), TableError> {
        let mut words = self.stored[s].create().map_err(self.io(s))?;
        let mut part = Part::<G, W>::new(self.n, self.layout, s);
        part.flush_at = self.inbox.budget / 4;
        let dirty: Vec<_> = (0..words.len().div_ceil(DIRTY_CHUNK))
            .map(|_| AtomicBool::new(false))
            .collect();
        forward_cells::<G, W>(&mut words, part.start(), self.n, lower, true, &dirty, bar);
        let inbox = &mut self.inbox;
        part.kahn_local(words.cells(), &mut |out| inbox.push(out));
        inbox.push(&mut part.out);
        self.report.turns += 1;
        self.end_turn(s, words, true)
    }

    /// Records the masks of a shard's cells (`with_masks`) and puts them back.
    fn end_turn(&mut self, s: usize, words: Loaded, with_masks: bool) -> Result<(), TableError> {
        if with_masks {
            let (lo, hi, settled) = value_masks(&words, self.n);
            self.masks[s] = (lo, hi);
            self.settled[s] = settled;
        }
        self.report.cell_bytes += self.stored[s].bytes();
        self.stored[s].save(words).map_err(self.io(s))?;
        self.inbox.check()
    }

    /// Rounds under `mode` until every inbox is empty; with `scan`, the
    /// first round also scans each shard whose masks hold the threshold.
    fn rounds(&mut self, mode: Mode, scan: bool) -> Result<(), TableError> {
        let mut first = true;
        loop {
            let mut worked = false;
            for s in 0..self.layout.parts() {
                let local = first && scan && self.has_seeds(s, mode);
                if !local && !self.inbox.has(s) {
                    self.report.turns_skipped += 1;
                    continue;
                }
                worked = true;
                self.turn(s, mode, local)?;
            }
            first = false;
            if worked {
                self.report.rounds += 1;
            }
            if !self.inbox.any() {
                return Ok(());
            }
        }
    }

    /// Whether shard `s`'s masks hold the threshold of `mode`.
    fn has_seeds(&self, s: usize, mode: Mode) -> bool {
        let Mode::Threshold(t) = mode else {
            return false;
        };
        let (lo, hi) = &self.masks[s];
        needs_scan(&or_masks(lo), &or_masks(hi), t, self.n)
    }

    /// One turn of shard `s`: its scan (with `local`), then its inbox.
    fn turn(&mut self, s: usize, mode: Mode, local: bool) -> Result<(), TableError> {
        self.report.turns += 1;
        let mut words = self.stored[s].load().map_err(self.io(s))?;
        self.report.cell_bytes += self.stored[s].bytes();
        let mut part = Part::<G, W>::new(self.n, self.layout, s);
        part.flush_at = self.inbox.budget / 4;
        let cells = words.cells();
        let (inbox, masks) = (&mut self.inbox, &self.masks[s]);
        if let (true, Mode::Threshold(t)) = (local, mode) {
            part.scan_local(cells, (&masks.0, &masks.1), t, &mut |out| inbox.push(out));
        }
        // The records in memory, then those spilled (nothing adds to this
        // shard's inbox during its own turn).
        let mem = std::mem::take(&mut inbox.mem[s]);
        inbox.held -= mem.len();
        part.receive(cells, &mem, mode, &mut |out| inbox.push(out));
        drop(mem);
        if let Some((f, len)) = inbox.files[s].take() {
            let rb = self.layout.record_bytes();
            let step = (inbox.budget / 2 / rb).max(1) * rb;
            let mut buf = Vec::new();
            for at in (0..len).step_by(step) {
                buf.resize(step.min((len - at) as usize), 0);
                f.read_exact_at(&mut buf, at)
                    .map_err(|e| io_at(&inbox.paths[s], e))?;
                part.receive(cells, &buf, mode, &mut |out| inbox.push(out));
            }
            f.set_len(0).map_err(|e| io_at(&inbox.paths[s], e))?;
            inbox.files[s] = Some((f, 0));
        }
        inbox.push(&mut part.out);
        self.end_turn(s, words, matches!(mode, Mode::Kahn))
    }

    /// Finishes every shard's cells and writes it as a shard of the level
    /// (one that already checks is kept: a resumed build), then the
    /// manifest.
    fn write(&mut self, rule: LoopRule) -> Result<(), TableError> {
        let rules = G::RULES.tables();
        let of = self.layout.parts() as u32;
        let mut infos = Vec::new();
        for s in 0..self.layout.parts() {
            let r = self.layout.range(s);
            let place = shard::Place::new(s as u32, of, r);
            if let Ok(info) = shard::check_shard(self.dir, rules, rule, self.n, place) {
                self.report.shards_kept += 1;
                infos.push(info);
                continue;
            }
            let mut words = self.stored[s].load().map_err(self.io(s))?;
            self.report.cell_bytes += self.stored[s].bytes();
            finish_words(&mut words);
            infos.push(shard::write_shard_with(
                self.dir,
                rules,
                rule,
                self.n,
                place,
                &|k| bound_bytes(words[k]),
            )?);
        }
        shard::write_manifest(self.dir, rules, rule, self.n, &infos)?;
        Ok(())
    }

    /// Removes the level's temporary files.
    fn remove_temps(&mut self) {
        self.inbox.files.iter_mut().for_each(|f| drop(f.take()));
        self.stored.iter_mut().for_each(|c| drop(c.kept.take()));
        for s in 0..self.layout.parts() {
            let _ = std::fs::remove_file(&self.stored[s].path);
            let _ = std::fs::remove_file(&self.inbox.paths[s]);
        }
    }
}

/// The out-of-core build of one level as the passes of [`run_level`]: a
/// pass is a turn of each shard (the forward pass) or rounds of turns
/// until every inbox is empty.
struct OocPasses<'o, 'a, 't, G: Game, W: Word> {
    ooc: &'o mut Ooc<'a, G, W>,
    lower: &'t TableSet,
}

impl<G: Game, W: Word> LevelPasses for OocPasses<'_, '_, '_, G, W> {
    fn level(&self) -> u32 {
        self.ooc.n
    }

    fn forward(&mut self, bar: &dyn Progress) -> Result<(), TableError> {
        let parts = self.ooc.layout.parts();
        bar.message(&format!(
            "level {}: forward pass, {parts} shards",
            self.ooc.n
        ));
        for s in 0..parts {
            self.ooc.first_turn(s, self.lower, bar)?;
        }
        Ok(())
    }

    fn kahn(&mut self, bar: &dyn Progress) -> Result<(), TableError> {
        bar.message(&format!("level {}: acyclic pass", self.ooc.n));
        self.ooc.rounds(Mode::Kahn, false)
    }

    fn masks(&mut self) -> (ValueMask, ValueMask) {
        let ooc = &mut *self.ooc;
        ooc.report.kahn_settled = ooc.settled.iter().sum();
        let lo: Vec<ValueMask> = ooc.masks.iter().map(|m| or_masks(&m.0)).collect();
        let hi: Vec<ValueMask> = ooc.masks.iter().map(|m| or_masks(&m.1)).collect();
        (or_masks(&lo), or_masks(&hi))
    }

    fn threshold(&mut self, t: i32, bar: &dyn Progress) -> Result<(), TableError> {
        bar.message(&format!("level {}: threshold {t:+}", self.ooc.n));
        self.ooc.report.scans += 1;
        self.ooc.rounds(Mode::Threshold(t), true)
    }

    fn took(&mut self, phase: Phase, secs: f64) {
        let r = &mut self.ooc.report;
        match phase {
            Phase::Forward => r.forward_secs = secs,
            Phase::Kahn => r.kahn_secs = secs,
            Phase::Sweep => r.sweep_secs = secs,
        }
    }
}

#[cfg(test)]
mod tests;
