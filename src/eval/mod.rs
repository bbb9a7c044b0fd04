//! A static evaluation learned from the endgame tables: an *estimate* of a
//! position's value, for positions beyond the exact frontier. It is the
//! split plus a linear correction over tactical features (captures,
//! mobility, empty and capturable pits) that do not grow with the level,
//! and a per-pit board feature (see [`feature_names`]).
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

use crate::game::{Game, GameId, Position, MAX_PITS};

/// The features every game shares, in order; a game's own per-pit
/// features follow them ([`Game::EVAL_PIT`]). Counts are over the
/// relative board: "own" is the mover's row, "opp" the opponent's.
pub const COMMON_FEATURES: &[&str] = &[
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
];

/// Room in a feature vector: the shared features and the most pits of a
/// game ([`crate::game::MAX_PITS`]).
pub const NUM_FEATURES: usize = 14 + crate::game::MAX_PITS;

/// Names of game `G`'s features, in order: the shared ones, then one per
/// pit named by the game's stem (`pit_0`, or `sown_across_0`, …); a
/// feature vector uses the first `feature_names::<G>().len()` of its
/// [`NUM_FEATURES`] slots.
pub fn feature_names<G: Game>() -> Vec<String> {
    let (stem, _) = G::EVAL_PIT;
    let pits = (0..G::PITS).map(|i| format!("{stem}_{i}"));
    COMMON_FEATURES
        .iter()
        .map(|s| s.to_string())
        .chain(pits)
        .collect()
}

/// The feature vector of a main-phase position (relative to its mover).
/// The tactical counts do not grow with the seeds on the board; the board
/// part is the pit counts (Adjito) or the seeds each pit would sow across
/// (Adji-Boto), see [`Game::EVAL_PIT`].
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
        f[10 + side] = row
            .iter()
            .filter(|&&x| crate::adjiboto::takes(x as u64))
            .count() as f64;
        f[12 + side] = row.iter().filter(|&&x| x as usize >= G::PITS).count() as f64;
    }
    let (_, pit_feature) = G::EVAL_PIT;
    for i in 0..G::PITS {
        f[14 + i] = pit_feature(&pos.pits, i);
    }
    f
}

