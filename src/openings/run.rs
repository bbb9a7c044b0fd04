//! The run: enumerate the tree, open the checkpoint, analyse in parallel
//! what it lacks (one caller-made state per worker thread, e.g. a hash
//! table), record each result durably as it comes, back the results up and
//! write the outputs. Any failure stops the analysis and writes no output.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use rayon::prelude::*;

use crate::distributed::Comm;
use crate::game::{Game, Position, State};
use crate::progress::{NoProgress, Progress};
use crate::records::{Checkpoint, Loaded, ResultRecord};
use crate::value::LoopRule;

use super::checkpoint::{self, to_record};
use super::{backup, enumerate, report, LeafResult, OpeningsError, Tree};

/// How each position is analysed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Budget {
    /// Exact values, however long it takes.
    Exact,
    /// At most this many seconds per position.
    Seconds(f64),
    /// At most about this many nodes per position.
    Nodes(u64),
    /// Plain minimax to this many plies per position: proven bounds.
    Depth(u32),
    /// This many seconds per position: half for the exact search, and where
    /// that leaves the value open, half for the estimate engine.
    Estimate(f64),
}

impl Budget {
    /// A description stored in the checkpoint and the summary.
    pub fn describe(&self) -> String {
        match self {
            Budget::Exact => "exact".into(),
            Budget::Seconds(s) => format!("{s} s per position"),
            Budget::Nodes(n) => format!("{n} nodes per position"),
            Budget::Depth(d) => format!("depth {d} per position (bounds from plain minimax)"),
            Budget::Estimate(s) => format!(
                "{s} s per position: exact search, then estimates where the value is not exact"
            ),
        }
    }
}

/// Settings of a run.
#[derive(Clone, Debug)]
pub struct Config {
    /// The root (normally the start).
    pub root: State,
    /// Plies.
    pub plies: u32,
    /// Loop rule.
    pub rule: LoopRule,
    /// Budget.
    pub budget: Budget,
    /// The command line, for the summary.
    pub command: String,
    /// A description of the tables used, for the summary.
    pub tables: String,
    /// Write wall-clock times (off: byte-identical outputs across runs).
    pub timings: bool,
    /// Test hook: stop after this many new results, as if killed.
    pub stop_after: Option<usize>,
    /// The most tree nodes to enumerate (see [`super::max_nodes_for`]).
    pub max_nodes: usize,
}

impl Config {
    /// A run of `plies` from `root` with at most `max_nodes` tree nodes;
    /// timings on, no command or tables described, no test hook.
    pub fn new(root: State, plies: u32, rule: LoopRule, budget: Budget, max_nodes: usize) -> Self {
        Config {
            root,
            plies,
            rule,
            budget,
            command: String::new(),
            tables: "none".into(),
            timings: true,
            stop_after: None,
            max_nodes,
        }
    }
}

/// What a finished run reports.
#[derive(Clone, Debug)]
pub struct Report {
    /// The backed-up tree.
    pub tree: Tree,
    /// Positions analysed in this run (not taken from the checkpoint).
    pub analysed_now: usize,
    /// Bytes of a bad checkpoint tail dropped on resume.
    pub dropped_bytes: u64,
    /// Where that tail began in the checkpoint, if one was dropped (a
    /// one-process run; a distributed run reports only the bytes).
    pub dropped_from: Option<u64>,
    /// Files written.
    pub files: Vec<PathBuf>,
}

/// Why a worker's state could not be made (e.g. a hash table allocation).
pub type WorkerError = Box<dyn std::error::Error + Send + Sync>;

/// Runs the analysis into `out`: analyses what the checkpoint lacks (in
/// parallel), backs the results up and writes the outputs.
///
/// Each worker thread makes one state with `init` when it first needs one
/// and passes it to `analyse` for every position it takes (a worker that
/// re-enters while its state is in use gets a fresh one). `analyse` must
/// give a position the same result whatever the state held before (clear a
/// reused hash table first), or resumed runs differ from uninterrupted ones.
///
/// # Errors
/// [`OpeningsError`]: the tree is too large, checkpoint or output trouble
/// (a record that cannot be written stops the analysis), a worker's state
/// cannot be made, or the test hook stopped the run. No output is written then.
pub fn run<G: Game, S: Send>(
    cfg: &Config,
    out: &Path,
    resume: bool,
    init: impl Fn() -> Result<S, WorkerError> + Sync,
    analyse: impl Fn(&mut S, &Position) -> Result<LeafResult, WorkerError> + Sync,
    progress: &dyn Progress,
) -> Result<Report, OpeningsError> {
    let t0 = Instant::now();
    let tree = enumerate::<G>(cfg.root, cfg.plies, cfg.max_nodes)?;
    let io = |e| OpeningsError::Io(out.to_path_buf(), e);
    crate::fsutil::create_dir_all(out).map_err(io)?;
    crate::fsutil::remove_stale_temps(out).map_err(io)?;
    let loaded = checkpoint::open::<G>(cfg, out, resume)?;
    let workers = Workers::new(init, analyse);
    finish::<G, S>(cfg, out, tree, loaded, &workers, progress, t0)
}

