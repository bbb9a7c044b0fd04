//! What a resumed build finds in its directory: a level file that checks
//! is kept, a shard that checks is kept, anything else is rebuilt (or,
//! when it cannot be replaced safely, stops the build).

use std::path::Path;

use crate::game::Game;
use crate::tables::error::TableError;
use crate::tables::format;
use crate::tables::shard;
use crate::tables::table::Table;
use crate::value::LoopRule;

/// What a resumed sharded build (distributed or out of core) finds for
/// one shard of a level.
pub(in crate::tables) enum ShardState {
    /// The level's single file opens and checks: the level is kept.
    SingleFile,
    /// The shard checks ([`shard::check_shard`]): kept.
    Shard(shard::ShardInfo),
    /// To build; why what was there is replaced (`None`: nothing was).
    Bad(Option<String>),
}

impl ShardState {
    pub(in crate::tables) fn is_bad(&self) -> bool {
        matches!(self, ShardState::Bad(_))
    }

    /// The info of a good shard.
    pub(in crate::tables) fn kept(&self) -> Option<shard::ShardInfo> {
        match self {
            ShardState::Shard(i) => Some(i.clone()),
            _ => None,
        }
    }

    /// Why what was there is replaced.
    pub(in crate::tables) fn replaced(&self) -> Option<String> {
        match self {
            ShardState::Bad(r) => r.clone(),
            _ => None,
        }
    }
}

/// The state of shard `index` of `of` (ranks `range`) of level `n` in
/// `dir`: the level's single file when there is one, else the shard.
///
/// # Errors
/// As [`existing`] for a single file.
pub(in crate::tables) fn shard_state<G: Game>(
    dir: &Path,
    rule: LoopRule,
    n: u32,
    index: u32,
    of: u32,
    range: std::ops::Range<u64>,
) -> Result<ShardState, TableError> {
    let rules = G::RULES.tables();
    let path = format::level_path(dir, rules, rule, n);
    if std::fs::symlink_metadata(&path).is_ok() {
        return Ok(match existing::<G>(&path, rule, n)? {
            Existing::Kept(_) => ShardState::SingleFile,
            Existing::Build(r) => ShardState::Bad(r),
        });
    }
    Ok(
        match shard::check_shard(dir, rules, rule, n, shard::Place::new(index, of, range)) {
            Ok(info) => ShardState::Shard(info),
            Err(TableError::Missing { .. }) => ShardState::Bad(None),
            Err(e) => ShardState::Bad(Some(e.to_string())),
        },
    )
}

/// Removes level `n`'s single file in `dir` when `state` says it is bad
/// (it would hide the shards about to be written).
///
/// # Errors
/// An I/O error removing it.
pub(in crate::tables) fn remove_single_file<G: Game>(
    dir: &Path,
    rule: LoopRule,
    n: u32,
    state: &ShardState,
) -> Result<(), TableError> {
    let path = format::level_path(dir, G::RULES.tables(), rule, n);
    if state.is_bad() && std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
        std::fs::remove_file(&path).map_err(|e| TableError::Io { path, source: e })?;
    }
    Ok(())
}

/// What a resumed build finds for a level.
pub(super) enum Existing {
    /// A file that opens and checks: kept.
    Kept(Table),
    /// Nothing (`None`), or a file to replace and why.
    Build(Option<String>),
}

/// Opens the file of level `n` at `path` for a resumed build.
///
/// # Errors
/// A file of the other loop rule or game, something other than a regular
/// file, or an I/O error: these stop a build rather than being replaced.
pub(super) fn existing<G: Game>(
    path: &Path,
    rule: LoopRule,
    n: u32,
) -> Result<Existing, TableError> {
    match Table::open(path, G::RULES.tables(), rule, n, G::PITS) {
        Ok(t) => Ok(Existing::Kept(t)),
        Err(TableError::Missing { .. }) => Ok(Existing::Build(None)),
        Err(
            e @ (TableError::WrongRule { .. }
            | TableError::WrongGame { .. }
            | TableError::NotRegular { .. }
            | TableError::Io { .. }),
        ) => Err(e),
        // Truncated, corrupt or of an old format: rebuild it.
        Err(e) => Ok(Existing::Build(Some(e.to_string()))),
    }
}
