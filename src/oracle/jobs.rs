//! The long jobs of the front ends at run time: a front end names a rule
//! set, not a game type, to run an opening analysis, a self-play match, a
//! fit of the evaluation, a certificate, the literal loop rule's gap, or a
//! table build over the ranks of a cluster. Each function here is the
//! generic one of the library for the rule set's game type
//! ([`crate::with_rules!`]), with the same errors; the rest of what the
//! command line needs of a game (its help line, the reach of `loop-gap`)
//! is said here too, so that no front end lists the games.

use std::collections::HashSet;
use std::path::Path;
use std::time::Instant;

use crate::certify::write::{WriteError, Writer};
use crate::certify::{Certificate, Head};
use crate::distributed::Comm;
use crate::engine::{Engine, EngineOptions};
use crate::eval::train::{TrainConfig, TrainError, TrainPlan};
use crate::eval::{Model, ModelError};
use crate::game::{Game, GameId, Move, Position};
use crate::literal::{LiteralError, LoopGapReport};
use crate::openings::{Budget, Config, LeafResult, OpeningsError, Report, WorkerError};
use crate::progress::Progress;
use crate::report::MatchReport;
use crate::rules::RuleSet;
use crate::search::{Options, SearchError, Searcher};
use crate::selfplay::MatchConfig;
use crate::tables::retrograde::dist::DistLevelReport;
use crate::tables::retrograde::{BuildEvent, LevelPlan};
use crate::tables::{TableError, TableSet};
use crate::tt::{AtomicTable, TransTable};
use crate::value::LoopRule;

use super::facts::Facts;
use super::posed::Posed;

/// A game in one line, as the command line's help lists it: its title,
/// its board and its seeds (`Adjito (Benin), 2×6 pits, 48 seeds`).
pub fn describe(game: GameId) -> String {
    let f = Facts::of(RuleSet::default_for(game));
    format!("{}, 2×{} pits, {} seeds", game.title(), f.pits / 2, f.total)
}

/// `adji loop-gap`: per level `0..=max` of `rules`, how many positions
/// have a literal-rule value different from the `start` and `even` rules'
/// ([`crate::literal::loop_gap`], within `limit` literal-solver nodes).
///
/// # Errors
/// As [`crate::literal::loop_gap`].
pub fn loop_gap(rules: RuleSet, max: u32, limit: u64) -> Result<LoopGapReport, LiteralError> {
    fn go<G: Game>(max: u32, limit: u64) -> Result<LoopGapReport, LiteralError> {
        Ok(LoopGapReport::new::<G>(crate::literal::loop_gap::<G>(
            max, limit,
        )?))
    }
    crate::with_rules!(rules, go(max, limit))
}

/// The evaluation shipped in the binary for `rules`'s game
/// ([`Model::default_for`]).
pub fn shipped_model(rules: RuleSet) -> Model {
    crate::with_rules!(rules, G => Model::default_for::<G>())
}

/// A model file (or `baseline`) for `rules`'s game ([`Model::load`]).
///
/// # Errors
/// As [`Model::load`].
pub fn load_model(rules: RuleSet, path: &Path) -> Result<Model, ModelError> {
    crate::with_rules!(rules, G => Model::load::<G>(path))
}

/// `adji match`: self-play of `rules`'s game between the engines of
/// `models` ([`crate::selfplay::play_match`]).
pub fn play_match(
    rules: RuleSet,
    tables: Option<&TableSet>,
    models: [&Model; 2],
    cfg: &MatchConfig,
) -> MatchReport {
    crate::with_rules!(rules, G => crate::selfplay::play_match::<G>(tables, models, cfg))
}

/// The keys of the positions of `rules`'s game listed in `text`
/// ([`crate::eval::train::exclusion_keys`]).
///
/// # Errors
/// As [`crate::eval::train::exclusion_keys`].
pub fn exclusion_keys(rules: RuleSet, text: &str) -> Result<HashSet<u64>, TrainError> {
    crate::with_rules!(rules, G => crate::eval::train::exclusion_keys::<G>(text))
}