/// Completes a run whose tree is enumerated and checkpoint opened.
fn finish<G: Game, S: Send>(
    cfg: &Config,
    out: &Path,
    tree: Tree,
    loaded: Loaded,
    workers: &Workers<S, impl Init<S>, impl Analyse<S>>,
    progress: &dyn Progress,
    t0: Instant,
) -> Result<Report, OpeningsError> {
    let mut results = vec![None; tree.unique.len()];
    fill::<G>(
        &tree,
        &mut results,
        loaded.checkpoint.path(),
        &loaded.records,
    )?;
    let run = Analysis {
        cfg,
        unique: &tree.unique,
        checkpoint: &loaded.checkpoint,
        progress,
    };
    let analysed_now = run.missing(&mut results, workers)?;
    let dropped = (loaded.dropped_bytes, loaded.dropped_from);
    conclude::<G>(cfg, out, tree, results, analysed_now, dropped, t0)
}

/// Backs the results up the tree and writes the outputs, when every unique
/// position has one.
fn conclude<G: Game>(
    cfg: &Config,
    out: &Path,
    mut tree: Tree,
    results: Vec<Option<LeafResult>>,
    analysed_now: usize,
    (dropped_bytes, dropped_from): (u64, Option<u64>),
    t0: Instant,
) -> Result<Report, OpeningsError> {
    let Some(results) = results.into_iter().collect::<Option<Vec<_>>>() else {
        return Err(OpeningsError::Interrupted(analysed_now));
    };
    backup::<G>(&mut tree, &results, cfg.rule);
    let wall = cfg.timings.then(|| t0.elapsed().as_secs_f64());
    let files = report::write::<G>(cfg, &tree, &results, out, wall)?;
    Ok(Report {
        tree,
        analysed_now,
        dropped_bytes,
        dropped_from,
        files,
    })
}

/// Fills in `results` from `records`, read from the checkpoint at `path`.
///
/// # Errors
/// The first record no analysis of `tree` writes.
fn fill<G: Game>(
    tree: &Tree,
    results: &mut [Option<LeafResult>],
    path: &Path,
    records: &[ResultRecord],
) -> Result<(), OpeningsError> {
    for c in checkpoint::checked::<G>(tree, path, records) {
        let (u, r) = c?;
        results[u] = Some(r);
    }
    Ok(())
}