/// Swaps the two rows of a relative board of `G`.
fn flip<G: Game>(pits: &[u8; MAX_PITS]) -> [u8; MAX_PITS] {
    let (n, h) = (G::PITS, G::HALF);
    let mut r = [0u8; MAX_PITS];
    r[..h].copy_from_slice(&pits[h..n]);
    r[h..n].copy_from_slice(&pits[..h]);
    r
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
    /// Feature names (must equal [`feature_names`] of the game).
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
    /// The file cannot be read as a model file: missing, not a regular
    /// file (a FIFO or device, refused before it is opened), larger than
    /// [`MODEL_MAX_BYTES`], or not text.
    #[error("{0}")]
    Read(#[from] std::io::Error),
}

/// The largest model file read: a model is a few kilobytes of JSON, so
/// anything near this is not one.
pub const MODEL_MAX_BYTES: u64 = 16 << 20;

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
        let names = feature_names::<G>();
        if m.features.len() != names.len()
            || m.weights.len() != names.len()
            || m.features.iter().zip(names).any(|(a, b)| *a != b)
        {
            return Err(ModelError::Features);
        }
        if m.weights.iter().any(|w| !w.is_finite()) {
            return Err(ModelError::NotFinite);
        }
        Ok(m)
    }

    /// The model named `path` for game `G`: `baseline` (the split alone,
    /// [`Model::baseline`]) or a model file, read only if it is a regular
    /// file of at most [`MODEL_MAX_BYTES`] (so a FIFO cannot block the
    /// reader, nor `/dev/zero` grow it). Every front end (`--eval`,
    /// `adji.analyse(eval=...)`) loads through here.
    ///
    /// # Errors
    /// [`ModelError::Read`] for a file that cannot be read so, the other
    /// variants for one that is not a model of `G`.
    pub fn load<G: Game>(path: &std::path::Path) -> Result<Model, ModelError> {
        if path.as_os_str() == "baseline" {
            return Ok(Model::baseline::<G>());
        }
        let text = crate::fsutil::read_regular_to_string(path, MODEL_MAX_BYTES)?;
        Model::from_json::<G>(&text)
    }

    /// The weights shipped in the binary (made by the command in
    /// `results/analysis.md`).
    pub fn default_for<G: Game>() -> Model {
        Model::from_json::<G>(G::EVAL_WEIGHTS).expect("shipped weights are valid (tested)")
    }

    /// The baseline as a model: no correction to the split (own row minus
    /// the opponent's), which is the `start` loop rule's `w`.
    pub fn baseline<G: Game>() -> Model {
        let names = feature_names::<G>();
        let weights = vec![0.0; names.len()];
        Model {
            game: G::ID,
            features: names,
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

/// The model's correction to the split: the weighted features (the
/// weights are as many as the game's features).
pub(crate) fn correction(f: &[f64; NUM_FEATURES], w: &[f64]) -> f64 {
    f.iter().zip(w).map(|(x, w)| x * w).sum()
}

/// The baseline estimate: the split, i.e. the `start` loop rule's `w`.
pub fn baseline<G: Game>(pos: &Position) -> f64 {
    G::split(pos) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::AdjiBoto;

    /// The Adji-Boto pit feature: the seeds the pit's move sows onto the
    /// other row, laps through the origin included.
    fn across(i: usize, s: u8) -> f64 {
        let mut pits = [0; crate::game::MAX_PITS];
        pits[i] = s;
        let pos = Position {
            pits,
            side: 0,
            opening: 0,
        };
        features::<AdjiBoto>(&pos)[14 + i]
    }

    #[test]
    fn sown_across_counts_the_seeds_landing_on_the_other_row() {
        assert_eq!(across(0, 1), 0.0); // a single seed is never sown
        assert_eq!(across(0, 3), 0.0); // pits 1, 2
        assert_eq!(across(4, 3), 2.0); // pits 5, 6
        assert_eq!(across(3, 8), 5.0); // pits 4, 5..9, 0
        assert_eq!(across(7, 4), 1.0); // pits 8, 9 (own row 5..9), 0
        assert_eq!(across(2, 12), 5.0); // a lap (5 across), then pit 3
        assert_eq!(across(3, 30), 15.0); // two laps, then 4..9, 0..2
    }

    /// On a board where no move captures, a move's seeds on the other row
    /// grow by exactly its feature.
    #[test]
    fn sown_across_matches_play() {
        let mut boards = vec![[2, 7, 12, 30, 4, 0, 0, 0, 0, 0, 0, 0]];
        for i in 0..5 {
            for s in 2..=64 {
                let mut b = [0; crate::game::MAX_PITS];
                b[i] = s;
                boards.push(b);
            }
        }
        let (mut checked, mut laps) = (0, 0);
        for pits in boards {
            let pos = Position {
                pits,
                side: 0,
                opening: 0,
            };
            let f = features::<AdjiBoto>(&pos);
            for mv in AdjiBoto::legal_moves(&pos).iter() {
                let p = AdjiBoto::play_unchecked(&pos, mv);
                if p.captured > 0 {
                    continue;
                }
                // The child is seen by the opponent: their own row comes first.
                let before: u32 = pos.pits[5..10].iter().map(|&x| x as u32).sum();
                let after: u32 = p.pos.pits[..5].iter().map(|&x| x as u32).sum();
                assert_eq!(
                    (after - before) as f64,
                    f[14 + mv.0 as usize],
                    "{pits:?} move {}",
                    mv.0
                );
                checked += 1;
                laps += (pos.pits[mv.0 as usize] > 10) as u32;
            }
        }
        // Half of the one-pit boards end in a capture; of the rest, many lap.
        assert!(checked > 150 && laps > 50, "{checked} {laps}");
    }
}