/// The memory plan of fitting `cfg` for `rules`'s game ([`TrainPlan::of`]).
pub fn train_plan(rules: RuleSet, cfg: &TrainConfig) -> TrainPlan {
    crate::with_rules!(rules, G => TrainPlan::of::<G>(cfg))
}

/// `adji eval train`: fits a model for `rules`'s game on the exact values
/// of `set` ([`crate::eval::train::train`]).
///
/// # Errors
/// As [`crate::eval::train::train`].
pub fn train(rules: RuleSet, set: &TableSet, cfg: &TrainConfig) -> Result<Model, TrainError> {
    crate::with_rules!(rules, G => crate::eval::train::train::<G>(set, cfg))
}

/// `adji certify`: a certificate that `p` (or its move `first`) has the
/// value `value` (by default its exact value, found first), written over
/// an exact search on `tt` with `opts` and the tables `tables`
/// ([`Writer`]). `progress` hears (nodes made, oracle searches) now and
/// then. Returns the certificate and the oracle searches run.
///
/// # Errors
/// The search cannot read `tables` (the outer error); the certificate
/// cannot be made (the inner one, [`WriteError`]).
pub fn certify<'p, T: TransTable>(
    p: &Posed,
    tables: &TableSet,
    tt: &T,
    opts: Options,
    first: Option<Move>,
    value: Option<i32>,
    progress: Box<dyn FnMut(usize, u64) + 'p>,
) -> Result<Result<(Certificate, u64), WriteError>, SearchError> {
    let pos = &p.state.pos;
    crate::with_rules!(p.rules, G => {
        let search = Searcher::<G, T>::new(Some(tables), tt, opts)?;
        let mut w = Writer::new(&search, tables, opts.rule);
        w.progress = Some(progress);
        let c = match (first, value) {
            (None, Some(v)) => w.certify(pos, v),
            (None, None) => w.value(pos).and_then(|v| w.certify(pos, v)),
            (Some(m), Some(v)) => w.certify_move(pos, m, v),
            (Some(m), None) => w.move_value(pos, m).and_then(|v| w.certify_move(pos, m, v)),
        };
        Ok(c.map(|c| (c, w.solves)))
    })
}

/// What a certificate's head proves the value of, as `adji certify check`
/// prints it: the root's board (`TOP/BOTTOM MOVER`, no stores), or `move
/// M of` it.
pub fn certificate_root(head: &Head) -> String {
    fn text<G: Game>(head: &Head) -> String {
        let root = head.root.unpack();
        let board = crate::notation::format_board::<G>(&root);
        match head.first {
            Some(m) => format!(
                "move {} of {board}",
                crate::notation::format_move::<G>(&root, Move(m))
            ),
            None => board,
        }
    }
    crate::with_rules!(head.rules, text(head))
}

/// How `adji openings` analyses each position of its tree: with the
/// exact search on a hash table of `hash_mib` per worker (cleared before
/// each position, so that a result is the one a fresh table gives:
/// deterministic, resumable), to `opts`; for a depth budget, plain minimax
/// to that depth; for an estimate budget, the estimate engine with the
/// shipped evaluation where the value stays open.
#[derive(Clone, Copy)]
pub struct Leaves<'a> {
    /// The endgame tables, if any (of the root's family, under `opts.rule`).
    pub tables: Option<&'a TableSet>,
    /// The search's options.
    pub opts: Options,
    /// The budget of each position.
    pub budget: Budget,
    /// MiB of each worker's hash table.
    pub hash_mib: usize,
}

