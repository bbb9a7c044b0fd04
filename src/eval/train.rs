//! Fitting a [`Model`] on exact table values: sampling positions of the
//! covered levels (uniformly over each level, or where random playouts from
//! the start reach it: [`Sampling`]), a held-out validation share, and a
//! ridge least-squares fit solved with `nalgebra` (a Cholesky solve of the
//! normal equations).
//!
//! Training is deterministic: positions are drawn from a seeded generator,
//! partial sums are formed per fixed chunk and added in order, so the same
//! tables, levels and seed give the same weights bit for bit, on any number
//! of threads.

use nalgebra::{DMatrix, DVector};
use rayon::prelude::*;

use std::collections::HashSet;

use super::{baseline, correction, feature_names, features, Model, NUM_FEATURES};
use crate::driver::Stretch;
use crate::game::{mix64, Game, Position, State, MAX_PITS};
use crate::index::{level_size, unrank};
use crate::notation::{parse_state, Stores};
use crate::tables::TableSet;

/// What to train on.
#[derive(Clone, Debug)]
pub struct TrainConfig {
    /// Lowest level sampled.
    pub min_level: u32,
    /// Highest level sampled (must be covered by the tables).
    pub max_level: u32,
    /// Positions drawn per level (all of a smaller level).
    pub per_level: u64,
    /// Seed of the draw.
    pub seed: u64,
    /// Which positions of a level are drawn.
    pub sampling: Sampling,
    /// Every `holdout`-th drawn position is kept for validation.
    pub holdout: u64,
    /// Ridge penalty, per training position.
    pub ridge: f64,
    /// Keys ([`Position::key`]) of main-phase positions never used, neither
    /// fitted nor held out: e.g. the quality set's positions, so that the
    /// quality measurement stays out of sample.
    pub exclude: HashSet<u64>,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            min_level: 6,
            max_level: 16,
            per_level: 200_000,
            seed: 1,
            sampling: Sampling::Uniform,
            holdout: 10,
            ridge: 1e-6,
            exclude: HashSet::new(),
        }
    }
}

/// Which positions of a level training draws.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Sampling {
    /// Every position of the level equally likely (the level's ranks drawn
    /// uniformly).
    #[default]
    Uniform,
    /// Positions as games reach them: each draw plays uniformly random
    /// legal moves from the start until the board holds at most the level's
    /// seeds, and keeps the position if it holds exactly that many (else it
    /// plays again, [`PLAYOUT_TRIES`] times at most). These are the
    /// positions a search meets, with even rows rather than the piles that
    /// dominate a uniform draw.
    Playouts,
}

impl Sampling {
    /// The name used on the command line and in model files.
    pub fn name(self) -> &'static str {
        match self {
            Sampling::Uniform => "uniform",
            Sampling::Playouts => "playouts",
        }
    }
}

/// Playouts tried per draw under [`Sampling::Playouts`] before the draw is
/// given up (a capture can jump past a level).
pub const PLAYOUT_TRIES: u64 = 64;

/// How a model was trained, and how it did on the held-out positions.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TrainInfo {
    /// Loop rule of the tables' values.
    pub loop_rule: String,
    /// Levels sampled, inclusive.
    pub levels: (u32, u32),
    /// Positions drawn per level.
    pub per_level: u64,
    /// Seed of the draw.
    pub seed: u64,
    /// Which positions were drawn (files written before playouts existed
    /// drew uniformly).
    #[serde(default)]
    pub sampling: Sampling,
    /// Positions fitted.
    pub train_positions: u64,
    /// Positions held out.
    pub validation_positions: u64,
    /// Mean |estimate − value| on the held-out positions.
    pub validation_mae: f64,
    /// Root mean square error on the held-out positions.
    pub validation_rmse: f64,
    /// The same two figures for the baseline (the split).
    pub baseline_mae: f64,
    /// See `baseline_mae`.
    pub baseline_rmse: f64,
    /// Drawn positions left out because they were on the exclusion list.
    #[serde(default)]
    pub excluded: u64,
    /// The held-out errors per band of levels.
    #[serde(default)]
    pub bands: Vec<BandError>,
}

