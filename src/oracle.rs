//! The front ends' one door to the library at run time: a front end names
//! a rule set (a command line's `--rules`, a web request, a Python call),
//! never a game type, and asks
//! - a [`Posed`] (a position with the rule set it was read under) for its
//!   notation, diagram, moves, a move played, how the game ended, and the
//!   `moves`, `perft` and `replay` reports;
//! - a [`Playing`] to keep a game going with every end rule applied;
//! - [`Facts`] for a rule set's game constants (pits, actions, names);
//! - [`tables`] to open, probe, build, verify and count a table family;
//! - an [`Oracle`], which owns the endgame tables of every table family
//!   under one loop rule, to solve, estimate or probe a [`Posed`].
//!
//! What a front end could mix up, these types forbid:
//! - a position cannot be searched under another game's rules: a [`Posed`]
//!   is made by parsing under a rule set, or from a game type, and carries
//!   both (its fields are private);
//! - tables cannot be read under another loop rule or by another family:
//!   the oracle checks each set as it is added ([`Oracle::add`]) and picks
//!   the set for a position's rule set itself ([`RuleSet::tables`]);
//! - the hash table cannot serve two rule sets wrongly: every key carries
//!   the rule set and loop rule ([`crate::tt::Context`], made by the
//!   [`Searcher`]);
//! - the run-time rule set becomes the game type here, in this module and
//!   its children ([`crate::with_rules!`]), and nowhere in the front ends.
//!
//! It sits above search, engine, tables and reports, and below every
//! front end.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::SeqCst};
use std::sync::Arc;
use std::time::Duration;

use crate::engine::{Engine, EngineOptions};
use crate::eval::Model;
use crate::game::{Game, State};
use crate::notation::format_move;
use crate::report::{AnalyseReport, ProbeError, ProbeReport, SolveReport};
use crate::rules::RuleSet;
use crate::search::{check_tables_of, Analysis, Limits, Options, SearchError, Searcher};
use crate::tables::{OpenCheck, TableError, TableSet};
use crate::tt::TransTable;
use crate::value::LoopRule;

mod facts;
pub mod jobs;
mod playing;
mod posed;
pub mod tables;

pub use facts::Facts;
pub use playing::Playing;
pub use posed::Posed;

/// A running computation's watch, shared with other threads: a stop flag
/// that any thread may raise, and the nodes searched so far.
#[derive(Clone, Debug, Default)]
pub struct Watch {
    stop: Arc<AtomicBool>,
    nodes: Arc<AtomicU64>,
}

impl Watch {
    /// A watch, not stopped.
    pub fn new() -> Watch {
        Watch::default()
    }

    /// Asks the computation to stop; it returns the bounds proved so far.
    pub fn stop(&self) {
        self.stop.store(true, SeqCst);
    }

    /// Whether [`Watch::stop`] was called.
    pub fn is_stopped(&self) -> bool {
        self.stop.load(SeqCst)
    }

    /// Nodes searched so far (published every [`WATCH`] by a solve).
    pub fn nodes(&self) -> u64 {
        self.nodes.load(SeqCst)
    }

    fn set_nodes(&self, n: u64) {
        self.nodes.store(n, SeqCst);
    }
}

/// How often a watched solve publishes its node count and looks at the
/// stop flag.
pub const WATCH: Duration = Duration::from_millis(20);

/// How an exact solve runs.
#[derive(Clone, Copy, Debug, Default)]
pub struct SolveOptions {
    /// Its limits (none: until exact).
    pub limits: Limits,
    /// On every thread of rayon's current pool (ABDADA), or on one.
    pub parallel: bool,
    /// Count where the nodes go, per ply (the report's `profile`).
    pub profile: bool,
}

/// An exact solve's answer.
#[derive(Clone, Debug)]
pub struct Solved {
    /// The report (`adji solve --json`).
    pub report: SolveReport,
    /// Whether each move's value depends on how endless play is scored,
    /// by move name; `None` where the limits left it open.
    pub loop_flags: BTreeMap<String, Option<bool>>,
}