/// Runs the analysis over the ranks of `comm` (every rank calls it with the
/// same arguments). Rank 0 reads every rank checkpoint in `out`
/// (`checkpoint.rank-R.bin`, removed first unless `resume`) and deals the
/// unique positions they lack, one at a time, to the ranks that ask for
/// work; ranks 1.. analyse them one at a time with one state each and
/// record every result durably in their own checkpoint. Alone (one rank),
/// rank 0 analyses everything itself as [`run`] does, into its rank
/// checkpoint. At the end rank 0 reads every rank checkpoint again, backs
/// the results up and writes the outputs, which depend only on the results:
/// the same files as [`run`]'s (with timings off). A run killed on any rank
/// and restarted with `resume` analyses only what no checkpoint holds.
/// Returns the report at rank 0, `None` elsewhere.
///
/// # Errors
/// As [`run`]. An error on one rank leaves the others waiting: stop the
/// whole run ([`Comm::abort`]).
pub fn run_distributed<G: Game, S: Send>(
    comm: &dyn Comm,
    cfg: &Config,
    out: &Path,
    resume: bool,
    init: impl Fn() -> Result<S, WorkerError> + Sync,
    analyse: impl Fn(&mut S, &Position) -> Result<LeafResult, WorkerError> + Sync,
    progress: &dyn Progress,
) -> Result<Option<Report>, OpeningsError> {
    let t0 = Instant::now();
    let tree = enumerate::<G>(cfg.root, cfg.plies, cfg.max_nodes)?;
    let (rank, size) = (comm.rank(), comm.size());
    if rank == 0 {
        prepare_out(out, resume)?;
    }
    comm.barrier();
    let loaded = (size == 1 || rank > 0)
        .then(|| checkpoint::open_rank::<G>(cfg, out, resume, rank))
        .transpose()?;
    let mut dropped = [loaded.as_ref().map_or(0, |l| l.dropped_bytes)];
    // Also the point after which every rank checkpoint is open and clean.
    comm.all_sum(&mut dropped);
    let mut results = vec![None; tree.unique.len()];
    if rank == 0 {
        fill_from_ranks::<G>(cfg, out, &tree, &mut results)?;
    }
    let workers = Workers::new(init, analyse);
    let run = |checkpoint, progress| Analysis {
        cfg,
        unique: &tree.unique,
        checkpoint,
        progress,
    };
    let analysed_now = match &loaded {
        Some(l) if size == 1 => run(&l.checkpoint, progress).missing(&mut results, &workers)?,
        Some(l) => work(comm, &run(&l.checkpoint, &NoProgress), &workers)?,
        None => deal(comm, cfg, &results, progress),
    };
    comm.barrier();
    if rank != 0 {
        return Ok(None);
    }
    fill_from_ranks::<G>(cfg, out, &tree, &mut results)?;
    let dropped = (dropped[0], None);
    conclude::<G>(cfg, out, tree, results, analysed_now, dropped, t0).map(Some)
}

/// Makes `out`, removes stale temporary files and, unless resuming, the
/// rank checkpoints of an earlier run.
fn prepare_out(out: &Path, resume: bool) -> Result<(), OpeningsError> {
    let io = |p: &Path| {
        let p = p.to_path_buf();
        move |e| OpeningsError::Io(p, e)
    };
    crate::fsutil::create_dir_all(out).map_err(io(out))?;
    crate::fsutil::remove_stale_temps(out).map_err(io(out))?;
    if !resume {
        for p in checkpoint::rank_files(out)? {
            std::fs::remove_file(&p).map_err(io(&p))?;
        }
    }
    Ok(())
}

/// Fills in `results` from every rank checkpoint in `out`.
fn fill_from_ranks<G: Game>(
    cfg: &Config,
    out: &Path,
    tree: &Tree,
    results: &mut [Option<LeafResult>],
) -> Result<(), OpeningsError> {
    for p in checkpoint::rank_files(out)? {
        fill::<G>(tree, results, &p, &checkpoint::records::<G>(cfg, &p)?)?;
    }
    Ok(())
}

/// The message "no position": a worker's first request, or rank 0's "stop".
const NO_POSITION: u64 = u64::MAX;

/// Rank 0's queue: deals the positions without a result (at most
/// `stop_after`) to whichever rank asks, until every other rank was told to
/// stop. Returns how many were analysed.
fn deal(
    comm: &dyn Comm,
    cfg: &Config,
    results: &[Option<LeafResult>],
    progress: &dyn Progress,
) -> usize {
    let mut todo: std::collections::VecDeque<usize> = (0..results.len())
        .filter(|&u| results[u].is_none())
        .collect();
    progress.start("positions", results.len() as u64);
    progress.inc((results.len() - todo.len()) as u64);
    todo.truncate(cfg.stop_after.unwrap_or(usize::MAX));
    let (mut active, mut done) = (comm.size() - 1, 0);
    while active > 0 {
        let (from, msg) = comm.recv_any();
        if word(&msg) != NO_POSITION {
            done += 1;
            progress.inc(1);
        }
        let next = todo.pop_front().map_or(NO_POSITION, |u| u as u64);
        active -= (next == NO_POSITION) as usize;
        comm.send(from, &next.to_le_bytes());
    }
    done
}

/// A worker rank: asks rank 0 for a position (telling it the last one
/// done), analyses and records it, until told to stop. Returns how many
/// it analysed.
fn work<S: Send>(
    comm: &dyn Comm,
    run: &Analysis,
    workers: &Workers<S, impl Init<S>, impl Analyse<S>>,
) -> Result<usize, OpeningsError> {
    let (mut last, mut n) = (NO_POSITION, 0);
    loop {
        comm.send(0, &last.to_le_bytes());
        let u = word(&comm.recv(0));
        if u == NO_POSITION {
            return Ok(n);
        }
        run.one(u as usize, workers)?;
        (last, n) = (u, n + 1);
    }
}

