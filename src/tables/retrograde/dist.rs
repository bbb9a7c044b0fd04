//! The distributed builder: the passes of [`super`] over `P` processes
//! that talk through a [`Comm`] (MPI under `mpirun`): the SPMD driver of
//! the steps of [`super::part`], one part a rank.
//!
//! Rank `r` owns the contiguous slice [`share`]`(size, r, P)` of a level's
//! rank range and holds the cells of that slice only. Every rank maps the
//! lower levels from its directory (mapped, not copied: the ranks of a node
//! share them in the page cache) and runs, on its slice:
//!
//! 1. the **forward pass** ([`super::level::forward_cells`], the one-process
//!    builder's, on the rank's threads);
//! 2. the **acyclic pass**: settled positions update their quiet
//!    predecessors with the builder's own event functions; an update of a
//!    predecessor in another rank's slice is appended to that rank's buffer
//!    (a record: its offset in that slice, 4 bytes, or 8 for slices of
//!    2^32 positions or more, then `lo`, `hi` of the event). When a rank
//!    has nothing left to do locally, all ranks exchange their buffers in
//!    one all-to-all and apply what they received; rounds go on until a sum
//!    over all ranks says nobody sent anything;
//! 3. the **threshold sweep**, threshold by threshold over the thresholds
//!    some rank's unsettled positions hold (a sum of the value masks over
//!    all ranks): the scan of the rank's slice, then W and L events as in
//!    the acyclic pass, with the same exchange rounds (records: offset,
//!    kind, 0);
//! 4. the **finish**: every rank writes its slice as shard `r` of `P` into
//!    its own directory, rank 0 gathers the shards' infos (not their
//!    bytes) and sends them to all, and every rank writes the level's
//!    manifest.
//!
//! Values depend only on the game (the module comment of [`super`]), so the
//! shards merge into files byte-identical to a one-process build whatever
//! `P` and the order of events. A level is kept when every rank's shard
//! checks; a killed run restarted with the same command resumes at the
//! first level with a bad or missing shard, and keeps the good shards of
//! that level.
//!
//! Within a rank every pass runs on the rank's thread pool (`--threads`):
//! the forward pass as in one process, the acyclic pass, the sweep and the
//! received records in jobs of [`super::part`]'s workers. An error on any rank leaves the others waiting in a collective: the caller
//! stops the whole run ([`Comm::abort`]).

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use super::built::BuildEvent;
use super::cell::Cells;
use super::driver::{run_level, LevelPasses, Phase};
use super::events::Mode;
use super::frontier::DIRTY_CHUNK;
use super::level::{forward_cells, LevelBounds, Words};
use super::masks::{or_masks, value_masks, ValueMask};
use super::part::{Layout, Part};
use super::plan::{
    check_size_sharded as level_positions, plan_sharded, work_per_position, LevelPlan,
    OVERHEAD_BYTES,
};
use super::remote::{forward_remote, Lower, BLOCK};
use super::resume::{remove_single_file, shard_state, ShardState};
use crate::distributed::{process_cpu_secs, share, Comm};
use crate::game::Game;
use crate::games::packed::{packs, Word};
use crate::progress::Progress;
use crate::tables::error::TableError;
use crate::tables::format;
use crate::tables::set::TableSet;
use crate::tables::shard::{self, ShardInfo};
use crate::tables::table::Table;
use crate::value::LoopRule;

