//! Self-play matches between two engines, each with its own budget and
//! evaluation: to measure that strength grows with time (or nodes), or that
//! one evaluation beats another at equal budgets. Games are played with every end rule applied
//! literally ([`crate::driver`]). Each opening (a few random moves from the
//! start, drawn from a seed) is played twice, once with each engine moving
//! first, so that the openings' own imbalance cancels out.

use rayon::prelude::*;

use crate::driver::{Driver, GameResult};
use crate::engine::{Engine, EngineOptions};
use crate::eval::Model;
use crate::game::{mix64, Game, Move, State};
use crate::search::Limits;
use crate::tables::TableSet;
use crate::value::LoopRule;

pub use crate::report::{MatchGame, MatchReport};

/// What to play.
#[derive(Clone, Copy, Debug)]
pub struct MatchConfig {
    /// Engine A's and engine B's limits per move.
    pub budgets: [Limits; 2],
    /// Openings (each played twice, colours swapped).
    pub openings: usize,
    /// Random plies from the start before the engines take over.
    pub random_plies: u32,
    /// Seed of the openings.
    pub seed: u64,
    /// Loop rule the engines value with.
    pub rule: LoopRule,
}

/// The random opening `k`: `plies` uniform legal moves from the start.
fn opening<G: Game>(seed: u64, k: usize, plies: u32) -> Vec<Move> {
    let mut st = G::start();
    let mut out = Vec::new();
    for i in 0..plies {
        let ml = G::legal_moves(&st);
        if ml.is_empty() {
            break;
        }
        let r = mix64(seed ^ mix64(((k as u64) << 20) | i as u64));
        let mv = ml.get((r % ml.len() as u64) as usize);
        out.push(mv);
        st = G::play_unchecked(&st, mv).pos;
    }
    out
}

/// Plays one game: the opening, then engine B on `b_side` and A on the other.
fn play_game<G: Game>(
    tables: Option<&TableSet>,
    models: [&Model; 2],
    cfg: &MatchConfig,
    k: usize,
    b_side: u8,
) -> MatchGame {
    let start = State {
        pos: G::start(),
        stores: [0, 0],
    };
    let mut d = Driver::<G>::new(start);
    let mut plies = 0;
    for mv in opening::<G>(cfg.seed, k, cfg.random_plies) {
        if d.play(mv).is_err() || d.result().is_some() {
            break;
        }
        plies += 1;
    }
    while d.result().is_none() {
        let pos = d.state().pos;
        let who = (pos.side == b_side) as usize;
        let opts = EngineOptions {
            rule: cfg.rule,
            limits: cfg.budgets[who],
            max_depth: 200,
        };
        let est = Engine::<G>::new(tables, models[who], opts).analyse(&pos);
        let Some(mv) = est.best() else { break };
        if d.play(mv).is_err() {
            break;
        }
        plies += 1;
    }
    let r: GameResult = d.result().cloned().expect("the loop ends with a result");
    let b = b_side as usize;
    MatchGame {
        opening: k,
        b_side,
        plies,
        seeds: [r.score[1 - b], r.score[b]],
        reason: r.reason.describe_under(G::RULES).to_string(),
    }
}

/// Plays the match, games in parallel; the report is in a fixed order.
/// Engine A evaluates with `models[0]`, engine B with `models[1]`.
pub fn play_match<G: Game>(
    tables: Option<&TableSet>,
    models: [&Model; 2],
    cfg: &MatchConfig,
) -> MatchReport {
    let jobs: Vec<(usize, u8)> = (0..cfg.openings)
        .flat_map(|k| [(k, 0u8), (k, 1u8)])
        .collect();
    let games: Vec<MatchGame> = jobs
        .par_iter()
        .map(|&(k, side)| play_game::<G>(tables, models, cfg, k, side))
        .collect();
    let mut rep = MatchReport::default();
    for g in &games {
        let m = g.seeds[1] as i64 - g.seeds[0] as i64;
        match m.signum() {
            1 => rep.b_wins += 1,
            0 => rep.draws += 1,
            _ => rep.b_losses += 1,
        }
        rep.b_mean_margin += m as f64;
    }
    let n = games.len().max(1) as f64;
    rep.b_points = rep.b_wins as f64 + rep.draws as f64 / 2.0;
    rep.b_mean_margin /= n;
    rep.games = games;
    rep.rules = crate::report::RulesTag::of::<G>();
    rep
}
