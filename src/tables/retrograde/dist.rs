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

use super::cell::{cells, Cell};
use super::events::Mode;
use super::frontier::DIRTY_CHUNK;
use super::level::{forward_cells, value_masks, LevelBounds, ValueMask, Words};
use super::part::{needs_scan, or_masks, Layout, Part};
use super::{
    check_size_sharded as level_positions, plan_sharded, remove_single_file, shard_state,
    BuildEvent, LevelPlan, ShardState, CELL_BYTES, FRONTIER_BYTES, OVERHEAD_BYTES,
};
use crate::distributed::{process_cpu_secs, share, Comm};
use crate::game::Game;
use crate::progress::Progress;
use crate::tables::shard::{self, ShardInfo};
use crate::tables::{format, Table, TableError, TableSet};
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
    /// Bytes sent to other ranks in exchanges (update records only).
    pub bytes_sent: u64,
    /// Update records sent to other ranks.
    pub records_sent: u64,
    /// Exchange rounds (all-to-alls) of the level.
    pub rounds: u32,
    /// Positions settled by the forward and acyclic passes in the slice.
    pub kahn_settled: u64,
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
/// others'), the lower levels mapped and the fixed overhead. An estimate
/// like [`plan_sharded`]'s: the exchange buffers of a round are not counted.
///
/// # Errors
/// A level too large for the sharded builders ([`plan_sharded`]).
pub fn rank_plan<G: Game>(max: u32, r: usize, p: usize) -> Result<Vec<LevelPlan>, TableError> {
    let mut levels = plan_sharded::<G>(max)?;
    for l in &mut levels {
        let slice = share(l.positions, r, p);
        let mine = slice.end - slice.start;
        l.work_bytes = ((CELL_BYTES + FRONTIER_BYTES) * mine as f64) as u64;
        l.peak_bytes = l.work_bytes + l.lower_bytes + OVERHEAD_BYTES;
    }
    Ok(levels)
}