/// The `u64` of a message.
fn word(b: &[u8]) -> u64 {
    crate::distributed::bytes_to_words(b)
        .first()
        .copied()
        .unwrap_or(NO_POSITION)
}

/// Makes a worker's state.
trait Init<S>: Fn() -> Result<S, WorkerError> + Sync {}
impl<S, F: Fn() -> Result<S, WorkerError> + Sync> Init<S> for F {}

/// Analyses a position with a worker's state.
trait Analyse<S>: Fn(&mut S, &Position) -> Result<LeafResult, WorkerError> + Sync {}
impl<S, F: Fn(&mut S, &Position) -> Result<LeafResult, WorkerError> + Sync> Analyse<S> for F {}

/// The analysis function with one state per worker thread.
struct Workers<S, I, A> {
    slots: Vec<Mutex<Option<S>>>,
    init: I,
    analyse: A,
}

impl<S: Send, I: Init<S>, A: Analyse<S>> Workers<S, I, A> {
    fn new(init: I, analyse: A) -> Self {
        let slots = (0..rayon::current_num_threads())
            .map(|_| Mutex::new(None))
            .collect();
        Workers {
            slots,
            init,
            analyse,
        }
    }

    /// Analyses `pos` with this thread's state (made on first use).
    fn analyse(&self, pos: &Position) -> Result<LeafResult, OpeningsError> {
        let k = rayon::current_thread_index().unwrap_or(0) % self.slots.len();
        let Ok(mut slot) = self.slots[k].try_lock() else {
            // Re-entered (the analysis itself waits on rayon work), or poisoned.
            return (self.analyse)(&mut (self.init)().map_err(OpeningsError::Worker)?, pos)
                .map_err(OpeningsError::Worker);
        };
        let state = match slot.take() {
            Some(s) => s,
            None => (self.init)().map_err(OpeningsError::Worker)?,
        };
        (self.analyse)(slot.insert(state), pos).map_err(OpeningsError::Worker)
    }
}

/// The analysis of the positions a checkpoint lacks.
struct Analysis<'a> {
    cfg: &'a Config,
    unique: &'a [Position],
    checkpoint: &'a Checkpoint,
    progress: &'a dyn Progress,
}

impl Analysis<'_> {
    /// Analyses every position without a result (in parallel), records each
    /// durably and fills it in; returns how many were analysed (all but
    /// those the test hook skipped).
    fn missing<S: Send>(
        &self,
        results: &mut [Option<LeafResult>],
        workers: &Workers<S, impl Init<S>, impl Analyse<S>>,
    ) -> Result<usize, OpeningsError> {
        let todo: Vec<usize> = (0..results.len())
            .filter(|&u| results[u].is_none())
            .collect();
        self.progress.start("positions", results.len() as u64);
        self.progress.inc((results.len() - todo.len()) as u64);
        let exact = AtomicUsize::new(results.iter().flatten().filter(|r| r.value.exact()).count());
        let taken = AtomicUsize::new(0);
        let fresh: Vec<Option<(usize, LeafResult)>> = todo
            .par_iter()
            .map(|&u| {
                if (self.cfg.stop_after).is_some_and(|n| taken.fetch_add(1, Ordering::SeqCst) >= n)
                {
                    return Ok(None);
                }
                let r = self.one(u, workers)?;
                let e = exact.fetch_add(r.value.exact() as usize, Ordering::Relaxed);
                self.progress
                    .message(&format!("{} exact", e + r.value.exact() as usize));
                self.progress.inc(1);
                Ok(Some((u, r)))
            })
            .collect::<Result<_, OpeningsError>>()?;
        let mut analysed = 0;
        for (u, r) in fresh.into_iter().flatten() {
            results[u] = Some(r);
            analysed += 1;
        }
        Ok(analysed)
    }

    /// Analyses `unique[u]` and records the result durably.
    fn one<S: Send>(
        &self,
        u: usize,
        workers: &Workers<S, impl Init<S>, impl Analyse<S>>,
    ) -> Result<LeafResult, OpeningsError> {
        let r = workers.analyse(&self.unique[u])?;
        let r = LeafResult {
            ms: if self.cfg.timings { r.ms } else { 0 },
            ..r
        };
        self.checkpoint.append(&to_record(&self.unique[u], &r))?;
        Ok(r)
    }
}