/// One rank's measurements of one level.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct RankReport {
    /// The rank.
    pub rank: usize,
    /// Positions of its slice.
    pub positions: u64,
    /// Seconds in the forward pass (no communication).
    pub forward_secs: f64,
    /// Seconds in the acyclic pass, exchanges included.
    pub kahn_secs: f64,
    /// Seconds in the sweep, exchanges included.
    pub sweep_secs: f64,
    /// Seconds of computation: the level's time less the time in
    /// collectives (exchanges, sums, gather — waiting for slower ranks
    /// included there).
    pub compute_secs: f64,
    /// Seconds in collectives.
    pub comm_secs: f64,
    /// CPU seconds of the computation: the process's CPU time (all its
    /// threads, [`process_cpu_secs`]) over the level less that spent in
    /// collectives. On a shared or oversubscribed machine this, not
    /// `compute_secs`, is the work done.
    pub compute_cpu_secs: f64,
    /// CPU seconds of the computation in the forward pass, the acyclic
    /// pass and the sweep (each less its collectives): where
    /// `compute_cpu_secs` goes (the rest is the level's setup and the
    /// finishing of its cells).
    pub phase_cpu_secs: [f64; 3],
    /// Bytes sent to other ranks in exchanges (update records only).
    pub bytes_sent: u64,
    /// Lower-level entries asked of other ranks in the forward pass (0
    /// when every rank holds every lower level whole).
    pub lookup_requests: u64,
    /// Bytes sent to other ranks for lower-level lookups: requests and
    /// answers.
    pub lookup_bytes: u64,
    /// All-to-alls of the lookups (two a block of the forward pass).
    pub lookup_rounds: u32,
    /// Update records sent to other ranks.
    pub records_sent: u64,
    /// Exchange rounds (all-to-alls) of the level.
    pub rounds: u32,
    /// Positions settled by the forward and acyclic passes in the slice.
    pub kahn_settled: u64,
    /// Bits of the word the level's boards were packed into: 64, or 128
    /// where 64 do not hold every board.
    pub word_bits: u32,
}

/// The measurements of one distributed level (at rank 0).
#[derive(Clone, Debug, serde::Serialize)]
pub struct DistLevelReport {
    /// Level.
    pub level: u32,
    /// Positions.
    pub positions: u64,
    /// Seconds from the start of the level to its file written and opened.
    pub total_secs: f64,
    /// Seconds rank 0 spent writing its shard.
    pub write_secs: f64,
    /// Every rank's measurements, by rank.
    pub ranks: Vec<RankReport>,
}

/// The plan of rank `r` of `p` in a distributed build up to `max`: per
/// level, the cells and frontiers of its slice (it writes its own shard
/// from them: no rank gathers another's bounds, so rank 0's plan is the
/// others'), the lower levels mapped (whole, or with `own_dirs`, each
/// rank in its own directory, its `1/p` share of them: [`super::remote`])
/// and the fixed overhead. An estimate like [`plan_sharded`]'s: the
/// exchange buffers of a round are not counted.
///
/// # Errors
/// A level too large for the sharded builders ([`plan_sharded`]).
pub fn rank_plan<G: Game>(
    max: u32,
    r: usize,
    (p, own_dirs): (usize, bool),
) -> Result<Vec<LevelPlan>, TableError> {
    let mut levels = plan_sharded::<G>(max)?;
    for l in &mut levels {
        let slice = share(l.positions, r, p);
        let mine = slice.end - slice.start;
        l.work_bytes = (work_per_position::<G>(l.level) * mine as f64) as u64;
        if own_dirs {
            l.lower_bytes = l.lower_bytes.div_ceil(p.max(1) as u64);
        }
        l.peak_bytes = l.work_bytes + l.lower_bytes + OVERHEAD_BYTES;
    }
    Ok(levels)
}

/// Per level, the plan of the rank with the largest peak ([`rank_plan`]):
/// what every rank checks against its budget, so that all refuse together.
///
/// # Errors
/// As [`rank_plan`].
pub fn worst_rank_plan<G: Game>(
    max: u32,
    (p, own_dirs): (usize, bool),
) -> Result<Vec<LevelPlan>, TableError> {
    let mut worst = rank_plan::<G>(max, 0, (p, own_dirs))?;
    for r in 1..p {
        for (w, l) in worst.iter_mut().zip(rank_plan::<G>(max, r, (p, own_dirs))?) {
            if l.peak_bytes > w.peak_bytes {
                *w = l;
            }
        }
    }
    Ok(worst)
}

/// Builds (or resumes) levels `0..=max` with every rank of `comm` (all
/// ranks call it with the same arguments), rank `r` in its directory `dir`
/// (one shared by all, or its own: [`crate::distributed::rank_dir`]). Each
/// rank writes its shard of each level ([`shard::write_shard_with`]) and
/// the level's manifest (rank 0 gathers only the shards' small infos and
/// sends them to all); no rank holds another's bounds. A level is kept
/// when on every rank its single file or this rank's shard checks
/// ([`shard::check_shard`]); otherwise it is built, and a rank whose shard
/// checks keeps it rather than writing it again. `on_level` is called at
/// rank 0 only, after each level, with the event and, for a built level,
/// its measurements.
///
/// The lower levels are read from the rank's own directory, mapped: each
/// whole when it is there (a shared directory), else this rank's own shard
/// of it, the other ranks' entries asked of them over `comm`
/// ([`super::remote`]): with node-local directories no rank holds more
/// than its share of any level.
///
/// # Errors
/// As [`super::build_tables`], and a lower level of which `dir` holds
/// neither the whole nor this rank's shard. An error leaves the other
/// ranks waiting: stop the run with [`Comm::abort`].
pub fn build_tables_distributed<G: Game>(
    comm: &dyn Comm,
    dir: &Path,
    rule: LoopRule,
    max: u32,
    bar: &dyn Progress,
    on_level: impl FnMut(&BuildEvent, Option<&DistLevelReport>),
) -> Result<(), TableError> {
    build_tables_distributed_with::<G>(comm, dir, rule, max, bar, on_level, false)
}