/// Held-out errors over one band of levels.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BandError {
    /// Levels of the band, inclusive.
    pub levels: (u32, u32),
    /// Held-out positions in the band.
    pub positions: u64,
    /// Mean |estimate − value| of the model.
    pub mae: f64,
    /// Mean |split − value| (the baseline).
    pub baseline_mae: f64,
}

/// Levels per band in [`TrainInfo::bands`] (bands start at multiples of it).
pub const BAND: u32 = 5;

impl TrainInfo {
    /// For a model that was not trained (the baseline).
    pub fn none() -> TrainInfo {
        TrainInfo {
            loop_rule: String::new(),
            levels: (0, 0),
            per_level: 0,
            seed: 0,
            sampling: Sampling::Uniform,
            train_positions: 0,
            validation_positions: 0,
            validation_mae: f64::NAN,
            validation_rmse: f64::NAN,
            baseline_mae: f64::NAN,
            baseline_rmse: f64::NAN,
            excluded: 0,
            bands: Vec::new(),
        }
    }
}

/// Training that cannot run.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TrainError {
    /// The tables do not reach a level asked for.
    #[error("the tables cover levels below {covered}, but training needs level {level}")]
    NotCovered {
        /// Level asked for.
        level: u32,
        /// Levels covered (0..covered).
        covered: u32,
    },
    /// No level or no position.
    #[error("nothing to train on: {0}")]
    Empty(&'static str),
    /// The normal equations are singular.
    #[error("the fit is singular (too few distinct positions)")]
    Singular,
    /// No random playout reached a level (it may be unreachable by play).
    #[error("no random playout from the start reached level {level} ({games} games played); sample higher levels")]
    Unreached {
        /// The level.
        level: u32,
        /// Playouts tried.
        games: u64,
    },
    /// A line of an exclusion list is not a position.
    #[error("exclusion list, line {line}: {msg}")]
    Exclude {
        /// Line number (from 1).
        line: usize,
        /// What is wrong with it.
        msg: String,
    },
}

/// The keys ([`TrainConfig::exclude`]) of the positions listed in `text`:
/// one position per line in the project's notation, optionally followed by
/// a tab and anything (so a quality-set file can be given as it is); blank
/// lines and lines starting with `#` are skipped. Positions still in the
/// opening are never drawn and need no key.
///
/// # Errors
/// [`TrainError::Exclude`] for the first line that is not a position.
pub fn exclusion_keys<G: Game>(text: &str) -> Result<HashSet<u64>, TrainError> {
    let mut keys = HashSet::new();
    for (i, line) in text.lines().enumerate() {
        let pos = line.split('\t').next().unwrap_or("").trim();
        if pos.is_empty() || pos.starts_with('#') {
            continue;
        }
        let st = parse_state::<G>(pos, Stores::Optional).map_err(|e| TrainError::Exclude {
            line: i + 1,
            msg: e.to_string(),
        })?;
        if !st.pos.in_opening() {
            keys.insert(main_key(st.pos.pits));
        }
    }
    Ok(keys)
}

/// The key of the main-phase position with relative board `pits`, as
/// [`draw`] makes it.
fn main_key(pits: [u8; MAX_PITS]) -> u64 {
    main_position(pits).key()
}

/// One drawn position with its exact value and whether it is held out.
struct Sample {
    x: [f64; NUM_FEATURES],
    y: f64,
    base: f64,
    validation: bool,
}