/// `adji openings` of `cfg` under `rules` into `out`: on this process
/// ([`crate::openings::run`]; always a report), or over the ranks of
/// `comm` ([`crate::openings::run_distributed`]; the report at rank 0),
/// each position analysed as `leaves` says.
///
/// # Errors
/// As [`crate::openings::run`]; the tables' damage, met by a probe, stops
/// the run (the result is neither recorded nor reported).
pub fn openings(
    rules: RuleSet,
    comm: Option<&dyn Comm>,
    cfg: &Config,
    out: &Path,
    resume: bool,
    leaves: Leaves<'_>,
    progress: &dyn Progress,
) -> Result<Option<Report>, OpeningsError> {
    let init =
        || -> Result<AtomicTable, WorkerError> { Ok(AtomicTable::try_new(leaves.hash_mib)?) };
    crate::with_rules!(rules, G => {
        let model = Model::default_for::<G>();
        let analyse =
            |tt: &mut AtomicTable, pos: &Position| analyse_leaf::<G>(tt, pos, &leaves, &model);
        match comm {
            None => crate::openings::run::<G, _>(cfg, out, resume, init, analyse, progress).map(Some),
            Some(c) => crate::openings::run_distributed::<G, _>(
                c, cfg, out, resume, init, analyse, progress,
            ),
        }
    })
}

/// Analyses one position of an opening tree as `leaves` says.
///
/// # Errors
/// The tables' damage, when a probe met it.
fn analyse_leaf<G: Game>(
    tt: &mut AtomicTable,
    pos: &Position,
    leaves: &Leaves<'_>,
    model: &Model,
) -> Result<LeafResult, WorkerError> {
    let (tables, opts) = (leaves.tables, leaves.opts);
    let t = Instant::now();
    tt.clear();
    let s = Searcher::<G, _>::new(tables, &*tt, opts).expect("rule and game checked when opening");
    let an = match leaves.budget {
        Budget::Depth(d) => s.analyse_depth(pos, d),
        _ => s.analyse(pos),
    };
    let r = LeafResult::from_analysis(&an, 0);
    let r = match leaves.budget {
        Budget::Estimate(_) if !r.value.exact() => {
            let eo = EngineOptions {
                rule: opts.rule,
                limits: opts.limits,
                ..EngineOptions::default()
            };
            r.with_estimate(&Engine::<G>::new(tables, model, eo).analyse(pos))
        }
        _ => r,
    };
    if let Some(t) = tables {
        t.check_damage()?;
    }
    Ok(LeafResult {
        ms: t.elapsed().as_millis() as u64,
        ..r
    })
}

/// The plan of a build of `rules`'s tables, levels `0..=max`, over `p`
/// ranks (each in a directory of its own when `own_dirs`), at the rank
/// that needs most ([`crate::tables::retrograde::dist::worst_rank_plan`]).
///
/// # Errors
/// As [`crate::tables::retrograde::dist::worst_rank_plan`].
pub fn worst_rank_plan(
    rules: RuleSet,
    max: u32,
    (p, own_dirs): (usize, bool),
) -> Result<Vec<LevelPlan>, TableError> {
    crate::with_rules!(rules, G => crate::tables::retrograde::dist::worst_rank_plan::<G>(max, (p, own_dirs)))
}

/// `adji tables build` over the ranks of `comm`: levels `0..=max` of
/// `rules`'s tables in `dir` under `rule`
/// ([`crate::tables::retrograde::dist::build_tables_distributed`]).
///
/// # Errors
/// As [`crate::tables::retrograde::dist::build_tables_distributed`].
pub fn build_distributed(
    rules: RuleSet,
    comm: &dyn Comm,
    dir: &Path,
    rule: LoopRule,
    max: u32,
    bar: &dyn Progress,
    on_level: impl FnMut(&BuildEvent, Option<&DistLevelReport>),
) -> Result<(), TableError> {
    crate::with_rules!(rules, G => crate::tables::retrograde::dist::build_tables_distributed::<G>(comm, dir, rule, max, bar, on_level))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A game's line of help takes its board and seeds from the game
    /// type's constants.
    #[test]
    fn each_game_is_described_with_its_board_and_seeds() {
        let lines = GameId::ALL.map(describe);
        assert_eq!(
            lines,
            [
                "Adjito (Benin), 2×6 pits, 48 seeds",
                "Adji-Boto (Saramaka), 2×5 pits, 100 seeds"
            ]
        );
    }
}
