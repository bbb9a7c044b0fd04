//! Fitting a [`Model`] on exact table values: sampling positions of the
//! covered levels, a held-out validation share, and a ridge least-squares
//! fit solved with `nalgebra` (a Cholesky solve of the normal equations).
//!
//! Training is deterministic: positions are drawn from a seeded generator,
//! partial sums are formed per fixed chunk and added in order, so the same
//! tables, levels and seed give the same weights bit for bit, on any number
//! of threads.

use nalgebra::{DMatrix, DVector};
use rayon::prelude::*;

use super::{baseline, correction, features, Model, FEATURE_NAMES, NUM_FEATURES};
use crate::game::{mix64, Game, Position};
use crate::index::{level_size, unrank};
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
    /// Every `holdout`-th drawn position is kept for validation.
    pub holdout: u64,
    /// Ridge penalty, per training position.
    pub ridge: f64,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            min_level: 6,
            max_level: 16,
            per_level: 200_000,
            seed: 1,
            holdout: 10,
            ridge: 1e-6,
        }
    }
}

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
}

impl TrainInfo {
    /// For a model that was not trained (the baseline).
    pub fn none() -> TrainInfo {
        TrainInfo {
            loop_rule: String::new(),
            levels: (0, 0),
            per_level: 0,
            seed: 0,
            train_positions: 0,
            validation_positions: 0,
            validation_mae: f64::NAN,
            validation_rmse: f64::NAN,
            baseline_mae: f64::NAN,
            baseline_rmse: f64::NAN,
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
}

/// One drawn position with its exact value and whether it is held out.
struct Sample {
    x: [f64; NUM_FEATURES],
    y: f64,
    base: f64,
    validation: bool,
}

/// Draws the positions of `cfg` from the tables, in a fixed order.
fn draw<G: Game>(set: &TableSet, cfg: &TrainConfig) -> Result<Vec<Sample>, TrainError> {
    if cfg.min_level > cfg.max_level || cfg.per_level == 0 {
        return Err(TrainError::Empty("no level or no position per level"));
    }
    if !set.covers(cfg.max_level) {
        return Err(TrainError::NotCovered {
            level: cfg.max_level,
            covered: set.covered(),
        });
    }
    let mut picks = Vec::new();
    for n in cfg.min_level..=cfg.max_level {
        let size = level_size(n as usize, G::PITS);
        let m = cfg.per_level.min(size);
        for i in 0..m {
            let r = if size <= cfg.per_level {
                i
            } else {
                mix64(cfg.seed ^ mix64(((n as u64) << 40) | i)) % size
            };
            picks.push((n, r));
        }
    }
    let holdout = cfg.holdout.max(2);
    let samples = picks
        .par_iter()
        .enumerate()
        .filter_map(|(k, &(n, r))| {
            let pos = Position {
                pits: unrank(r, n as usize, G::PITS),
                side: 0,
                opening: 0,
            };
            if G::legal_moves(&pos).is_empty() {
                return None; // game over: exact, never estimated
            }
            Some(Sample {
                x: features::<G>(&pos),
                y: set.value::<G>(&pos)? as f64,
                base: baseline::<G>(&pos),
                validation: k as u64 % holdout == 0,
            })
        })
        .collect();
    Ok(samples)
}

/// Fits a model for game `G` on the tables' exact values.
///
/// # Errors
/// [`TrainError`] when the tables do not cover the levels or the fit fails.
pub fn train<G: Game>(set: &TableSet, cfg: &TrainConfig) -> Result<Model, TrainError> {
    let samples = draw::<G>(set, cfg)?;
    let train: Vec<&Sample> = samples.iter().filter(|s| !s.validation).collect();
    let valid: Vec<&Sample> = samples.iter().filter(|s| s.validation).collect();
    if train.is_empty() || valid.is_empty() {
        return Err(TrainError::Empty("too few positions to hold some out"));
    }
    let weights = fit(&train, cfg.ridge)?;
    let mut model = Model {
        game: G::ID,
        features: FEATURE_NAMES.iter().map(|s| s.to_string()).collect(),
        weights,
        trained: TrainInfo {
            loop_rule: set.rule.name().to_string(),
            levels: (cfg.min_level, cfg.max_level),
            per_level: cfg.per_level,
            seed: cfg.seed,
            train_positions: train.len() as u64,
            validation_positions: valid.len() as u64,
            validation_mae: 0.0,
            validation_rmse: 0.0,
            baseline_mae: 0.0,
            baseline_rmse: 0.0,
        },
    };
    let est = |s: &Sample| clamp_level(s.base + correction(&s.x, &model.weights), &s.x);
    (model.trained.validation_mae, model.trained.validation_rmse) = errors(&valid, est);
    (model.trained.baseline_mae, model.trained.baseline_rmse) = errors(&valid, |s| s.base);
    Ok(model)
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

/// Ridge least squares on the residual `y − split`: solves
/// `(XᵀX + λ·m·I) w = Xᵀ(y − split)`, with the sums
/// formed per fixed chunk and added in order (deterministic).
fn fit(train: &[&Sample], ridge: f64) -> Result<Vec<f64>, TrainError> {
    const F: usize = NUM_FEATURES;
    let parts: Vec<(Vec<f64>, Vec<f64>)> = train
        .par_chunks(1 << 14)
        .map(|chunk| {
            let (mut xtx, mut xty) = (vec![0.0; F * F], vec![0.0; F]);
            for s in chunk {
                for i in 0..F {
                    xty[i] += s.x[i] * (s.y - s.base);
                    for j in 0..F {
                        xtx[i * F + j] += s.x[i] * s.x[j];
                    }
                }
            }
            (xtx, xty)
        })
        .collect();
    let mut a = DMatrix::<f64>::zeros(F, F);
    let mut b = DVector::<f64>::zeros(F);
    for (xtx, xty) in &parts {
        a += DMatrix::from_row_slice(F, F, xtx);
        b += DVector::from_column_slice(xty);
    }
    let lambda = ridge * train.len() as f64;
    for i in 1..F {
        a[(i, i)] += lambda.max(1e-9);
    }
    let w = a.cholesky().ok_or(TrainError::Singular)?.solve(&b);
    Ok(w.iter().copied().collect())
}
