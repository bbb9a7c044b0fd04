//! The reports of `tables probe` and `tables verify`.

use std::fmt;
use std::path::PathBuf;

use serde::Serialize;

use super::RulesTag;
use crate::game::{Game, Position};
use crate::notation::{format_board, format_move};
use crate::tables::verify::{LevelOutcome, LevelVerdict, Mismatch};
use crate::tables::{move_values, TableSet};

/// A position the endgame tables cannot answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
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
    /// The position's entry, or a move's, is in damaged data
    /// ([`crate::tables::TableSet::check_damage`]).
    #[error("{0}")]
    Damaged(String),
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
    /// The rule set, when not the game's default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rules: Option<RulesTag>,
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
        let b = set.bounds::<G>(pos);
        let moves = move_values::<G>(set, pos);
        // A damaged entry reads as none: say which, never "not covered".
        set.check_damage()
            .map_err(|e| ProbeError::Damaged(e.to_string()))?;
        let (b, moves) = (b.ok_or(not_covered.clone())?, moves.ok_or(not_covered)?);
        // The best moves are those of the largest (exact) value.
        let best = moves.iter().map(|m| m.value).max();
        Ok(ProbeReport {
            best_moves: moves
                .iter()
                .filter(|m| Some(m.value) == best)
                .map(|m| format_move::<G>(pos, m.mv))
                .collect(),
            game_over: G::end_reason(pos).map(|r| r.describe_under(G::RULES)),
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
            rules: RulesTag::of::<G>(),
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
        RulesTag::header(&self.rules, f)?;
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
    /// Header, checksum, value ranges and every entry checked out.
    Ok {
        /// Entries of the level.
        entries: usize,
        /// Entries checked against their successors (all, or a sample
        /// with `--sample`).
        recomputed: u64,
        /// Whether the level was rebuilt and equal (not with `--sample`):
        /// the least/greatest fixpoints are then proven.
        fixpoints: bool,
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
    /// Every entry agrees with its successors, but the level differs from
    /// its rebuild: not the least `lo` and greatest `hi`.
    NotFixpoints {
        /// Entries that differ.
        count: u64,
        /// The first (lowest rank); "recomputed" is the rebuild.
        first: EntryMismatch,
    },
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
    /// The report of a verdict of `verify_dir` on a level of game `G`.
    pub fn of<G: Game>(v: &LevelVerdict) -> Self {
        let outcome = match &v.outcome {
            LevelOutcome::Ok {
                entries,
                checked,
                fixpoints,
            } => CheckOutcome::Ok {
                entries: *entries as usize,
                recomputed: *checked,
                fixpoints: *fixpoints,
                seconds: v.secs,
            },
            LevelOutcome::Mismatches { count, first } => CheckOutcome::Differ {
                count: *count,
                examples: first.iter().map(EntryMismatch::new::<G>).collect(),
            },
            LevelOutcome::NotFixpoints(m) => CheckOutcome::NotFixpoints {
                count: m.count,
                first: EntryMismatch::new::<G>(&m.first),
            },
            LevelOutcome::Missing => CheckOutcome::Missing,
            LevelOutcome::BadFile(e) => CheckOutcome::Bad {
                error: e.to_string(),
            },
            LevelOutcome::NotRecomputed { .. } => CheckOutcome::Unchecked,
        };
        LevelCheck {
            level: v.level,
            outcome,
            path: v.path.clone(),
        }
    }

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
            CheckOutcome::NotFixpoints { count, first: m } => Some(format!(
                "{p}: {count} entries agree with their successors but differ from the level \
                 rebuilt (not the least/greatest fixpoints); first: rank {} board {}: stored lo {} \
                 hi {}, rebuilt lo {} hi {}",
                m.rank,
                m.board,
                bound(m.stored_lo),
                bound(m.stored_hi),
                bound(m.recomputed_lo),
                bound(m.recomputed_hi)
            )),
        }
    }

    /// Problems counted: one per missing or bad file, one per wrong entry.
    pub fn problems(&self) -> u64 {
        match &self.outcome {
            CheckOutcome::Ok { .. } | CheckOutcome::Unchecked => 0,
            CheckOutcome::Missing | CheckOutcome::Bad { .. } => 1,
            CheckOutcome::Differ { count, .. } | CheckOutcome::NotFixpoints { count, .. } => *count,
        }
    }
}

/// A bound for messages: a value, or −∞/+∞.
fn bound(v: i32) -> String {
    match v {
        crate::value::NEG_INF => "−∞".into(),
        crate::value::POS_INF => "+∞".into(),
        v => v.to_string(),
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
                fixpoints: false,
            } => writeln!(
                f,
                "ok   {p} ({recomputed} of {entries} entries consistent with their successors, a \
                 sample; fixpoints not proven; {seconds:.2}s)"
            ),
            CheckOutcome::Ok {
                entries, seconds, ..
            } => writeln!(
                f,
                "ok   {p} ({entries} entries, consistent and equal to a fresh rebuild; {seconds:.2}s)"
            ),
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
            CheckOutcome::Missing | CheckOutcome::Bad { .. } | CheckOutcome::NotFixpoints { .. } => {
                writeln!(f, "FAIL {}", self.problem().unwrap_or_default())
            }
        }
    }
}