/// [`build_tables_distributed`]; with `wide`, every level's boards are
/// packed into 128 bits, even where 64 hold them (tests: the tables are
/// the same).
///
/// # Errors
/// As [`build_tables_distributed`].
pub(crate) fn build_tables_distributed_with<G: Game>(
    comm: &dyn Comm,
    dir: &Path,
    rule: LoopRule,
    max: u32,
    bar: &dyn Progress,
    mut on_level: impl FnMut(&BuildEvent, Option<&DistLevelReport>),
    wide: bool,
) -> Result<(), TableError> {
    for n in 0..=max {
        level_positions::<G>(n)?;
    }
    // Rank 0 locks and cleans a shared directory; a rank with its own, that
    // one ([`crate::tables::lock`]).
    let mut d0 = dir.as_os_str().as_encoded_bytes().to_vec();
    comm.broadcast(&mut d0);
    let _lock = if comm.rank() == 0 || d0 != dir.as_os_str().as_encoded_bytes() {
        Some(crate::tables::lock::BuildLock::acquire(
            dir,
            G::RULES,
            rule,
        )?)
    } else {
        None
    };
    let rules = G::RULES.tables();
    let mut lower = Lower::new(TableSet::empty(rules, rule), comm.rank());
    for n in 0..=max {
        let layout = Layout::even(level_positions::<G>(n)?, comm.size());
        let r = layout.range(comm.rank());
        let (p, me) = (comm.size() as u32, comm.rank() as u32);
        let state = shard_state::<G>(dir, rule, n, me, p, r.clone())?;
        let mut count = [state.is_bad() as u64, state.kept().is_some() as u64];
        comm.all_sum(&mut count);
        let report = if count[0] == 0 {
            // Every shard checks: the manifest is (re)written from them.
            if let (ShardState::Shard(info), true) = (&state, count[1] == p as u64) {
                write_manifest_everywhere::<G>(comm, dir, rule, n, info)?;
            }
            None
        } else {
            open_lower::<G>(dir, rule, (n, comm.size()), &mut lower)?;
            remove_single_file::<G>(dir, rule, n, &state)?;
            let args = (comm, dir, rule, (n, &layout), &lower, bar, state.kept());
            Some(if packs::<G, u64>(n) && !wide {
                build_level_distributed::<G, u64>(args)?
            } else {
                build_level_distributed::<G, u128>(args)?
            })
        };
        if comm.rank() == 0 {
            let ev = BuildEvent {
                level: n,
                skipped: report.is_none(),
                replaced: state.replaced(),
                report: None,
                ooc: None,
                compressed: None,
            };
            on_level(&ev, report.as_ref());
        }
    }
    Ok(())
}

/// Opens the levels below `n` not yet in `lower` from `dir`, mapped (the
/// ranks of a node share one page cache): each whole when it is complete
/// there, else this rank's shard of the level split over `p` ranks.
///
/// # Errors
/// A level of which `dir` holds neither, named, with what to do.
fn open_lower<G: Game>(
    dir: &Path,
    rule: LoopRule,
    (n, p): (u32, usize),
    lower: &mut Lower,
) -> Result<(), TableError> {
    let rules = G::RULES.tables();
    let me = lower.me();
    for k in lower.covered()..n {
        let path = format::level_path(dir, rules, rule, k);
        let whole = match Table::open(&path, rules, rule, k, G::PITS) {
            Ok(t) => {
                lower.push_whole(t);
                continue;
            }
            Err(e) => e,
        };
        let own = (me as u32, p as u32);
        match Table::open_own_shard(dir, rules, rule, k, own) {
            Ok(t) => lower.push_own(t, Layout::even(level_positions::<G>(k)?, p)),
            Err(e) => {
                return Err(TableError::Shards {
                    path: crate::tables::locate::level_source(dir, rules, rule, k),
                    what: format!(
                        "level {k} is in this rank's directory neither whole ({whole}) nor as \
                         its own shard {me} of {p} ({e}); building level {n} needs every lower \
                         level there, whole or as the rank's shard: rerun the build from level \
                         {k} with the same number of ranks, or copy the level's merged file in"
                    ),
                })
            }
        }
    }
    Ok(())
}