/// The evaluation of an estimate.
#[derive(Clone, Copy, Debug, Default)]
pub enum Eval<'a> {
    /// The weights shipped in the binary for the position's game.
    #[default]
    Shipped,
    /// A model file (or `baseline`), read by [`Model::load`].
    File(&'a Path),
    /// A model the caller loaded (it must be of the position's game).
    Model(&'a Model),
}

/// What can go wrong in an oracle.
#[derive(Debug, thiserror::Error)]
pub enum OracleError {
    /// Tables that the search cannot read (another loop rule or family).
    #[error(transparent)]
    Search(#[from] SearchError),
    /// A model file that cannot be used.
    #[error("eval {path}: {msg}")]
    Eval {
        /// The file.
        path: String,
        /// What is wrong.
        msg: String,
    },
    /// A model of another game than the position's.
    #[error("the evaluation model is for {model}, not {position}")]
    ModelGame {
        /// The model's game.
        model: crate::game::GameId,
        /// The position's game.
        position: crate::game::GameId,
    },
    /// A probe of a position the tables do not hold.
    #[error(transparent)]
    Probe(#[from] ProbeError),
    /// A probe of the answer reached damaged table data (a level opened
    /// without the full check): the answer is refused, never a value
    /// read from it.
    #[error(transparent)]
    Damaged(TableError),
    /// A probe with no tables of the position's family.
    #[error("no {family} tables for --loop {rule}")]
    NoTables {
        /// The family's command-line name.
        family: String,
        /// The loop rule's name.
        rule: &'static str,
    },
}

/// The endgame tables of each table family under one loop rule, and the
/// solves, estimates and probes over them.
pub struct Oracle {
    rule: LoopRule,
    sets: Vec<Arc<TableSet>>,
    /// When set, a position of a family without tables is refused (a
    /// caller that named its tables expects them read), rather than
    /// searched without tables.
    strict: bool,
}

impl std::fmt::Debug for Oracle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let families: Vec<_> = self
            .sets
            .iter()
            .map(|s| (s.rules.name(), s.covered()))
            .collect();
        f.debug_struct("Oracle")
            .field("rule", &self.rule)
            .field("families", &families)
            .field("strict", &self.strict)
            .finish()
    }
}

impl Oracle {
    /// An oracle without tables, under loop rule `rule`.
    pub fn new(rule: LoopRule) -> Oracle {
        Oracle {
            rule,
            sets: Vec::new(),
            strict: false,
        }
    }

    /// An oracle over exactly `set`, under loop rule `rule`: a position of
    /// another family is refused with the search's words, as a front end
    /// that was given one set of tables expects.
    ///
    /// # Errors
    /// [`SearchError::TablesRule`] when `set` is of another loop rule.
    pub fn with_set(rule: LoopRule, set: Arc<TableSet>) -> Result<Oracle, SearchError> {
        let mut o = Oracle::new(rule);
        o.add(set)?;
        o.strict = true;
        Ok(o)
    }

    /// An oracle over whatever consecutive levels from 0 `dir` holds for
    /// each table family under `rule` (a family without level 0 is
    /// searched without tables).
    ///
    /// # Errors
    /// A table file that is present but bad.
    pub fn open(dir: &Path, rule: LoopRule, check: OpenCheck) -> Result<Oracle, TableError> {
        fn open<G: Game>(
            dir: &Path,
            rule: LoopRule,
            check: OpenCheck,
        ) -> Result<TableSet, TableError> {
            TableSet::open_available_checked::<G>(dir, rule, check)
        }
        let mut o = Oracle::new(rule);
        for r in RuleSet::families() {
            let set = crate::with_rules!(r, open(dir, rule, check))?;
            if set.covered() > 0 {
                o.sets.push(Arc::new(set));
            }
        }
        Ok(o)
    }

    /// Adds `set`, replacing a set of its family.
    ///
    /// # Errors
    /// [`SearchError::TablesRule`] when `set` is of another loop rule.
    pub fn add(&mut self, set: Arc<TableSet>) -> Result<(), SearchError> {
        if set.rule != self.rule {
            return Err(SearchError::TablesRule {
                tables: set.rule,
                search: self.rule,
            });
        }
        self.sets.retain(|s| s.rules != set.rules);
        self.sets.push(set);
        Ok(())
    }

    /// The loop rule of every answer.
    pub fn rule(&self) -> LoopRule {
        self.rule
    }

    /// The tables a position under `rules` reads (those of
    /// [`RuleSet::tables`]), if any.
    pub fn tables(&self, rules: RuleSet) -> Option<&TableSet> {
        let family = rules.tables();
        self.sets.iter().find(|s| s.rules == family).map(|s| &**s)
    }

    /// Bytes of every table file mapped read-only (page cache).
    pub fn mapped_bytes(&self) -> u64 {
        self.sets.iter().map(|s| s.mapped_bytes()).sum()
    }

    /// Bytes every table allocates, at most (copies in memory, caches of
    /// decoded blocks).
    pub fn allocated_bytes(&self) -> u64 {
        self.sets.iter().map(|s| s.allocated_bytes()).sum()
    }

    /// The least bytes the caches of the compressed levels hold
    /// ([`TableSet::min_cache_bytes`], every family's).
    pub fn min_cache_bytes(&self) -> u64 {
        self.sets.iter().map(|s| s.min_cache_bytes()).sum()
    }

    /// Shapes the caches of the compressed levels for `bytes` of decoded
    /// blocks in all ([`TableSet::fit_caches`]): each table family gets
    /// its minimum and an even share of the rest; a set already shared
    /// with a clone of this oracle keeps its caches. Returns what the
    /// caches may then hold.
    pub fn fit_caches(&mut self, bytes: u64) -> u64 {
        let spare = bytes.saturating_sub(self.min_cache_bytes()) / self.sets.len().max(1) as u64;
        self.sets
            .iter_mut()
            .map(|s| match Arc::get_mut(s) {
                Some(s) => s.fit_caches(s.min_cache_bytes() + spare),
                None => s.allocated_bytes(),
            })
            .sum()
    }

    /// The tables `rules` reads, checked; for a strict oracle, a family
    /// without tables is an error naming both sides.
    fn tables_for(&self, rules: RuleSet) -> Result<Option<&TableSet>, SearchError> {
        match (self.tables(rules), self.sets.first()) {
            (Some(t), _) => Ok(Some(t)),
            (None, Some(other)) if self.strict => {
                check_tables_of(rules, Some(other), self.rule).map(|()| None)
            }
            (None, _) => Ok(None),
        }
    }

    /// Solves `p` exactly within `opts`, on hash table `tt`: every legal
    /// move's value, the principal variation, the loop flags. A `watch`
    /// stops it (within about 1024 nodes; the answer then holds the bounds
    /// proved so far) and receives its node count every [`WATCH`].
    ///
    /// # Errors
    /// Tables this oracle cannot read for `p` (a strict oracle's other
    /// family).
    pub fn solve<T: TransTable>(
        &self,
        p: &Posed,
        tt: &T,
        opts: SolveOptions,
        watch: Option<&Watch>,
    ) -> Result<Solved, OracleError> {
        let tables = self.tables_for(p.rules)?;
        let options = Options {
            rule: self.rule,
            limits: opts.limits,
            parallel: opts.parallel,
            profile: opts.profile,
            ..Options::default()
        };
        fn go<G: Game, T: TransTable>(
            p: &Posed,
            s: Searcher<'_, G, T>,
            watch: Option<&Watch>,
        ) -> Solved {
            let a = watched(&s, &p.state, watch);
            Solved {
                report: SolveReport::new::<G>(&p.state, &a),
                loop_flags: move_loop_flags::<G>(&p.state, &a),
            }
        }
        tt.new_generation();
        let solved = crate::with_rules!(p.rules, G => {
            let s = Searcher::<G, T>::new(tables, tt, options)?;
            go::<G, T>(p, s, watch)
        });
        undamaged(tables)?;
        Ok(solved)
    }

    /// Estimates `p` with the depth-limited engine and evaluation `eval`
    /// (an estimate, never a value; the proven bounds of the same search
    /// come with it), to iteration `max_depth` within `limits`; a `watch`
    /// stops it.
    ///
    /// # Errors
    /// Tables this oracle cannot read for `p`, or a model file that cannot
    /// be used for `p`'s game.
    pub fn estimate(
        &self,
        p: &Posed,
        eval: Eval<'_>,
        limits: Limits,
        max_depth: u32,
        watch: Option<&Watch>,
    ) -> Result<AnalyseReport, OracleError> {
        let tables = self.tables_for(p.rules)?;
        let opts = EngineOptions {
            rule: self.rule,
            limits,
            max_depth,
        };
        fn go<G: Game>(
            p: &Posed,
            tables: Option<&TableSet>,
            eval: Eval<'_>,
            opts: EngineOptions,
            watch: Option<&Watch>,
        ) -> Result<AnalyseReport, OracleError> {
            let loaded;
            let model = match eval {
                Eval::Shipped => {
                    loaded = Model::default_for::<G>();
                    &loaded
                }
                Eval::File(f) => {
                    loaded = Model::load::<G>(f).map_err(|e| OracleError::Eval {
                        path: f.display().to_string(),
                        msg: e.to_string(),
                    })?;
                    &loaded
                }
                Eval::Model(m) if m.game != G::ID => {
                    return Err(OracleError::ModelGame {
                        model: m.game,
                        position: G::ID,
                    })
                }
                Eval::Model(m) => m,
            };
            let mut engine = Engine::<G>::new(tables, model, opts);
            if let Some(w) = watch {
                engine = engine.stop_when(Arc::clone(&w.stop));
            }
            Ok(AnalyseReport::new::<G>(
                &p.state,
                &engine.analyse(&p.state.pos),
            ))
        }
        let report = crate::with_rules!(p.rules, go(p, tables, eval, opts, watch))?;
        undamaged(tables)?;
        Ok(report)
    }

    /// Looks `p` up in the tables of its family.
    ///
    /// # Errors
    /// No tables of `p`'s family (a strict oracle's: the search's words),
    /// or a position they do not hold.
    pub fn probe(&self, p: &Posed) -> Result<ProbeReport, OracleError> {
        let Some(set) = self.tables_for(p.rules)? else {
            return Err(OracleError::NoTables {
                family: p.rules.tables().command_line(),
                rule: self.rule.name(),
            });
        };
        fn go<G: Game>(set: &TableSet, p: &Posed) -> Result<ProbeReport, ProbeError> {
            ProbeReport::new::<G>(set, &p.state.pos)
        }
        Ok(crate::with_rules!(p.rules, go(set, p))?)
    }
}

/// Fails when a probe of `tables` met damaged data
/// ([`TableSet::check_damage`]).
fn undamaged(tables: Option<&TableSet>) -> Result<(), OracleError> {
    tables
        .map_or(Ok(()), TableSet::check_damage)
        .map_err(OracleError::Damaged)
}

/// Runs `s` on `st`, with a watcher thread beside it when `watch` is given.
fn watched<G: Game, T: TransTable>(
    s: &Searcher<'_, G, T>,
    st: &State,
    watch: Option<&Watch>,
) -> Analysis {
    let Some(w) = watch else {
        return s.analyse(&st.pos);
    };
    if w.is_stopped() {
        s.stop();
    }
    let done = AtomicBool::new(false);
    let analysis = std::thread::scope(|sc| {
        let watcher = sc.spawn(|| {
            while !done.load(SeqCst) {
                w.set_nodes(s.nodes());
                if w.is_stopped() {
                    s.stop();
                }
                std::thread::park_timeout(WATCH);
            }
        });
        let a = s.analyse(&st.pos);
        done.store(true, SeqCst);
        watcher.thread().unpark();
        a
    });
    w.set_nodes(analysis.stats.nodes);
    analysis
}

/// Whether each move's value depends on how endless play is scored (its
/// contributions to `lo` and `hi` differ), by move name; `None` where the
/// limits left it open. The same test as [`Analysis::loop_sensitive`],
/// move by move.
fn move_loop_flags<G: Game>(st: &State, a: &Analysis) -> BTreeMap<String, Option<bool>> {
    let flag = |m: &crate::search::MoveResult| crate::value::loop_flag(m.part.lo, m.part.hi);
    a.moves
        .iter()
        .map(|m| (format_move::<G>(&st.pos, m.mv), flag(m)))
        .collect()
}

#[cfg(test)]
mod tests;
