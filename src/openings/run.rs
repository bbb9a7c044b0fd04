//! The run: enumerate the tree, open the checkpoint, analyse in parallel
//! what it lacks (one caller-made state per worker thread, e.g. a hash
//! table), record each result durably as it comes, back the results up and
//! write the outputs. Any failure stops the analysis and writes no output.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use rayon::prelude::*;

use crate::game::{Game, Position, State};
use crate::progress::Progress;
use crate::records::{Checkpoint, Loaded};
use crate::value::LoopRule;

use super::checkpoint::{self, from_record, to_record};
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
}

impl Budget {
    /// A description stored in the checkpoint and the summary.
    pub fn describe(&self) -> String {
        match self {
            Budget::Exact => "exact".into(),
            Budget::Seconds(s) => format!("{s} s per position"),
            Budget::Nodes(n) => format!("{n} nodes per position"),
            Budget::Depth(d) => format!("depth {d} per position (bounds from plain minimax)"),
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
    analyse: impl Fn(&mut S, &Position) -> LeafResult + Sync,
    progress: &dyn Progress,
) -> Result<Report, OpeningsError> {
    let t0 = Instant::now();
    let tree = enumerate::<G>(cfg.root, cfg.plies, cfg.max_nodes)?;
    let io = |e| OpeningsError::Io(out.to_path_buf(), e);
    std::fs::create_dir_all(out).map_err(io)?;
    crate::fsutil::remove_stale_temps(out).map_err(io)?;
    let loaded = checkpoint::open::<G>(cfg, out, resume)?;
    let workers = Workers::new(init, analyse);
    finish::<G, S>(cfg, out, tree, loaded, &workers, progress, t0)
}

/// Completes a run whose tree is enumerated and checkpoint opened.
fn finish<G: Game, S: Send>(
    cfg: &Config,
    out: &Path,
    mut tree: Tree,
    loaded: Loaded,
    workers: &Workers<S, impl Init<S>, impl Analyse<S>>,
    progress: &dyn Progress,
    t0: Instant,
) -> Result<Report, OpeningsError> {
    let mut results = vec![None; tree.unique.len()];
    for (pos, r) in loaded.records.iter().map(from_record) {
        if let Some(u) = tree.unique_index(&pos) {
            results[u] = Some(r);
        }
    }
    let run = Analysis {
        cfg,
        unique: &tree.unique,
        checkpoint: &loaded.checkpoint,
        progress,
    };
    let analysed_now = run.missing(&mut results, workers)?;
    let Some(results) = results.into_iter().collect::<Option<Vec<_>>>() else {
        return Err(OpeningsError::Interrupted(analysed_now));
    };
    backup::<G>(&mut tree, &results, cfg.rule);
    let wall = cfg.timings.then(|| t0.elapsed().as_secs_f64());
    let files = report::write::<G>(cfg, &tree, &results, out, wall)?;
    Ok(Report {
        tree,
        analysed_now,
        dropped_bytes: loaded.dropped_bytes,
        files,
    })
}

/// Makes a worker's state.
trait Init<S>: Fn() -> Result<S, WorkerError> + Sync {}
impl<S, F: Fn() -> Result<S, WorkerError> + Sync> Init<S> for F {}

/// Analyses a position with a worker's state.
trait Analyse<S>: Fn(&mut S, &Position) -> LeafResult + Sync {}
impl<S, F: Fn(&mut S, &Position) -> LeafResult + Sync> Analyse<S> for F {}

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
            return Ok((self.analyse)(
                &mut (self.init)().map_err(OpeningsError::Worker)?,
                pos,
            ));
        };
        let state = match slot.take() {
            Some(s) => s,
            None => (self.init)().map_err(OpeningsError::Worker)?,
        };
        Ok((self.analyse)(slot.insert(state), pos))
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
    use super::*;
    use crate::progress::NoProgress;
    use crate::records::testing::Full;
    use crate::value::Range;
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
        };
        let calls = AtomicUsize::new(0);
        let workers = Workers::new(|| Ok(()), |_: &mut (), _: &Position| fake(&calls));
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
}