/// Rank 0 gathers every rank's shard info of level `n` and sends the list
/// to all; every rank writes the manifest into its directory.
fn write_manifest_everywhere<G: Game>(
    comm: &dyn Comm,
    dir: &Path,
    rule: LoopRule,
    n: u32,
    mine: &ShardInfo,
) -> Result<(), TableError> {
    let got = comm.gather(&serde_json::to_vec(mine).expect("an info serialises"));
    let mut all = Vec::new();
    if comm.rank() == 0 {
        let infos: Vec<ShardInfo> = got
            .iter()
            .map(|b| serde_json::from_slice(b).expect("an info of this build"))
            .collect();
        all = serde_json::to_vec(&infos).expect("infos serialise");
    }
    comm.broadcast(&mut all);
    let infos: Vec<ShardInfo> = serde_json::from_slice(&all).expect("infos of this build");
    shard::write_manifest(dir, G::RULES.tables(), rule, n, &infos)?;
    Ok(())
}

/// What [`build_level_distributed`] takes: the communicator, the rank's
/// directory, the loop rule, the level and its layout, the lower levels,
/// the progress bar, and the rank's shard when it is kept.
type LevelArgs<'x> = (
    &'x dyn Comm,
    &'x Path,
    LoopRule,
    (u32, &'x Layout),
    &'x Lower,
    &'x dyn Progress,
    Option<ShardInfo>,
);

/// Builds level `n` (split by `layout`, one part a rank) over all ranks,
/// its boards packed into `W`; each writes its shard (unless `kept`, its
/// good shard's info) and the manifest. Returns the measurements
/// (complete at rank 0; elsewhere this rank's only).
fn build_level_distributed<G: Game, W: Word>(
    (comm, dir, rule, (n, layout), lower, bar, kept): LevelArgs,
) -> Result<DistLevelReport, TableError> {
    let t0 = Instant::now();
    let size = layout.size();
    let mut rank = Rank::<G, W>::new(comm, Part::new(n, layout, comm.rank()));
    let mut words = Words::zeroed(rank.part.len(), true).map_err(|e| TableError::Io {
        path: dir.to_path_buf(),
        source: e,
    })?;
    bar.start(&format!("level {n}"), words.len() as u64);
    let most = (0..layout.parts()).map(|d| layout.range(d).end - layout.range(d).start);
    let blocks = (most.max().unwrap_or(0) as usize).div_ceil(BLOCK);
    run_level(
        &mut DistPasses {
            rank: &mut rank,
            words: &mut words,
            lower: (lower, rule),
            blocks,
            masks: (Vec::new(), Vec::new()),
            start: (0.0, 0.0),
        },
        bar,
    )?;
    let bounds = LevelBounds::finish(words);
    let report = rank.finish_report(t0);
    let tw = Instant::now();
    let info = match kept {
        Some(info) => info,
        None => {
            let r = layout.range(comm.rank());
            let (me, p) = (comm.rank() as u32, comm.size() as u32);
            let rules = G::RULES.tables();
            shard::write_shard_with(dir, rules, rule, n, shard::Place::new(me, p, r), &|i| {
                bounds.bounds(i)
            })?
        }
    };
    drop(bounds);
    let write_secs = tw.elapsed().as_secs_f64();
    let tc = Instant::now();
    write_manifest_everywhere::<G>(comm, dir, rule, n, &info)?;
    let reports = comm.gather(&serde_json::to_vec(&report).expect("a report serialises"));
    comm.barrier();
    let mut ranks: Vec<RankReport> = reports
        .iter()
        .map(|b| serde_json::from_slice(b).expect("a report of this build"))
        .collect();
    if ranks.is_empty() {
        ranks.push(report);
    }
    if let Some(r0) = ranks.first_mut() {
        r0.comm_secs += tc.elapsed().as_secs_f64();
    }
    Ok(DistLevelReport {
        level: n,
        positions: size,
        total_secs: t0.elapsed().as_secs_f64(),
        write_secs,
        ranks,
    })
}