/// Draws the positions of `cfg` from the tables, in a fixed order; also
/// returns how many drawn positions were on the exclusion list.
fn draw<G: Game>(set: &TableSet, cfg: &TrainConfig) -> Result<(Vec<Sample>, u64), TrainError> {
    if cfg.min_level > cfg.max_level || cfg.per_level == 0 {
        return Err(TrainError::Empty("no level or no position per level"));
    }
    if !set.covers(cfg.max_level) {
        return Err(TrainError::NotCovered {
            level: cfg.max_level,
            covered: set.covered(),
        });
    }
    let picks = match cfg.sampling {
        Sampling::Uniform => uniform_picks::<G>(cfg),
        Sampling::Playouts => playout_picks::<G>(cfg)?,
    };
    let holdout = cfg.holdout.max(2);
    let drawn: Vec<Option<Sample>> = picks
        .par_iter()
        .enumerate()
        .filter_map(|(k, pos)| {
            if G::legal_moves(pos).is_empty() {
                return None; // game over: exact, never estimated
            }
            if cfg.exclude.contains(&main_key(pos.pits)) {
                return Some(None);
            }
            Some(Some(Sample {
                x: features::<G>(pos),
                y: set.value::<G>(pos)? as f64,
                base: baseline::<G>(pos),
                validation: (k as u64).is_multiple_of(holdout),
            }))
        })
        .collect();
    let excluded = drawn.iter().filter(|s| s.is_none()).count() as u64;
    Ok((drawn.into_iter().flatten().collect(), excluded))
}

/// What training `cfg` holds in memory at its peak, before it allocates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TrainPlan {
    /// Positions drawn (at most; a uniform draw takes every position of a
    /// smaller level, playouts may find fewer).
    pub positions: u64,
    /// Bytes per position: the drawn position, its sample while drawn and
    /// kept, and its place in the training or held-out list.
    pub bytes_per_position: u64,
    /// Bytes of the normal equations: one partial matrix per chunk of
    /// training positions, summed in order, and the system solved.
    pub fit_bytes: u64,
}

/// Training positions per partial sum of the normal equations.
const FIT_CHUNK: usize = 1 << 14;

impl TrainPlan {
    /// The plan of `cfg` for game `G`.
    pub fn of<G: Game>(cfg: &TrainConfig) -> Self {
        let levels = cfg.min_level..=cfg.max_level;
        let positions: u64 = match cfg.sampling {
            Sampling::Uniform => levels
                .map(|n| cfg.per_level.min(level_size(n as usize, G::PITS)))
                .fold(0, u64::saturating_add),
            Sampling::Playouts => cfg.per_level.saturating_mul(levels.count() as u64),
        };
        let f = NUM_FEATURES as u64;
        let chunks = positions.div_ceil(FIT_CHUNK as u64) + 2;
        TrainPlan {
            positions,
            bytes_per_position: (std::mem::size_of::<Position>()
                + 2 * std::mem::size_of::<Option<Sample>>()
                + std::mem::size_of::<Sample>()
                + std::mem::size_of::<&Sample>()) as u64,
            fit_bytes: chunks * (f * f + f) * 8,
        }
    }

    /// Bytes of the whole plan.
    pub fn bytes(&self) -> u64 {
        self.positions
            .saturating_mul(self.bytes_per_position)
            .saturating_add(self.fit_bytes)
    }
}

/// The main-phase position (mover to move) with relative board `pits`.
fn main_position(pits: [u8; MAX_PITS]) -> Position {
    Position {
        pits,
        side: 0,
        opening: 0,
    }
}

/// `per_level` ranks of each level drawn uniformly (every rank of a smaller
/// level), as positions.
fn uniform_picks<G: Game>(cfg: &TrainConfig) -> Vec<Position> {
    let mut picks = Vec::new();
    for n in cfg.min_level..=cfg.max_level {
        let size = level_size(n as usize, G::PITS);
        for i in 0..cfg.per_level.min(size) {
            let r = if size <= cfg.per_level {
                i
            } else {
                mix64(cfg.seed ^ mix64(((n as u64) << 40) | i)) % size
            };
            picks.push(main_position(unrank(r, n as usize, G::PITS)));
        }
    }
    picks
}

/// Draws per batch of [`Sampling::Playouts`]: a level is given up after a
/// whole batch reached it not once.
pub const PLAYOUT_BATCH: u64 = 1024;

