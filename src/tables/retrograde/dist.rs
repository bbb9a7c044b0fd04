//! The distributed builder: the passes of [`super`] over `P` processes
//! that talk through a [`Comm`] (MPI under `mpirun`).
//!
//! Rank `r` owns the contiguous slice [`share`]`(size, r, P)` of a level's
//! rank range and holds the cells of that slice only. Every rank maps the
//! lower levels from the shared directory (mapped, not copied: the ranks of
//! a node share them in the page cache) and runs, on its slice:
//!
//! 1. the **forward pass** ([`super::level::forward_cells`], the one-process
//!    builder's, on the rank's threads);
//! 2. the **acyclic pass**: settled positions update their quiet
//!    predecessors with the builder's own event functions; an update of a
//!    predecessor in another rank's slice is appended to that rank's buffer
//!    (6 bytes: rank `u32`, then `lo`, `hi` of the event). When a rank has
//!    nothing left to do locally, all ranks exchange their buffers in one
//!    all-to-all and apply what they received; rounds go on until a sum
//!    over all ranks says nobody sent anything;
//! 3. the **threshold sweep**, threshold by threshold over the thresholds
//!    some rank's unsettled positions hold (a sum of the value masks over
//!    all ranks): the scan of the rank's slice, then W and L events as in
//!    the acyclic pass, with the same exchange rounds (6 bytes per update:
//!    rank, kind, 0);
//! 4. the **finish**: every rank's bound bytes are gathered at rank 0, which
//!    writes the file (header, checksum, exceptions) as the one-process
//!    builder does, then every rank opens it for the next level.
//!
//! Values depend only on the game (the module comment of [`super`]), so the
//! files are byte-identical to a one-process build whatever `P` and the
//! order of events. Rank 0 decides per level, as the one-process builder,
//! whether an existing file is kept (it opens and checks) or built, and
//! tells the others: a killed run restarted with the same command resumes
//! at the first level without a good file.
//!
//! Within a rank the acyclic pass and the sweep run on one thread (launch
//! one rank per core); the forward pass uses the rank's thread pool. An
//! error on any rank leaves the others waiting in a collective: the caller
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
    check_size_sharded as level_positions, existing, plan, BuildEvent, Existing, LevelPlan,
    CELL_BYTES, FRONTIER_BYTES, OVERHEAD_BYTES,
};
use crate::distributed::{owner, process_cpu_secs, share, Comm};
use crate::game::Game;
use crate::progress::Progress;
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
    /// Seconds rank 0 spent writing the file.
    pub write_secs: f64,
    /// Every rank's measurements, by rank.
    pub ranks: Vec<RankReport>,
}

/// The plan of rank `r` of `p` in a distributed build up to `max`: per
/// level, the cells and frontiers of its slice (it writes its own shard
/// from them: no rank gathers another's bounds, so rank 0's plan is the
/// others'), the lower levels mapped and the fixed overhead. An estimate
/// like [`plan`]'s: the exchange buffers of a round are not counted.
///
/// # Errors
/// A level too large for this tool (as [`plan`]).
pub fn rank_plan<G: Game>(max: u32, r: usize, p: usize) -> Result<Vec<LevelPlan>, TableError> {
    let mut levels = plan::<G>(max)?;
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

/// Builds (or resumes) levels `0..=max` in the shared directory `dir` with
/// every rank of `comm` (all ranks call it with the same arguments). Rank
/// 0 removes stale temporary files, decides per level whether the file
/// there is kept, and writes the files; `on_level` is called at rank 0 only,
/// after each level, with the event and, for a built level, its
/// measurements.
///
/// # Errors
/// As [`super::build_tables`]. An error leaves the other ranks waiting:
/// stop the run with [`Comm::abort`].
pub fn build_tables_distributed<G: Game>(
    comm: &dyn Comm,
    dir: &Path,
    rule: LoopRule,
    max: u32,
    bar: &dyn Progress,
    mut on_level: impl FnMut(&BuildEvent, Option<&DistLevelReport>),
) -> Result<TableSet, TableError> {
    plan::<G>(max)?;
    if comm.rank() == 0 {
        format::remove_stale_temps(dir)?;
    }
    let mut set = TableSet::empty(G::RULES.tables(), rule);
    for n in 0..=max {
        let path = format::level_path(dir, G::RULES.tables(), rule, n);
        let (mut decision, mut kept, mut replaced) = (Vec::new(), None, None);
        if comm.rank() == 0 {
            match existing::<G>(&path, rule, n)? {
                Existing::Kept(t) => kept = Some(t),
                Existing::Build(r) => replaced = r,
            }
            decision.push(kept.is_some() as u8);
        }
        comm.broadcast(&mut decision);
        let report = if decision[0] == 1 {
            None
        } else {
            Some(build_level_distributed::<G>(comm, dir, rule, n, &set, bar)?)
        };
        // Mapped, not copied: the ranks of a node share one page cache.
        set.push(match kept {
            Some(t) => t,
            None => Table::open(&path, G::RULES.tables(), rule, n, G::PITS)?,
        });
        if comm.rank() == 0 {
            let ev = BuildEvent {
                level: n,
                skipped: report.is_none(),
                replaced,
                report: None,
                ooc: None,
            };
            on_level(&ev, report.as_ref());
        }
    }
    Ok(set)
}

/// Builds level `n` over all ranks; rank 0 writes its file. Returns the
/// measurements (complete at rank 0; elsewhere this rank's only).
fn build_level_distributed<G: Game>(
    comm: &dyn Comm,
    dir: &Path,
    rule: LoopRule,
    n: u32,
    lower: &TableSet,
    bar: &dyn Progress,
) -> Result<DistLevelReport, TableError> {
    let t0 = Instant::now();
    let size = level_positions::<G>(n)?;
    let layout = Layout::even(size, comm.size());
    let mut rank = Rank::<G>::new(comm, Part::new(n, &layout, comm.rank()));
    let mut words = Words::zeroed(rank.part.len()).map_err(|e| TableError::Io {
        path: dir.to_path_buf(),
        source: e,
    })?;
    bar.start(&format!("level {n}"), words.len() as u64);
    rank.forward(&mut words, lower, bar);
    rank.kahn(cells(&mut words));
    rank.sweep(&mut words);
    let bounds = LevelBounds::finish(words);
    let mine: Vec<u8> = (0..bounds.len())
        .flat_map(|i| <[u8; 2]>::from(bounds.bounds(i)))
        .collect();
    drop(bounds);
    let report = rank.finish_report(t0);
    let tc = Instant::now();
    let write_secs = gather_and_write::<G>(comm, dir, rule, n, mine)?;
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
        r0.comm_secs += tc.elapsed().as_secs_f64() - write_secs;
    }
    Ok(DistLevelReport {
        level: n,
        positions: size,
        total_secs: t0.elapsed().as_secs_f64(),
        write_secs,
        ranks,
    })
}