/// This rank's part of a level and the exchanges with the others' (the
/// SPMD driver of [`Part`]'s steps), with its measurements.
struct Rank<'c, 'l, G: Game, W: Word> {
    comm: &'c dyn Comm,
    part: Part<'l, G, W>,
    report: RankReport,
    /// CPU seconds at the start of the level, and spent in collectives.
    cpu: (f64, f64),
}

impl<'c, 'l, G: Game, W: Word> Rank<'c, 'l, G, W> {
    fn new(comm: &'c dyn Comm, part: Part<'l, G, W>) -> Self {
        Rank {
            comm,
            report: RankReport {
                rank: comm.rank(),
                positions: part.len() as u64,
                word_bits: W::BITS,
                ..Default::default()
            },
            part,
            cpu: (process_cpu_secs(), 0.0),
        }
    }

    /// The forward pass over the slice: the one-process pass when every
    /// rank holds every lower level whole, else with lookups over the
    /// ranks ([`forward_remote`], `blocks` of them).
    ///
    /// # Errors
    /// As [`forward_remote`].
    fn forward(
        &mut self,
        words: &mut Words,
        (lower, rule): (&Lower, LoopRule),
        blocks: usize,
        bar: &dyn Progress,
    ) -> Result<(), TableError> {
        let dirty: Vec<_> = (0..words.len().div_ceil(DIRTY_CHUNK))
            .map(|_| AtomicBool::new(false))
            .collect();
        let (start, n) = (self.part.start(), self.part.n());
        let mut partial = [lower.partial() as u64];
        let (tc, c) = (Instant::now(), process_cpu_secs());
        self.comm.all_sum(&mut partial);
        self.collective_took(tc, c);
        if partial[0] == 0 {
            forward_cells::<G, W>(words, start, n, &lower.set, true, &dirty, bar);
        } else {
            let s = forward_remote::<G, W>(
                self.comm,
                (words, start, n),
                (lower, rule),
                (blocks, &dirty),
                bar,
            )?;
            self.report.lookup_requests = s.requests;
            self.report.lookup_bytes = s.bytes;
            self.report.lookup_rounds = s.rounds;
            self.report.comm_secs += s.comm.0;
            self.cpu.1 += s.comm.1;
        }
        // Every rank learns whether any met damage, so that all refuse the
        // level together rather than wait for one another.
        let mine = lower.damage();
        let mut damaged = [mine.is_some() as u64];
        self.comm.all_sum(&mut damaged);
        match (mine, damaged[0]) {
            (Some(e), _) => Err(e),
            (None, 0) => Ok(()),
            (None, k) => Err(TableError::Damaged {
                what: format!("{k} other rank(s) met damaged lower levels"),
            }),
        }
    }

    /// One exchange round: `None` when no rank had anything to send, else
    /// the records received, by sender.
    fn exchange(&mut self) -> Option<Vec<Vec<u8>>> {
        let (t, c) = (Instant::now(), process_cpu_secs());
        let mut sent = [self.part.out_bytes() as u64];
        self.comm.all_sum(&mut sent);
        let got = (sent[0] > 0).then(|| {
            self.report.rounds += 1;
            let recv = self.comm.all_to_all(&self.part.out);
            self.part.out.iter_mut().for_each(Vec::clear);
            recv
        });
        self.collective_took(t, c);
        got
    }

    /// The CPU clock and the CPU spent in collectives so far, at the start
    /// of a phase.
    fn phase_start(&self) -> (f64, f64) {
        (process_cpu_secs(), self.cpu.1)
    }

    /// The computation's CPU seconds since `start` ([`Self::phase_start`]),
    /// less those spent in collectives.
    fn phase_cpu(&self, start: (f64, f64)) -> f64 {
        process_cpu_secs() - start.0 - (self.cpu.1 - start.1)
    }

    /// Counts a collective that started at `t` with `c` CPU seconds used.
    fn collective_took(&mut self, t: Instant, c: f64) {
        self.report.comm_secs += t.elapsed().as_secs_f64();
        self.cpu.1 += process_cpu_secs() - c;
    }