#[cfg(test)]
mod tests {
    use super::checkpoint::from_record;
    use super::*;
    use crate::distributed::LocalComm;
    use crate::records::testing::Full;
    use crate::records::NO_BEST;
    use crate::value::{Range, NEG_INF, POS_INF};
    use crate::Adjito;
    use std::sync::Arc;

    fn cfg() -> Config {
        let root = State {
            pos: Adjito::start(),
            stores: [0, 0],
        };
        let c = Config::new(root, 3, LoopRule::Start, Budget::Exact, 1 << 20);
        Config {
            timings: false,
            ..c
        }
    }

    fn fake(calls: &AtomicUsize) -> LeafResult {
        calls.fetch_add(1, Ordering::SeqCst);
        let r = Range::point(0);
        LeafResult {
            value: r,
            lo: r,
            hi: r,
            best: None,
            nodes: 1,
            ms: 0,
            estimate: None,
        }
    }

    /// D6: a full disk used to be swallowed (`append(..).ok()?`) and reported
    /// as an interruption while the analysis went on.
    #[test]
    fn a_checkpoint_write_error_stops_the_analysis_and_is_reported_as_io() {
        let dir = tempfile::tempdir().unwrap();
        let tree = enumerate::<Adjito>(cfg().root, 3, 1 << 20).unwrap();
        let frame = 8 + 40; // roughly one record's frame: room for a few
        let data = Arc::new(Mutex::new(Vec::new()));
        let sink = Full {
            data,
            room: 4 * frame,
        };
        let path = dir.path().join("checkpoint.bin");
        let loaded = Loaded {
            checkpoint: Checkpoint::with_sink(&path, Box::new(sink), 0),
            records: Vec::new(),
            dropped_bytes: 0,
            dropped_from: None,
        };
        let calls = AtomicUsize::new(0);
        let workers = Workers::new(|| Ok(()), |_: &mut (), _: &Position| Ok(fake(&calls)));
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let e = pool
            .install(|| {
                let t0 = Instant::now();
                finish::<Adjito, ()>(&cfg(), dir.path(), tree, loaded, &workers, &NoProgress, t0)
            })
            .unwrap_err();
        assert!(matches!(&e, OpeningsError::Io(p, _) if *p == path), "{e:?}");
        assert!(e.to_string().contains("disk full"), "{e}");
        let n = calls.load(Ordering::SeqCst);
        assert!(
            n <= 4 + 2 + 2,
            "analysis went on after the failure: {n} positions"
        );
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert!(left.is_empty(), "no output may be written: {left:?}");
    }

    /// A result that depends on the position only (its first pit).
    fn by_position(pos: &Position) -> LeafResult {
        let r = Range::point(pos.pits[0] as i32 - 4);
        LeafResult {
            value: r,
            lo: r,
            hi: r,
            best: None,
            nodes: 1 + pos.pits[1] as u64,
            ms: 0,
            estimate: None,
        }
    }

    fn outputs(dir: &Path) -> Vec<(String, Vec<u8>)> {
        ["lines.csv", "tree.json", "tree.svg", "summary.md"]
            .iter()
            .map(|f| (f.to_string(), std::fs::read(dir.join(f)).unwrap()))
            .collect()
    }

    /// Runs `cfg` over `p` ranks into `out`; rank 0's result.
    fn distributed(p: usize, cfg: &Config, out: &Path, resume: bool) -> Result<Report, String> {
        let mut r = LocalComm::run(p, |c| {
            run_distributed::<Adjito, ()>(
                c,
                cfg,
                out,
                resume,
                || Ok(()),
                |_, pos| Ok(by_position(pos)),
                &NoProgress,
            )
            .map_err(|e| e.to_string())
        });
        r.swap_remove(0).map(|x| x.expect("rank 0 reports"))
    }

