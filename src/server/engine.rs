//! One job as the server runs it, on one thread, within the server's
//! limits, stopped as soon as the [`Job`] is cancelled: a solve (the exact
//! search, its node count published for progress) or an analysis (the
//! estimate engine with the shipped evaluation).

use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::time::Duration;

use crate::engine::{Engine, EngineOptions, Estimate};
use crate::eval::Model;
use crate::game::{Game, Position};
use crate::notation::format_move;
use crate::search::{Analysis, Limits, Options, SearchError, Searcher};
use crate::tables::TableSet;
use crate::tt::{AtomicTable, TransTable};
use crate::value::LoopRule;

use super::queue::Job;

/// How often the watcher publishes progress and looks for a cancellation.
const WATCH: Duration = Duration::from_millis(20);

/// Analyses `pos` (as `solve` does) within `limits`, on one thread, with
/// hash table `tt` and the tables `tables`. A cancelled job stops the search
/// within about 1024 nodes; the analysis then holds the bounds proved so far.
///
/// # Errors
/// When the tables do not fit the game or loop rule.
pub fn analyse<G: Game>(
    job: &Job,
    pos: &Position,
    tables: Option<&TableSet>,
    tt: &AtomicTable,
    rule: LoopRule,
    limits: Limits,
) -> Result<Analysis, SearchError> {
    tt.new_generation();
    let opts = Options {
        rule,
        limits,
        parallel: false,
        ..Options::default()
    };
    let searcher = Searcher::<G, _>::new(tables, tt, opts)?;
    if job.is_cancelled() {
        searcher.stop();
    }
    let done = AtomicBool::new(false);
    let analysis = std::thread::scope(|sc| {
        let watcher = sc.spawn(|| {
            while !done.load(SeqCst) {
                job.set_nodes(searcher.nodes());
                if job.is_cancelled() {
                    searcher.stop();
                }
                std::thread::park_timeout(WATCH);
            }
        });
        let a = searcher.analyse(pos);
        done.store(true, SeqCst);
        watcher.thread().unpark();
        a
    });
    job.set_nodes(analysis.stats.nodes);
    Ok(analysis)
}

/// Estimates `pos` (as `analyse` does, with the shipped evaluation) within
/// `limits`; the proven bounds of the same search come with it.
pub fn estimate<G: Game>(
    job: &Job,
    pos: &Position,
    tables: Option<&TableSet>,
    rule: LoopRule,
    limits: Limits,
) -> Estimate {
    let model = Model::default_for::<G>();
    let opts = EngineOptions {
        rule,
        limits,
        max_depth: MAX_DEPTH,
    };
    Engine::<G>::new(tables, &model, opts)
        .stop_when(job.stop_flag())
        .analyse(pos)
}

/// Deepest iteration of an analysis (as `analyse` without `--depth`).
const MAX_DEPTH: u32 = 200;

/// Whether each move's value depends on how endless play is scored (its
/// contributions to `lo` and `hi` differ), by move name: `null` where the
/// limits left it open. The same test as [`Analysis::loop_sensitive`],
/// move by move.
pub fn move_loop_flags<G: Game>(pos: &Position, a: &Analysis) -> serde_json::Value {
    let flags = a.moves.iter().map(|m| {
        let flag = crate::value::loop_flag(m.part.lo, m.part.hi);
        (format_move::<G>(pos, m.mv), flag)
    });
    serde_json::to_value(flags.collect::<std::collections::BTreeMap<_, _>>()).unwrap_or_default()
}