/// Gathers every rank's bound bytes (`lo`, `hi` per position of its slice)
/// at rank 0, which writes level `n`'s file. Returns rank 0's seconds
/// writing (0 elsewhere).
fn gather_and_write<G: Game>(
    comm: &dyn Comm,
    dir: &Path,
    rule: LoopRule,
    n: u32,
    mine: Vec<u8>,
) -> Result<f64, TableError> {
    let all = comm.gather(&mine);
    drop(mine);
    if comm.rank() != 0 {
        return Ok(0.0);
    }
    // Read in place from the ranks' parts (no concatenated copy): position
    // `i` is in the part of its owner, at its offset in that slice.
    let len = all.iter().map(|a| a.len() / 2).sum::<usize>() as u64;
    let p = all.len();
    let tw = Instant::now();
    format::write_level_with(dir, G::RULES.tables(), rule, n, len as usize, &|i| {
        let r = owner(i as u64, len, p);
        let at = 2 * (i as u64 - share(len, r, p).start) as usize;
        (all[r][at], all[r][at + 1])
    })?;
    Ok(tw.elapsed().as_secs_f64())
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
        let one = plan::<crate::Adjito>(16).unwrap();
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

    /// The files of a build of levels `0..=max` in `dir`, by name.
    fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
        let mut v: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                (
                    e.file_name().to_string_lossy().into_owned(),
                    std::fs::read(e.path()).unwrap(),
                )
            })
            .collect();
        v.sort();
        v
    }

    fn same_as_one_process<G: Game>(max: u32, rule: LoopRule) {
        let one = tempfile::tempdir().unwrap();
        super::super::build_tables::<G>(one.path(), rule, max, &NoProgress, |_| {}).unwrap();
        let want = files(one.path());
        for p in 1..=3 {
            let d = tempfile::tempdir().unwrap();
            let reports = LocalComm::run(p, |c| {
                let mut built = Vec::new();
                build_tables_distributed::<G>(c, d.path(), rule, max, &NoProgress, |_, r| {
                    built.extend(r.cloned())
                })
                .unwrap();
                built
            });
            assert_eq!(files(d.path()), want, "{} P={p} {rule:?}", G::ID);
            let top = reports[0].last().expect("rank 0 reports each level");
            assert_eq!(top.ranks.len(), p);
            let sent: u64 = top.ranks.iter().map(|r| r.bytes_sent).sum();
            assert_eq!(sent > 0, p > 1, "updates cross slices only with P > 1");
        }
    }

    #[test]
    fn distributed_builds_are_byte_identical_to_one_process() {
        for rule in [LoopRule::Start, LoopRule::Even] {
            same_as_one_process::<Adjito>(9, rule);
            same_as_one_process::<AdjiBoto>(11, rule);
        }
    }

    #[test]
    fn a_resumed_distributed_build_keeps_the_finished_levels() {
        let d = tempfile::tempdir().unwrap();
        let rule = LoopRule::Start;
        LocalComm::run(2, |c| {
            build_tables_distributed::<Adjito>(c, d.path(), rule, 5, &NoProgress, |_, _| {})
                .unwrap();
        });
        let path5 = format::level_path(d.path(), Adjito::RULES, rule, 5);
        std::fs::write(&path5, b"ADJITBL\0 cut short").unwrap();
        let kept = LocalComm::run(2, |c| {
            let mut kept = Vec::new();
            build_tables_distributed::<Adjito>(c, d.path(), rule, 7, &NoProgress, |e, _| {
                kept.push((e.level, e.skipped, e.replaced.is_some()))
            })
            .unwrap();
            kept
        });
        let want: Vec<_> = (0..=7).map(|n| (n, n < 5, n == 5)).collect();
        assert_eq!(kept[0], want);
        let one = tempfile::tempdir().unwrap();
        super::super::build_tables::<Adjito>(one.path(), rule, 7, &NoProgress, |_| {}).unwrap();
        assert_eq!(files(d.path()), files(one.path()));
    }
}