    #[test]
    fn distributed_runs_write_the_files_of_one_process_and_resume() {
        let one = tempfile::tempdir().unwrap();
        let a = |_: &mut (), p: &Position| Ok(by_position(p));
        run::<Adjito, ()>(&cfg(), one.path(), false, || Ok(()), a, &NoProgress).unwrap();
        let want = outputs(one.path());
        for p in 1..=3 {
            let d = tempfile::tempdir().unwrap();
            let r = distributed(p, &cfg(), d.path(), false).unwrap();
            assert_eq!(r.analysed_now, r.tree.unique.len());
            assert_eq!(outputs(d.path()), want, "P = {p}");
            // Interrupted after 5, then resumed with another P: only the rest.
            let d = tempfile::tempdir().unwrap();
            let stop = Config {
                stop_after: Some(5),
                ..cfg()
            };
            let e = distributed(p, &stop, d.path(), false).unwrap_err();
            assert!(e.contains("stopped after 5"), "{e}");
            let r = distributed(4 - p, &cfg(), d.path(), true).unwrap();
            assert_eq!(r.analysed_now, r.tree.unique.len() - 5, "P = {p}");
            assert_eq!(outputs(d.path()), want, "P = {p}, resumed");
        }
    }

    /// A whole run of `cfg()` by `by_position` in a new directory, its
    /// checkpoint's records then changed by `edit` and written again with
    /// the crate's own frames (good checksums), and the run resumed.
    fn resume_edited(edit: impl Fn(&mut [ResultRecord])) -> (PathBuf, Result<Report, String>) {
        let dir = tempfile::tempdir().unwrap().keep();
        let a = |_: &mut (), p: &Position| Ok(by_position(p));
        run::<Adjito, ()>(&cfg(), &dir, false, || Ok(()), a, &NoProgress).unwrap();
        let path = dir.join(checkpoint::FILE);
        let h = checkpoint::header::<Adjito>(&cfg());
        let mut records = Checkpoint::resume(&path, &h).unwrap().records;
        edit(&mut records);
        let mut bytes = crate::records::frame(&h);
        for r in &records {
            bytes.extend(crate::records::frame(r));
        }
        std::fs::write(&path, bytes).unwrap();
        let r = run::<Adjito, ()>(&cfg(), &dir, true, || Ok(()), a, &NoProgress);
        let _ = std::fs::remove_dir_all(&dir);
        (path, r.map_err(|e| e.to_string()))
    }

    /// Defect D: records with good checksums were trusted whatever they held.
    #[test]
    fn crafted_records_are_refused_naming_the_file_the_frame_and_the_fault() {
        let (_, r) = resume_edited(|_| ());
        assert_eq!(
            r.unwrap().analysed_now,
            0,
            "an untouched checkpoint resumes"
        );
        let illegal = |r: &ResultRecord| {
            let pos = from_record(r).0;
            (0..=u8::MAX)
                .find(|&m| m != NO_BEST && !Adjito::legal_moves(&pos).iter().any(|x| x.0 == m))
                .unwrap()
        };
        type Edit = Box<dyn Fn(&mut ResultRecord)>;
        let cases: Vec<(&str, Edit)> = vec![
            ("above", Box::new(|r| r.value = (i32::MAX, i32::MAX))),
            ("below", Box::new(|r| r.value = (i32::MIN, i32::MIN))),
            ("above its upper", Box::new(|r| r.value = (1, 0))),
            ("`lo`", Box::new(|r| r.lo = (i32::MIN, 0))),
            ("`hi`", Box::new(|r| r.hi = (0, i32::MAX))),
            ("`lo`", Box::new(|r| r.lo = (0, POS_INF))),
            ("`hi`", Box::new(|r| r.hi = (NEG_INF, 0))),
            ("not legal", Box::new(move |r| r.best = illegal(r))),
            ("estimate", Box::new(|r| r.estimate = Some((i32::MAX, 1)))),
            ("not one of", Box::new(|r| r.key_lo ^= 1 << 40)),
            ("not one of", Box::new(|r| r.key_hi |= 1 << 63)),
        ];
        for (want, edit) in cases {
            let (path, r) = resume_edited(|rs| edit(&mut rs[3]));
            let Err(e) = r else {
                panic!("{want}: accepted");
            };
            let frame = "frame 4 ";
            assert!(e.contains(&*path.to_string_lossy()), "{e}");
            assert!(e.contains(frame) && e.contains(want), "{want}: {e}");
        }
        // Every record at i32::MIN: refused, not an overflowed root value.
        let (_, r) = resume_edited(|rs| {
            for r in rs {
                (r.value, r.lo, r.hi) = (
                    (i32::MIN, i32::MIN),
                    (i32::MIN, i32::MIN),
                    (i32::MIN, i32::MIN),
                );
            }
        });
        let Err(e) = r else {
            panic!("i32::MIN everywhere: accepted");
        };
        assert!(e.contains("frame 1 "), "{e}");
    }
}