/// `per_level` positions of each level reached by random playouts
/// ([`Sampling::Playouts`]), in parallel and in a fixed order. A level's
/// draws stop after a batch of [`PLAYOUT_BATCH`] draws that all failed.
///
/// # Errors
/// [`TrainError::Unreached`] for a level no playout reached.
fn playout_picks<G: Game>(cfg: &TrainConfig) -> Result<Vec<Position>, TrainError> {
    let mut picks = Vec::new();
    for n in cfg.min_level..=cfg.max_level {
        let found = level_playouts::<G>(cfg, n);
        if found.is_empty() {
            return Err(TrainError::Unreached {
                level: n,
                games: PLAYOUT_BATCH.min(cfg.per_level) * PLAYOUT_TRIES,
            });
        }
        picks.extend(found);
    }
    Ok(picks)
}

/// The positions of level `n` drawn by playouts, batch by batch, until
/// `per_level` draws were made or a whole batch found nothing.
fn level_playouts<G: Game>(cfg: &TrainConfig, n: u32) -> Vec<Position> {
    let mut found = Vec::new();
    let mut start = 0;
    while start < cfg.per_level {
        let end = (start + PLAYOUT_BATCH).min(cfg.per_level);
        let batch: Vec<Position> = (start..end)
            .into_par_iter()
            .filter_map(|i| {
                (0..PLAYOUT_TRIES).find_map(|t| {
                    let seed = mix64(cfg.seed ^ mix64(((n as u64) << 40) | i) ^ mix64(t + 1));
                    playout::<G>(n, seed).map(|pos| main_position(pos.pits))
                })
            })
            .collect();
        if batch.is_empty() {
            break;
        }
        found.extend(batch);
        start = end;
    }
    found
}

/// Plays uniformly random legal moves (generator seeded by `seed`) from the
/// start until the board holds at most `level` seeds outside the opening;
/// the position if it holds exactly `level`.
fn playout<G: Game>(level: u32, mut seed: u64) -> Option<Position> {
    let mut next = || {
        seed = mix64(seed.wrapping_add(0x9E37_79B9_7F4A_7C15));
        seed
    };
    let st = random_playout::<G>(level, &mut next);
    (st.pos.level() == level).then_some(st.pos)
}

/// The most moves a random playout plays ([`random_playout`]).
pub const MAX_PLAYOUT_PLIES: u32 = 10_000;

/// Plays uniformly random legal moves from the start, each picked by one
/// call of `next`, until the board holds at most `level` seeds outside the
/// opening, the game is over (no legal move, or a position repeated with no
/// capture in between: the loop rule of docs/RULES.md §4), or
/// [`MAX_PLAYOUT_PLIES`] moves were played; the state reached (it holds
/// fewer seeds when a capture jumped past `level`, more when the game ended
/// above it).
pub fn random_playout<G: Game>(level: u32, next: &mut impl FnMut() -> u64) -> State {
    let mut st = State {
        pos: G::start(),
        stores: [0, 0],
    };
    let mut stretch = Stretch::new(st.pos);
    for _ in 0..MAX_PLAYOUT_PLIES {
        if st.pos.level() <= level && !st.pos.in_opening() {
            break;
        }
        let moves = G::legal_moves(&st.pos);
        if moves.is_empty() {
            break;
        }
        let captured;
        (st, captured) = st.play::<G>(moves.get((next() % moves.len() as u64) as usize));
        if stretch.repeats(st.pos, captured) {
            break;
        }
    }
    st
}