/// Per level, the plan of the rank with the largest peak ([`rank_plan`]):
/// what every rank checks against its budget, so that all refuse together.
///
/// # Errors
/// As [`rank_plan`].
pub fn worst_rank_plan<G: Game>(max: u32, p: usize) -> Result<Vec<LevelPlan>, TableError> {
    let mut worst = rank_plan::<G>(max, 0, p)?;
    for r in 1..p {
        for (w, l) in worst.iter_mut().zip(rank_plan::<G>(max, r, p)?) {
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
/// The lower levels are read from the rank's own directory, mapped: until
/// lower-level lookups go to the rank that holds them, every rank must
/// have every lower level complete there (a shared directory, or a copy
/// of the levels in each), else the build stops naming the level missing.
/// The set returned holds the levels below `max` opened so far.
///
/// # Errors
/// As [`super::build_tables`], and a lower level incomplete in `dir`. An
/// error leaves the other ranks waiting: stop the run with
/// [`Comm::abort`].
pub fn build_tables_distributed<G: Game>(
    comm: &dyn Comm,
    dir: &Path,
    rule: LoopRule,
    max: u32,
    bar: &dyn Progress,
    mut on_level: impl FnMut(&BuildEvent, Option<&DistLevelReport>),
) -> Result<TableSet, TableError> {
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
    let mut set = TableSet::empty(rules, rule);
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
            open_lower::<G>(dir, rule, n, &mut set)?;
            remove_single_file::<G>(dir, rule, n, &state)?;
            Some(build_level_distributed::<G>(
                comm,
                dir,
                rule,
                (n, &layout),
                &set,
                bar,
                state.kept(),
            )?)
        };
        if comm.rank() == 0 {
            let ev = BuildEvent {
                level: n,
                skipped: report.is_none(),
                replaced: state.replaced(),
                report: None,
                ooc: None,
            };
            on_level(&ev, report.as_ref());
        }
    }
    Ok(set)
}

/// Opens the levels below `n` not yet in `set` from `dir`, mapped (the
/// ranks of a node share one page cache).
///
/// # Errors
/// A level that is not complete in `dir`, named, with what to do.
fn open_lower<G: Game>(
    dir: &Path,
    rule: LoopRule,
    n: u32,
    set: &mut TableSet,
) -> Result<(), TableError> {
    let rules = G::RULES.tables();
    for k in set.covered()..n {
        let path = format::level_path(dir, rules, rule, k);
        match Table::open(&path, rules, rule, k, G::PITS) {
            Ok(t) => set.push(t),
            Err(e) => {
                return Err(TableError::Shards {
                    path: shard::level_source(dir, rules, rule, k),
                    what: format!(
                        "level {k} is not complete in this rank's directory ({e}); building \
                         level {n} needs every lower level readable by every rank: use one \
                         shared directory, or copy every shard of level {k} (or its merged \
                         file) into each rank's directory"
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

/// Builds level `n` (split by `layout`, one part a rank) over all ranks;
/// each writes its shard (unless `kept`, its good shard's info) and the
/// manifest. Returns the measurements (complete at rank 0; elsewhere this
/// rank's only).
fn build_level_distributed<G: Game>(
    comm: &dyn Comm,
    dir: &Path,
    rule: LoopRule,
    (n, layout): (u32, &Layout),
    lower: &TableSet,
    bar: &dyn Progress,
    kept: Option<ShardInfo>,
) -> Result<DistLevelReport, TableError> {
    let t0 = Instant::now();
    let size = layout.size();
    let mut rank = Rank::<G>::new(comm, Part::new(n, layout, comm.rank()));
    let mut words = Words::zeroed(rank.part.len()).map_err(|e| TableError::Io {
        path: dir.to_path_buf(),
        source: e,
    })?;
    bar.start(&format!("level {n}"), words.len() as u64);
    rank.forward(&mut words, lower, bar);
    rank.kahn(cells(&mut words));
    rank.sweep(&mut words);
    let bounds = LevelBounds::finish(words);
    let report = rank.finish_report(t0);
    let tw = Instant::now();
    let info = match kept {
        Some(info) => info,
        None => {
            let r = layout.range(comm.rank());
            let (me, p) = (comm.rank() as u32, comm.size() as u32);
            let rules = G::RULES.tables();
            shard::write_shard_with(dir, rules, rule, n, me, p, r.start, r.end - r.start, &|i| {
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
struct Rank<'c, 'l, G: Game> {
    comm: &'c dyn Comm,
    part: Part<'l, G>,
    report: RankReport,
    /// CPU seconds at the start of the level, and spent in collectives.
    cpu: (f64, f64),
}

impl<'c, 'l, G: Game> Rank<'c, 'l, G> {
    fn new(comm: &'c dyn Comm, part: Part<'l, G>) -> Self {
        Rank {
            comm,
            report: RankReport {
                rank: comm.rank(),
                positions: part.len() as u64,
                ..Default::default()
            },
            part,
            cpu: (process_cpu_secs(), 0.0),
        }
    }

    /// The forward pass over the slice.
    fn forward(&mut self, words: &mut Words, lower: &TableSet, bar: &dyn Progress) {
        let t = Instant::now();
        let dirty: Vec<_> = (0..words.len().div_ceil(DIRTY_CHUNK))
            .map(|_| AtomicBool::new(false))
            .collect();
        forward_cells::<G>(
            words,
            self.part.start(),
            self.part.n(),
            lower,
            true,
            &dirty,
            bar,
        );
        self.report.forward_secs = t.elapsed().as_secs_f64();
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

    /// Counts a collective that started at `t` with `c` CPU seconds used.
    fn collective_took(&mut self, t: Instant, c: f64) {
        self.report.comm_secs += t.elapsed().as_secs_f64();
        self.cpu.1 += process_cpu_secs() - c;
    }

    /// Exchange rounds under `mode` until no rank sends anything.
    fn rounds(&mut self, cells: &[Cell], mode: Mode) {
        while let Some(got) = self.exchange() {
            for b in got {
                self.part.receive(cells, &b, mode, &mut |_| {});
            }
        }
    }

    /// The acyclic pass, from the positions the forward pass settled.
    fn kahn(&mut self, cells: &[Cell]) {
        let t = Instant::now();
        self.part.kahn_local(cells, &mut |_| {});
        self.rounds(cells, Mode::Kahn);
        self.report.kahn_secs = t.elapsed().as_secs_f64();
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

    /// The threshold sweep over the slice.
    fn sweep(&mut self, words: &mut Words) {
        let t0 = Instant::now();
        let n = self.part.n();
        let (mask_lo, mask_hi, settled) = value_masks(words, n);
        self.report.kahn_settled = settled;
        let (glo, ghi) = self.global_masks((&or_masks(&mask_lo), &or_masks(&mask_hi)));
        let cells = cells(words);
        let ni = n as i32;
        for t in (-ni..=ni).rev() {
            if !needs_scan(&glo, &ghi, t, n) {
                continue;
            }
            self.part
                .scan_local(cells, (&mask_lo, &mask_hi), t, &mut |_| {});
            self.rounds(cells, Mode::Threshold(t));
        }
        self.report.sweep_secs = t0.elapsed().as_secs_f64();
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

#[cfg(test)]
mod tests {
    /// Per-rank plans: the slices' cells add up to the one-process level's,
    /// rank 0 needs no more than the others, and the worst plan is each
    /// level's largest peak over the ranks.
    #[test]
    fn rank_plans_split_the_level_and_the_worst_is_the_largest() {
        let one = super::super::plan::<crate::Adjito>(16).unwrap();
        for p in 1..=3 {
            let plans: Vec<_> = (0..p)
                .map(|r| rank_plan::<crate::Adjito>(16, r, p).unwrap())
                .collect();
            let worst = worst_rank_plan::<crate::Adjito>(16, p).unwrap();
            for (n, l) in one.iter().enumerate() {
                let cells = plans.iter().map(|pl| pl[n].work_bytes).sum::<u64>();
                assert!(
                    cells.abs_diff(l.work_bytes) <= p as u64,
                    "level {n}, {p} ranks"
                );
                let peak = plans.iter().map(|pl| pl[n].peak_bytes).max();
                assert_eq!(Some(worst[n].peak_bytes), peak);
                assert!(plans[0][n].peak_bytes <= plans[p - 1][n].peak_bytes + 5);
            }
        }
    }

    use super::*;
    use crate::distributed::LocalComm;
    use crate::progress::NoProgress;
    use crate::{AdjiBoto, Adjito};
    use std::path::PathBuf;

    /// The single-file level `n` that the shards of `dirs` merge into.
    pub(crate) fn merged<G: Game>(dirs: &[PathBuf], rule: LoopRule, n: u32) -> Vec<u8> {
        let out = tempfile::tempdir().unwrap();
        shard::merge_level(dirs, out.path(), G::RULES.tables(), rule, n).unwrap();
        std::fs::read(format::level_path(out.path(), G::RULES.tables(), rule, n)).unwrap()
    }

    /// The one-process file of level `n` in `dir`.
    fn file<G: Game>(dir: &Path, rule: LoopRule, n: u32) -> Vec<u8> {
        std::fs::read(format::level_path(dir, G::RULES.tables(), rule, n)).unwrap()
    }

    /// Builds levels `0..=max` over `p` ranks, rank `r` in `dirs[r]`;
    /// returns rank 0's reports of the levels built.
    fn build_over<G: Game>(dirs: &[PathBuf], rule: LoopRule, max: u32) -> Vec<DistLevelReport> {
        let reports = LocalComm::run(dirs.len(), |c| {
            let mut built = Vec::new();
            build_tables_distributed::<G>(c, &dirs[c.rank()], rule, max, &NoProgress, |_, r| {
                built.extend(r.cloned())
            })
            .unwrap();
            built
        });
        reports.into_iter().next().unwrap()
    }

    /// With `P` = 1..4 ranks, in one shared directory and in one directory
    /// per rank (each holding a copy of the lower levels), the merged
    /// shards are the one-process files byte for byte.
    fn same_as_one_process<G: Game>(max: u32, rule: LoopRule) {
        let one = tempfile::tempdir().unwrap();
        super::super::build_tables::<G>(one.path(), rule, max, &NoProgress, |_| {}).unwrap();
        for p in 1..=4 {
            let d = tempfile::tempdir().unwrap();
            let reports = build_over::<G>(&vec![d.path().to_path_buf(); p], rule, max);
            for n in 0..=max {
                let got = merged::<G>(&[d.path().to_path_buf()], rule, n);
                assert!(
                    got == file::<G>(one.path(), rule, n),
                    "{} P={p} {rule:?} level {n}",
                    G::ID
                );
            }
            let top = reports.last().expect("rank 0 reports each level");
            assert_eq!(top.ranks.len(), p);
            let sent: u64 = top.ranks.iter().map(|r| r.bytes_sent).sum();
            assert_eq!(sent > 0, p > 1, "updates cross slices only with P > 1");
            // One directory per rank, each with the lower levels.
            let own: Vec<_> = (0..p).map(|_| tempfile::tempdir().unwrap()).collect();
            let dirs: Vec<PathBuf> = own.iter().map(|t| t.path().to_path_buf()).collect();
            for d in &dirs {
                for n in 0..max {
                    let f = format::level_path(one.path(), G::RULES.tables(), rule, n);
                    std::fs::copy(&f, d.join(f.file_name().unwrap())).unwrap();
                }
            }
            build_over::<G>(&dirs, rule, max);
            for (r, d) in dirs.iter().enumerate() {
                let mine = shard::shard_path(d, G::RULES.tables(), rule, max, r as u32, p as u32);
                assert!(mine.exists(), "rank {r} wrote its shard into its directory");
            }
            let got = merged::<G>(&dirs, rule, max);
            assert!(
                got == file::<G>(one.path(), rule, max),
                "{} P={p} per-rank dirs",
                G::ID
            );
        }
    }

    #[test]
    fn distributed_builds_are_byte_identical_to_one_process() {
        for rule in [LoopRule::Start, LoopRule::Even] {
            same_as_one_process::<Adjito>(9, rule);
            same_as_one_process::<AdjiBoto>(11, rule);
        }
        same_as_one_process::<crate::adjito::AdjitoMustReach>(9, LoopRule::Start);
    }

    /// Ranks running every pass on pools of 1 and of 3 threads (a pool a
    /// rank, as under MPI) write shards that merge into the one-process
    /// files, for P = 2 and 3.
    fn same_on_threads<G: Game>(max: u32, rule: LoopRule) {
        let one = tempfile::tempdir().unwrap();
        super::super::build_tables::<G>(one.path(), rule, max, &NoProgress, |_| {}).unwrap();
        for (threads, p) in [(1, 2), (1, 3), (3, 2), (3, 3)] {
            let d = tempfile::tempdir().unwrap();
            LocalComm::run(p, |c| {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(threads);
                pool.build().unwrap().install(|| {
                    build_tables_distributed::<G>(c, d.path(), rule, max, &NoProgress, |_, _| {})
                        .unwrap()
                })
            });
            for n in 0..=max {
                let got = merged::<G>(&[d.path().to_path_buf()], rule, n);
                let want = file::<G>(one.path(), rule, n);
                assert!(
                    got == want,
                    "{} {rule:?} P={p} T={threads} level {n}",
                    G::ID
                );
            }
        }
    }

    #[test]
    fn ranks_on_several_threads_are_byte_identical_to_one_process() {
        for rule in [LoopRule::Start, LoopRule::Even] {
            same_on_threads::<Adjito>(8, rule);
            same_on_threads::<AdjiBoto>(10, rule);
        }
    }

    #[test]
    fn a_rank_without_a_lower_level_stops_naming_it() {
        let own: Vec<_> = (0..2).map(|_| tempfile::tempdir().unwrap()).collect();
        let dirs: Vec<PathBuf> = own.iter().map(|t| t.path().to_path_buf()).collect();
        let errs = LocalComm::run(2, |c| {
            build_tables_distributed::<Adjito>(
                c,
                &dirs[c.rank()],
                LoopRule::Start,
                3,
                &NoProgress,
                |_, _| {},
            )
            .map(|_| ())
            .unwrap_err()
            .to_string()
        });
        for e in errs {
            assert!(e.contains("level 0 is not complete"), "{e}");
            assert!(
                e.contains("every lower level readable by every rank"),
                "{e}"
            );
        }
    }

    #[test]
    fn a_resumed_distributed_build_rebuilds_only_the_bad_shards_level() {
        use std::os::unix::fs::MetadataExt;
        let d = tempfile::tempdir().unwrap();
        let rule = LoopRule::Start;
        let rules = Adjito::RULES.tables();
        LocalComm::run(2, |c| {
            build_tables_distributed::<Adjito>(c, d.path(), rule, 5, &NoProgress, |_, _| {})
                .unwrap();
        });
        let s0 = shard::shard_path(d.path(), rules, rule, 5, 0, 2);
        let s1 = shard::shard_path(d.path(), rules, rule, 5, 1, 2);
        let ino = std::fs::metadata(&s0).unwrap().ino();
        let mut bytes = std::fs::read(&s1).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 0x40;
        std::fs::write(&s1, bytes).unwrap();
        let kept = LocalComm::run(2, |c| {
            let mut kept = Vec::new();
            build_tables_distributed::<Adjito>(c, d.path(), rule, 7, &NoProgress, |e, _| {
                kept.push((e.level, e.skipped))
            })
            .unwrap();
            kept
        });
        let want: Vec<_> = (0..=7).map(|n| (n, n != 5 && n < 6)).collect();
        assert_eq!(kept[0], want);
        assert_eq!(
            std::fs::metadata(&s0).unwrap().ino(),
            ino,
            "the good shard is kept"
        );
        let one = tempfile::tempdir().unwrap();
        super::super::build_tables::<Adjito>(one.path(), rule, 7, &NoProgress, |_| {}).unwrap();
        for n in 0..=7 {
            let got = merged::<Adjito>(&[d.path().to_path_buf()], rule, n);
            assert!(got == file::<Adjito>(one.path(), rule, n), "level {n}");
        }
    }
}
