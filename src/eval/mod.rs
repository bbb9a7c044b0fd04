//! A static evaluation learned from the endgame tables: an *estimate* of a
//! position's value, for positions beyond the exact frontier. It is the
//! split plus a linear correction over tactical features (captures,
//! mobility, empty and capturable pits) that do not grow with the level.
//!
//! This module owns the features of a position ([`features`]), the linear
//! [`Model`] over them with its file format (JSON), and the default weights
//! shipped in the binary ([`Model::default_for`]). Training lives in
//! [`train`]. An estimate is never a value: it carries no proof, and every
//! consumer keeps it apart from exact values and proven bounds.
//!
//! The baseline that a model must beat is the split (the seeds on each
//! side), which is the `start` loop rule's `w`.

pub mod train;

use crate::game::{rotate_half, Game, GameId, Position};

/// Names of the features, in order. Counts are over the relative board:
/// "own" is the mover's row, "opp" the opponent's.
pub const FEATURE_NAMES: &[&str] = &[
    "bias",
    "level",
    "own_best_capture",
    "opp_best_capture",
    "own_capturing_moves",
    "opp_capturing_moves",
    "own_mobility",
    "opp_mobility",
    "own_empty_pits",
    "opp_empty_pits",
    "own_pits_1_3_5",
    "opp_pits_1_3_5",
    "own_big_pits",
    "opp_big_pits",
    "pit_0",
    "pit_1",
    "pit_2",
    "pit_3",
    "pit_4",
    "pit_5",
    "pit_6",
    "pit_7",
    "pit_8",
    "pit_9",
    "pit_10",
    "pit_11",
];

/// Number of features.
pub const NUM_FEATURES: usize = FEATURE_NAMES.len();

/// The feature vector of a main-phase position (relative to its mover).
/// None grows with the seeds on the board beyond a pit count or a capture,
/// so a model fitted on small levels carries over to larger ones.
pub fn features<G: Game>(pos: &Position) -> [f64; NUM_FEATURES] {
    let mut f = [0.0; NUM_FEATURES];
    let h = G::HALF;
    let opp = Position {
        pits: flip::<G>(&pos.pits),
        side: pos.side ^ 1,
        opening: 0,
    };
    let (own_cap, own_caps, own_mob) = tactics::<G>(pos);
    let (opp_cap, opp_caps, opp_mob) = tactics::<G>(&opp);
    f[0] = 1.0;
    f[1] = pos.level() as f64;
    f[2] = own_cap as f64;
    f[3] = opp_cap as f64;
    f[4] = own_caps as f64;
    f[5] = opp_caps as f64;
    f[6] = own_mob as f64;
    f[7] = opp_mob as f64;
    let rows = [&pos.pits[..h], &pos.pits[h..G::PITS]];
    for (side, row) in rows.iter().enumerate() {
        f[8 + side] = row.iter().filter(|&&x| x == 0).count() as f64;
        f[10 + side] = row.iter().filter(|&&x| matches!(x, 1 | 3 | 5)).count() as f64;
        f[12 + side] = row.iter().filter(|&&x| x as usize >= G::PITS).count() as f64;
    }
    for i in 0..G::PITS {
        f[14 + i] = pos.pits[i] as f64;
    }
    f
}

fn flip<G: Game>(pits: &[u8; crate::game::MAX_PITS]) -> [u8; crate::game::MAX_PITS] {
    match G::PITS {
        12 => rotate_half::<12>(pits),
        10 => rotate_half::<10>(pits),
        _ => unreachable!("games have 10 or 12 pits"),
    }
}

/// The mover's best single capture, number of capturing moves, and number
/// of legal moves.
fn tactics<G: Game>(pos: &Position) -> (u8, u32, u32) {
    let mut best = 0;
    let mut capturing = 0;
    let moves = G::legal_moves(pos);
    for mv in moves.iter() {
        let c = G::play_unchecked(pos, mv).captured;
        best = best.max(c);
        capturing += (c > 0) as u32;
    }
    (best, capturing, moves.len() as u32)
}

/// A linear model over [`features`], with what it was trained on.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Model {
    /// The game.
    pub game: GameId,
    /// Feature names (must equal [`FEATURE_NAMES`]).
    pub features: Vec<String>,
    /// One weight per feature.
    pub weights: Vec<f64>,
    /// How the weights were made.
    pub trained: train::TrainInfo,
}

/// A model file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// Not valid JSON for a model.
    #[error("not an adji evaluation model: {0}")]
    Format(#[from] serde_json::Error),
    /// Made for the other game.
    #[error("the model is for {found}, not {expected}")]
    WrongGame {
        /// Game wanted.
        expected: GameId,
        /// Game in the file.
        found: GameId,
    },
    /// Features differ from this version's.
    #[error("the model's features do not match this version of adji (retrain it with `adji eval train`)")]
    Features,
    /// A weight is not a finite number.
    #[error("the model has a weight that is not a finite number")]
    NotFinite,
}

impl Model {
    /// Parses and checks a model for game `G`.
    ///
    /// # Errors
    /// [`ModelError`] naming what is wrong.
    pub fn from_json<G: Game>(text: &str) -> Result<Model, ModelError> {
        let m: Model = serde_json::from_str(text)?;
        if m.game != G::ID {
            return Err(ModelError::WrongGame {
                expected: G::ID,
                found: m.game,
            });
        }
        if m.features.len() != NUM_FEATURES
            || m.weights.len() != NUM_FEATURES
            || m.features.iter().zip(FEATURE_NAMES).any(|(a, b)| a != b)
        {
            return Err(ModelError::Features);
        }
        if m.weights.iter().any(|w| !w.is_finite()) {
            return Err(ModelError::NotFinite);
        }
        Ok(m)
    }

    /// The weights shipped in the binary (made by the command in
    /// `results/analysis.md`).
    pub fn default_for<G: Game>() -> Model {
        let text = match G::ID {
            GameId::Adjito => include_str!("weights-adjito.json"),
            GameId::AdjiBoto => include_str!("weights-adjiboto.json"),
        };
        Model::from_json::<G>(text).expect("shipped weights are valid (tested)")
    }

    /// The baseline as a model: no correction to the split (own row minus
    /// the opponent's), which is the `start` loop rule's `w`.
    pub fn baseline<G: Game>() -> Model {
        let weights = vec![0.0; NUM_FEATURES];
        Model {
            game: G::ID,
            features: FEATURE_NAMES.iter().map(|s| s.to_string()).collect(),
            weights,
            trained: train::TrainInfo::none(),
        }
    }

    /// The estimate of a main-phase position, in seeds for the mover: the
    /// split plus the model's correction, clamped to what the seeds on the
    /// board allow.
    pub fn estimate<G: Game>(&self, pos: &Position) -> f64 {
        let f = features::<G>(pos);
        let v = baseline::<G>(pos) + correction(&f, &self.weights);
        let n = pos.level() as f64;
        v.clamp(-n, n)
    }
}

/// The model's correction to the split: the weighted features.
pub(crate) fn correction(f: &[f64; NUM_FEATURES], w: &[f64]) -> f64 {
    f.iter().zip(w).map(|(x, w)| x * w).sum()
}

/// The baseline estimate: the split, i.e. the `start` loop rule's `w`.
pub fn baseline<G: Game>(pos: &Position) -> f64 {
    G::split(pos) as f64
}
