//! The openings side of the checkpoint: its header for a run's settings,
//! the conversion between results and [`ResultRecord`]s, and opening it
//! fresh or for resuming. The file format itself is [`crate::records`]'s.

use std::path::Path;

use crate::game::{Game, Move, Packed, Position};
use crate::notation::format_state;
use crate::records::{Checkpoint, CheckpointHeader, Loaded, ResultRecord, NO_BEST};
use crate::value::Range;

use super::{Config, LeafResult, OpeningsError};

/// The checkpoint's file name in the output directory.
pub(super) const FILE: &str = "checkpoint.bin";

fn header<G: Game>(cfg: &Config) -> CheckpointHeader {
    CheckpointHeader {
        magic: "ADJI-OPENINGS-1".into(),
        game: G::ID.name().into(),
        root: format_state::<G>(&cfg.root),
        plies: cfg.plies,
        rule: cfg.rule.name().into(),
        budget: cfg.budget.describe(),
    }
}

/// Opens `out`'s checkpoint: resumed when asked and present, else new.
pub(super) fn open<G: Game>(
    cfg: &Config,
    out: &Path,
    resume: bool,
) -> Result<Loaded, OpeningsError> {
    let path = out.join(FILE);
    let h = header::<G>(cfg);
    if resume && path.exists() {
        return Ok(Checkpoint::resume(&path, &h)?);
    }
    Ok(Loaded {
        checkpoint: Checkpoint::create(&path, &h)?,
        records: Vec::new(),
        dropped_bytes: 0,
    })
}

/// The record of `p`'s analysis.
pub(super) fn to_record(p: &Position, r: &LeafResult) -> ResultRecord {
    let k = Packed::pack(p).0;
    ResultRecord {
        key_lo: k as u64,
        key_hi: (k >> 64) as u64,
        value: (r.value.lower, r.value.upper),
        lo: (r.lo.lower, r.lo.upper),
        hi: (r.hi.lower, r.hi.upper),
        best: r.best.map_or(NO_BEST, |m| m.0),
        nodes: r.nodes,
        ms: r.ms,
    }
}

/// The position and analysis a record holds.
pub(super) fn from_record(r: &ResultRecord) -> (Position, LeafResult) {
    let range = |(lower, upper): (i32, i32)| Range { lower, upper };
    let pos = Packed(r.key_lo as u128 | ((r.key_hi as u128) << 64)).unpack();
    (
        pos,
        LeafResult {
            value: range(r.value),
            lo: range(r.lo),
            hi: range(r.hi),
            best: (r.best != NO_BEST).then_some(Move(r.best)),
            nodes: r.nodes,
            ms: r.ms,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use crate::Adjito;

    #[test]
    fn a_record_round_trips_with_and_without_a_best_move() {
        let p = Adjito::start();
        for best in [None, Some(Move(0)), Some(Move(255))] {
            let r = LeafResult {
                value: Range {
                    lower: -3,
                    upper: 5,
                },
                lo: Range::point(-3),
                hi: Range::point(5),
                best,
                nodes: 7,
                ms: 9,
            };
            assert_eq!(from_record(&to_record(&p, &r)), (p, r));
        }
    }
}