    /// Exchange rounds under `mode` until no rank sends anything.
    fn rounds(&mut self, cells: Cells, mode: Mode) {
        while let Some(got) = self.exchange() {
            for b in got {
                self.part.receive(cells, &b, mode, &mut |_| {});
            }
        }
    }

    /// The thresholds any rank needs: the sums over all ranks of the value
    /// masks of their unsettled positions, as one count per bit, ORed back
    /// into masks.
    fn global_masks(&mut self, any: (&ValueMask, &ValueMask)) -> (ValueMask, ValueMask) {
        let mut v: Vec<u64> = [any.0, any.1]
            .iter()
            .flat_map(|m| (0..256).map(move |k| m[k / 64] >> (k % 64) & 1))
            .collect();
        let (t, c) = (Instant::now(), process_cpu_secs());
        self.comm.all_sum(&mut v);
        self.collective_took(t, c);
        let mask = |v: &[u64]| {
            let mut m = [0u64; 4];
            for (k, _) in v.iter().enumerate().filter(|x| *x.1 > 0) {
                m[k / 64] |= 1 << (k % 64);
            }
            m
        };
        (mask(&v[..256]), mask(&v[256..]))
    }

    /// The rank's report, with its computation time (the level's time so
    /// far less the time in collectives).
    fn finish_report(mut self, t0: Instant) -> RankReport {
        self.report.records_sent = self.part.records_sent;
        self.report.bytes_sent = self.part.bytes_sent;
        self.report.compute_secs = t0.elapsed().as_secs_f64() - self.report.comm_secs;
        self.report.compute_cpu_secs = process_cpu_secs() - self.cpu.0 - self.cpu.1;
        self.report
    }
}

/// A rank's part of a level as the passes of [`run_level`]: each pass
/// runs on the rank's slice, then exchange rounds until no rank sends
/// anything (every rank runs the same passes in the same order).
struct DistPasses<'r, 'c, 'l, G: Game, W: Word> {
    rank: &'r mut Rank<'c, 'l, G, W>,
    words: &'r mut Words,
    lower: (&'r Lower, LoopRule),
    blocks: usize,
    /// The chunk masks of the slice's unsettled positions' exit values
    /// (set by [`LevelPasses::masks`]).
    masks: (Vec<ValueMask>, Vec<ValueMask>),
    /// [`Rank::phase_start`] of the phase under way.
    start: (f64, f64),
}

impl<G: Game, W: Word> LevelPasses for DistPasses<'_, '_, '_, G, W> {
    fn level(&self) -> u32 {
        self.rank.part.n()
    }

    fn forward(&mut self, bar: &dyn Progress) -> Result<(), TableError> {
        self.start = self.rank.phase_start();
        self.rank.forward(self.words, self.lower, self.blocks, bar)
    }

    fn kahn(&mut self, _: &dyn Progress) -> Result<(), TableError> {
        self.start = self.rank.phase_start();
        let cells = self.words.cells();
        self.rank.part.kahn_local(cells, &mut |_| {});
        self.rank.rounds(cells, Mode::Kahn);
        Ok(())
    }

    fn masks(&mut self) -> (ValueMask, ValueMask) {
        self.start = self.rank.phase_start();
        let (lo, hi, settled) = value_masks(self.words, self.rank.part.n());
        self.rank.report.kahn_settled = settled;
        let any = (or_masks(&lo), or_masks(&hi));
        self.masks = (lo, hi);
        self.rank.global_masks((&any.0, &any.1))
    }

    fn threshold(&mut self, t: i32, _: &dyn Progress) -> Result<(), TableError> {
        let cells = self.words.cells();
        let masks = (&self.masks.0[..], &self.masks.1[..]);
        self.rank.part.scan_local(cells, masks, t, &mut |_| {});
        self.rank.rounds(cells, Mode::Threshold(t));
        Ok(())
    }

    fn took(&mut self, phase: Phase, secs: f64) {
        let cpu = self.rank.phase_cpu(self.start);
        let r = &mut self.rank.report;
        let (slot, i) = match phase {
            Phase::Forward => (&mut r.forward_secs, 0),
            Phase::Kahn => (&mut r.kahn_secs, 1),
            Phase::Sweep => (&mut r.sweep_secs, 2),
        };
        *slot = secs;
        r.phase_cpu_secs[i] = cpu;
    }
}

#[cfg(test)]
mod tests;
