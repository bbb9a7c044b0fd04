//! The openings side of the checkpoint: its header for a run's settings,
//! the conversion between results and [`ResultRecord`]s, and opening it
//! fresh or for resuming. The file format itself is [`crate::records`]'s.

use std::path::{Path, PathBuf};

use crate::game::{Game, Move, Packed, Position};
use crate::notation::format_state;
use crate::records::{
    Checkpoint, CheckpointError, CheckpointHeader, Loaded, ResultRecord, NO_BEST,
};
use crate::value::{possible_hi, possible_lo, possible_value, Range};

use super::{Config, LeafEstimate, LeafResult, OpeningsError, Tree};

/// The checkpoint's file name in the output directory.
pub(crate) const FILE: &str = "checkpoint.bin";

pub(super) fn header<G: Game>(cfg: &Config) -> CheckpointHeader {
    CheckpointHeader {
        magic: crate::records::MAGIC.into(),
        game: G::ID.name().into(),
        root: format_state::<G>(&cfg.root),
        plies: cfg.plies,
        rule: cfg.rule.name().into(),
        budget: cfg.budget.describe(),
        rules: G::RULES.name().into(),
    }
}

/// Opens `out`'s checkpoint: resumed when asked and present, else new.
pub(super) fn open<G: Game>(
    cfg: &Config,
    out: &Path,
    resume: bool,
) -> Result<Loaded, OpeningsError> {
    open_at::<G>(cfg, &out.join(FILE), resume)
}

/// Opens the checkpoint at `path`: resumed when asked and present, else new.
fn open_at<G: Game>(cfg: &Config, path: &Path, resume: bool) -> Result<Loaded, OpeningsError> {
    let h = header::<G>(cfg);
    if resume && path.exists() {
        return Ok(Checkpoint::resume(path, &h)?);
    }
    Ok(Loaded {
        checkpoint: Checkpoint::create(path, &h)?,
        records: Vec::new(),
        dropped_bytes: 0,
        dropped_from: None,
    })
}

/// Prefix and suffix of the checkpoint file of each rank of a distributed run.
const RANK_FILE: (&str, &str) = ("checkpoint.rank-", ".bin");

/// Opens the checkpoint of rank `rank` of a distributed run in `out`, as
/// [`open`] does the one-process checkpoint.
pub(super) fn open_rank<G: Game>(
    cfg: &Config,
    out: &Path,
    resume: bool,
    rank: usize,
) -> Result<Loaded, OpeningsError> {
    let name = format!("{}{rank}{}", RANK_FILE.0, RANK_FILE.1);
    open_at::<G>(cfg, &out.join(name), resume)
}

/// The rank checkpoints present in `out`.
pub(super) fn rank_files(out: &Path) -> Result<Vec<PathBuf>, OpeningsError> {
    let io = |e| OpeningsError::Io(out.to_path_buf(), e);
    let mut v = Vec::new();
    for e in std::fs::read_dir(out).map_err(io)? {
        let e = e.map_err(io)?;
        let name = e.file_name().to_string_lossy().into_owned();
        let rank = name
            .strip_prefix(RANK_FILE.0)
            .and_then(|x| x.strip_suffix(RANK_FILE.1));
        if rank.is_some_and(|r| r.parse::<usize>().is_ok()) {
            v.push(e.path());
        }
    }
    v.sort();
    Ok(v)
}

/// The records of the checkpoint at `path` (a bad tail is cut off, as on
/// resume), checked against the run's settings.
pub(super) fn records<G: Game>(
    cfg: &Config,
    path: &Path,
) -> Result<Vec<ResultRecord>, OpeningsError> {
    Ok(Checkpoint::resume(path, &header::<G>(cfg))?.records)
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
        estimate: r.estimate.map(|e| (e.centi, e.depth)),
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
            estimate: r
                .estimate
                .map(|(centi, depth)| LeafEstimate { centi, depth }),
        },
    )
}

/// The unique position of `tree` each of `records` (read from the
/// checkpoint at `path`) belongs to, and its analysis, once checked to be
/// one the analysis can write ([`check`]).
///
/// # Errors
/// [`CheckpointError::Record`] for the first record that is not, naming
/// its frame (record `i` is frame `i + 1`, after the header).
pub(super) fn checked<'a, G: Game>(
    tree: &'a Tree,
    path: &'a Path,
    records: &'a [ResultRecord],
) -> impl Iterator<Item = Result<(usize, LeafResult), CheckpointError>> + 'a {
    records.iter().enumerate().map(move |(i, r)| {
        check::<G>(tree, r).map_err(|what| CheckpointError::Record {
            path: path.to_path_buf(),
            frame: i + 1,
            what,
        })
    })
}

/// `r`'s unique position in `tree` and its analysis, or what makes it one
/// no analysis writes: a position that is not one of `tree`'s unique
/// positions (or a key with bits no position has); bounds out of order, or
/// outside `±n` for the `n` seeds on its board (`lo` may also be −∞, `hi`
/// +∞: [`possible_lo`], [`possible_hi`]); a best move that is not legal there or
/// for a value that is not exact; an estimate for an exact value or outside
/// the value's bounds.
fn check<G: Game>(tree: &Tree, r: &ResultRecord) -> Result<(usize, LeafResult), String> {
    let (pos, res) = from_record(r);
    let key = r.key_lo as u128 | ((r.key_hi as u128) << 64);
    let u = (Packed::pack(&pos).0 == key)
        .then(|| tree.unique_index(&pos))
        .flatten()
        .ok_or("its position is not one of this run's positions")?;
    let n = pos.level() as i32;
    let within = |name: &str, b: Range, possible: fn(i32, i32) -> bool| {
        let ok = |v: i32| possible(n, v);
        if b.lower > b.upper {
            Err(format!(
                "its {name} lower bound {} is above its upper bound {}",
                b.lower, b.upper
            ))
        } else if !ok(b.lower) || !ok(b.upper) {
            Err(format!(
                "its {name} bounds {}..{} go below or above the ±{n} seeds on its board",
                b.lower, b.upper
            ))
        } else {
            Ok(())
        }
    };
    within("value", res.value, possible_value)?;
    within("`lo`", res.lo, possible_lo)?;
    within("`hi`", res.hi, possible_hi)?;
    if let Some(m) = res.best {
        if !G::legal_moves(&pos).iter().any(|x| x == m) {
            return Err(format!(
                "its best move {} is not legal in its position",
                m.0
            ));
        }
        if !res.value.exact() {
            return Err("it has a best move for a value that is not exact".into());
        }
    }
    if let Some(e) = res.estimate {
        let s = i64::from(crate::engine::SCALE);
        let (lower, upper) = (
            i64::from(res.value.lower) * s,
            i64::from(res.value.upper) * s,
        );
        if res.value.exact() || !(lower..=upper).contains(&i64::from(e.centi)) {
            return Err(format!(
                "its estimate {} (1/{s} seeds) is not inside its inexact value's bounds",
                e.centi
            ));
        }
    }
    Ok((u, res))
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
                estimate: best.map(|_| LeafEstimate {
                    centi: 150,
                    depth: 4,
                }),
            };
            assert_eq!(from_record(&to_record(&p, &r)), (p, r));
        }
    }
}
