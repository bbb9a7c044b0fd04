//! The reports of `tables probe` and `tables verify`.

use std::fmt;
use std::path::PathBuf;

use serde::Serialize;

use crate::game::{Game, Position};
use crate::notation::{format_board, format_move};
use crate::tables::verify::Mismatch;
use crate::tables::{move_values, TableSet};

/// A position the endgame tables cannot answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProbeError {
    /// Adji-Boto's opening phase is not in the tables.
    #[error("tables cover positions after the opening only (phase `main`)")]
    Opening,
    /// The level (or a level a move leads to) is not built.
    #[error(
        "level {level} ({level} seeds on the board) is not built; tables cover levels 0..={}",
        *.covered as i64 - 1
    )]
    NotCovered {
        /// The position's level.
        level: u32,
        /// Levels the tables cover (`0..covered`).
        covered: u32,
    },
}

/// One move's value from the tables.
#[derive(Clone, Debug, Serialize)]
pub struct ProbeMove {
    /// Its name.
    #[serde(rename = "move")]
    pub mv: String,
    /// Its value for the mover.
    pub value: i32,
}

/// `tables probe`: a position's value, bounds and move values from the tables.
#[derive(Clone, Debug, Serialize)]
pub struct ProbeReport {
    /// The moves of the best value.
    pub best_moves: Vec<String>,
    /// Why the game is over, if it is.
    pub game_over: Option<&'static str>,
    /// The value when endless play is the best outcome for the mover.
    pub hi: i32,
    /// The value when endless play is the worst outcome for the mover.
    pub lo: i32,
    /// Whether the value depends on how endless play is scored.
    pub loop_sensitive: bool,
    /// Every legal move's value.
    pub moves: Vec<ProbeMove>,
    /// The board and mover.
    pub position: String,
    /// The value (seeds on the board, mover minus opponent).
    pub value: i32,
}

impl ProbeReport {
    /// Looks `pos` up in `set`.
    ///
    /// # Errors
    /// [`ProbeError`] for an opening position or a level not covered.
    pub fn new<G: Game>(set: &TableSet, pos: &Position) -> Result<Self, ProbeError> {
        if pos.in_opening() {
            return Err(ProbeError::Opening);
        }
        let not_covered = ProbeError::NotCovered {
            level: pos.level(),
            covered: set.covered(),
        };
        let b = set.bounds::<G>(pos).ok_or(not_covered)?;
        let moves = move_values::<G>(set, pos).ok_or(not_covered)?;
        // The best moves are those of the largest (exact) value.
        let best = moves.iter().map(|m| m.value).max();
        Ok(ProbeReport {
            best_moves: moves
                .iter()
                .filter(|m| Some(m.value) == best)
                .map(|m| format_move::<G>(pos, m.mv))
                .collect(),
            game_over: G::end_reason(pos).map(|r| r.describe()),
            hi: b.hi,
            lo: b.lo,
            loop_sensitive: b.loop_sensitive(),
            moves: moves
                .iter()
                .map(|m| ProbeMove {
                    mv: format_move::<G>(pos, m.mv),
                    value: m.value,
                })
                .collect(),
            position: format_board::<G>(pos),
            value: b.value(set.rule.w::<G>(pos)),
        })
    }
}

/// Win, draw or loss for the mover of a final margin.
fn outcome(margin: i32) -> &'static str {
    match margin.signum() {
        1 => "win",
        0 => "draw",
        _ => "loss",
    }
}

impl fmt::Display for ProbeReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "position {}", self.position)?;
        writeln!(
            f,
            "value {:+} ({} for the mover), loop-sensitive: {}",
            self.value,
            outcome(self.value),
            self.loop_sensitive
        )?;
        if let Some(r) = self.game_over {
            writeln!(f, "game over: {r}")?;
        }
        for m in &self.moves {
            writeln!(f, "  {:>5} {:+}", m.mv, m.value)?;
        }
        if !self.best_moves.is_empty() {
            writeln!(f, "best: {}", self.best_moves.join(" "))?;
        }
        Ok(())
    }
}