/// Fits a model for game `G` on the tables' exact values.
///
/// # Errors
/// [`TrainError`] when the tables do not cover the levels or the fit fails.
pub fn train<G: Game>(set: &TableSet, cfg: &TrainConfig) -> Result<Model, TrainError> {
    let (samples, excluded) = draw::<G>(set, cfg)?;
    let train: Vec<&Sample> = samples.iter().filter(|s| !s.validation).collect();
    let valid: Vec<&Sample> = samples.iter().filter(|s| s.validation).collect();
    if train.is_empty() || valid.is_empty() {
        return Err(TrainError::Empty("too few positions to hold some out"));
    }
    let names = feature_names::<G>();
    let weights = fit(&train, names.len(), cfg.ridge)?;
    let est = |s: &Sample| clamp_level(s.base + correction(&s.x, &weights), &s.x);
    let (validation_mae, validation_rmse) = errors(&valid, est);
    let (baseline_mae, baseline_rmse) = errors(&valid, |s| s.base);
    let trained = TrainInfo {
        loop_rule: set.rule.name().to_string(),
        levels: (cfg.min_level, cfg.max_level),
        per_level: cfg.per_level,
        seed: cfg.seed,
        sampling: cfg.sampling,
        train_positions: train.len() as u64,
        validation_positions: valid.len() as u64,
        validation_mae,
        validation_rmse,
        baseline_mae,
        baseline_rmse,
        excluded,
        bands: bands(&valid, est),
    };
    Ok(Model {
        game: G::ID,
        features: names.iter().map(|s| s.to_string()).collect(),
        weights,
        trained,
    })
}

/// The held-out errors of `est` and of the split per band of [`BAND`] levels.
fn bands(valid: &[&Sample], est: impl Fn(&Sample) -> f64) -> Vec<BandError> {
    let band_of = |s: &&Sample| s.x[1] as u32 / BAND;
    let (Some(lo), Some(hi)) = (
        valid.iter().map(band_of).min(),
        valid.iter().map(band_of).max(),
    ) else {
        return Vec::new();
    };
    (lo..=hi)
        .filter_map(|b| {
            let part: Vec<&Sample> = valid.iter().filter(|s| band_of(s) == b).copied().collect();
            let levels = part.iter().map(|s| s.x[1] as u32);
            let levels = (levels.clone().min()?, levels.max()?);
            Some(BandError {
                levels,
                positions: part.len() as u64,
                mae: errors(&part, &est).0,
                baseline_mae: errors(&part, |s| s.base).0,
            })
        })
        .collect()
}

/// Clamps an estimate to ±level, as [`Model::estimate`] does.
fn clamp_level(v: f64, x: &[f64; NUM_FEATURES]) -> f64 {
    v.clamp(-x[1], x[1])
}

/// Mean absolute and root mean square error of `est` over `set`.
fn errors(set: &[&Sample], est: impl Fn(&Sample) -> f64) -> (f64, f64) {
    let n = set.len() as f64;
    let (a, s) = set.iter().fold((0.0, 0.0), |(a, s), x| {
        let e = est(x) - x.y;
        (a + e.abs(), s + e * e)
    });
    (a / n, (s / n).sqrt())
}

/// Ridge least squares on the residual `y − split` over the first `f`
/// features: solves
/// `(XᵀX + λ·m·I) w = Xᵀ(y − split)`, with the sums
/// formed per fixed chunk and added in order (deterministic).
fn fit(train: &[&Sample], f: usize, ridge: f64) -> Result<Vec<f64>, TrainError> {
    let parts: Vec<(Vec<f64>, Vec<f64>)> = train
        .par_chunks(FIT_CHUNK)
        .map(|chunk| {
            let (mut xtx, mut xty) = (vec![0.0; f * f], vec![0.0; f]);
            for s in chunk {
                for i in 0..f {
                    xty[i] += s.x[i] * (s.y - s.base);
                    for j in 0..f {
                        xtx[i * f + j] += s.x[i] * s.x[j];
                    }
                }
            }
            (xtx, xty)
        })
        .collect();
    let mut a = DMatrix::<f64>::zeros(f, f);
    let mut b = DVector::<f64>::zeros(f);
    for (xtx, xty) in &parts {
        a += DMatrix::from_row_slice(f, f, xtx);
        b += DVector::from_column_slice(xty);
    }
    let lambda = ridge * train.len() as f64;
    for i in 1..f {
        a[(i, i)] += lambda.max(1e-9);
    }
    let w = a.cholesky().ok_or(TrainError::Singular)?.solve(&b);
    Ok(w.iter().copied().collect())
}