/// An entry of a table file whose stored bounds differ from its successors.
#[derive(Clone, Debug, Serialize)]
pub struct EntryMismatch {
    /// The board (relative to the mover).
    pub board: String,
    /// Its rank in the level.
    pub rank: u64,
    /// Recomputed `hi`.
    pub recomputed_hi: i32,
    /// Recomputed `lo`.
    pub recomputed_lo: i32,
    /// Stored `hi`.
    pub stored_hi: i32,
    /// Stored `lo`.
    pub stored_lo: i32,
}

impl EntryMismatch {
    /// The report of a mismatch of game `G`.
    pub fn new<G: Game>(m: &Mismatch) -> Self {
        EntryMismatch {
            board: format_board::<G>(&m.position),
            rank: m.index,
            recomputed_hi: m.recomputed.hi,
            recomputed_lo: m.recomputed.lo,
            stored_hi: m.stored.hi,
            stored_lo: m.stored.lo,
        }
    }
}

/// What `tables verify` found for one level of one game and loop rule.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum CheckOutcome {
    /// Header, checksum and every entry check out.
    Ok {
        /// Entries of the level.
        entries: usize,
        /// Entries recomputed (all, or a sample with `--sample`).
        recomputed: u64,
        /// Seconds taken.
        seconds: f64,
    },
    /// The file is missing (levels above it cannot be recomputed).
    Missing,
    /// The file cannot be opened as this level's table.
    Bad {
        /// Why.
        error: String,
    },
    /// Entries differ from their successors.
    Differ {
        /// How many.
        count: u64,
        /// The first few.
        examples: Vec<EntryMismatch>,
    },
    /// Header and checksum are fine, but a lower level is missing or bad,
    /// so the entries were not recomputed.
    Unchecked,
}

/// One level checked by `tables verify`.
#[derive(Clone, Debug, Serialize)]
pub struct LevelCheck {
    /// The level.
    pub level: u32,
    /// What was found.
    pub outcome: CheckOutcome,
    /// The file.
    pub path: PathBuf,
}

impl LevelCheck {
    /// The problem found, in one line (none for `Ok` and `Unchecked`,
    /// whose cause is reported at a lower level).
    pub fn problem(&self) -> Option<String> {
        let p = self.path.display();
        match &self.outcome {
            CheckOutcome::Ok { .. } | CheckOutcome::Unchecked => None,
            CheckOutcome::Missing => Some(format!(
                "{p}: level {} is missing; the levels above it cannot be verified",
                self.level
            )),
            CheckOutcome::Bad { error } => Some(error.clone()),
            CheckOutcome::Differ { count, .. } => {
                Some(format!("{p}: {count} entries differ from their successors"))
            }
        }
    }

    /// Problems counted: one per missing or bad file, one per wrong entry.
    pub fn problems(&self) -> u64 {
        match &self.outcome {
            CheckOutcome::Ok { .. } | CheckOutcome::Unchecked => 0,
            CheckOutcome::Missing | CheckOutcome::Bad { .. } => 1,
            CheckOutcome::Differ { count, .. } => *count,
        }
    }
}

impl fmt::Display for LevelCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = self.path.display();
        match &self.outcome {
            CheckOutcome::Ok {
                entries,
                recomputed,
                seconds,
            } if *recomputed < *entries as u64 => writeln!(
                f,
                "ok   {p} ({recomputed} of {entries} entries recomputed, a sample; {seconds:.2}s)"
            ),
            CheckOutcome::Ok {
                entries, seconds, ..
            } => writeln!(f, "ok   {p} ({entries} entries, {seconds:.2}s)"),
            CheckOutcome::Unchecked => writeln!(
                f,
                "SKIP {p}: header and checksum ok; entries not recomputed (a lower level is missing or bad)"
            ),
            CheckOutcome::Differ { examples, .. } => {
                writeln!(f, "FAIL {}", self.problem().unwrap_or_default())?;
                for m in examples {
                    writeln!(
                        f,
                        "     rank {} board {}: stored lo {} hi {}, recomputed lo {} hi {}",
                        m.rank, m.board, m.stored_lo, m.stored_hi, m.recomputed_lo, m.recomputed_hi
                    )?;
                }
                Ok(())
            }
            CheckOutcome::Missing | CheckOutcome::Bad { .. } => {
                writeln!(f, "FAIL {}", self.problem().unwrap_or_default())
            }
        }
    }
}
