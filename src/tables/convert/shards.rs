//! Shards merged into the level file ([`merge_level`]), byte for byte
//! what a one-process build writes, and a level split into shards and
//! their manifest ([`split_level`]); each result opened as a [`Table`]
//! reads it.

use std::path::{Path, PathBuf};

use crate::fsutil::write_atomic_with;
use crate::rules::RuleSet;
use crate::tables::error::TableError;
use crate::tables::format;
use crate::tables::locate::{locate_level, LevelAt};
use crate::tables::payload::OpenCheck;
use crate::tables::shard::{
    copy_merged, find_manifest, open_parts, write_manifest, write_shard_with, Place, ShardInfo,
    MAX_SHARDS,
};
use crate::tables::table::Table;
use crate::value::LoopRule;

/// What [`merge_level`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Merged {
    /// The level file was written.
    Written(PathBuf),
    /// A level file was already there, its header and payload those the
    /// shards merge into (it opens and checks, its header is the
    /// manifest's); kept.
    Kept(PathBuf),
    /// A level file was already there but is not what the shards merge
    /// into, or does not open (the reason); replaced, atomically.
    Replaced(PathBuf, String),
}

/// Splits level `level` in `dir`, read from its level file or else its
/// compressed file (opened and checked in full), into `shards` shards of
/// nearly equal size and their manifest in `out`. Returns the shards'
/// infos.
///
/// # Errors
/// [`TableError::Missing`] when the level has neither in `dir` (a
/// manifest does not count); [`TableError::Shards`] for `shards == 0` or
/// more than [`MAX_SHARDS`]; errors of opening the file and writing.
pub fn split_level(
    dir: &Path,
    out: &Path,
    rules: RuleSet,
    rule: LoopRule,
    level: u32,
    shards: u32,
) -> Result<Vec<ShardInfo>, TableError> {
    let rules = rules.tables();
    let path = format::level_path(dir, rules, rule, level);
    if shards == 0 {
        return Err(TableError::shards(&path, "cannot split into 0 shards"));
    }
    if shards > MAX_SHARDS {
        return Err(TableError::shards(
            &path,
            format!(
                "cannot split into {shards} shards: a level has at most {MAX_SHARDS} (readers \
                 map every shard, and a process may hold only so many mappings)"
            ),
        ));
    }
    if let LevelAt::Shards(_) = locate_level(dir, rules, rule, level) {
        return Err(TableError::Missing { level, path });
    }
    let t = Table::open(&path, rules, rule, level, format::pits_of(rules.game()))?;
    let total = t.len() as u64;
    let at = |i: u32| (total as u128 * i as u128 / shards as u128) as u64;
    let infos = (0..shards)
        .map(|i| {
            let first = at(i);
            // A damaged entry (the file changed since it was checked) is
            // written as the widest bounds, and the split then refused.
            let bounds = |j: usize| {
                t.bound_bytes(first as usize + j)
                    .unwrap_or((format::EXCEPTION as u8, crate::value::POS_INF_BYTE as u8))
            };
            let place = Place::new(i, shards, first..at(i + 1));
            write_shard_with(out, rules, rule, level, place, &bounds)
        })
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(e) = t.damage() {
        return Err(e);
    }
    write_manifest(out, rules, rule, level, &infos)?;
    Ok(infos)
}

/// Merges the shards of `level` found in `dirs` (shards may be spread
/// over them; each may hold a copy of the manifest, and the copies must
/// agree) into the level file in `out`, byte for byte the file a
/// one-process build writes. A level file already in `out` is kept only
/// when it is that file (the manifest's header over a payload that
/// checks); any other is replaced ([`Merged::Replaced`] says why). Every
/// shard's checksums and the payload's are checked while copying; the file
/// is written atomically.
///
/// # Errors
/// [`TableError::Missing`] when no dir has the level's manifest; one
/// [`TableError`] naming the file and what is wrong otherwise.
pub fn merge_level(
    dirs: &[PathBuf],
    out: &Path,
    rules: RuleSet,
    rule: LoopRule,
    level: u32,
) -> Result<Merged, TableError> {
    let rules = rules.tables();
    let (m, manifest) = find_manifest(dirs, rules, rule, level)?;
    let target = format::level_path(out, rules, rule, level);
    let pits = format::pits_of(rules.game());
    let header = m.level_header(rules, rule);
    // A file already there is kept only when it is what the merge writes:
    // the manifest's header (its payload CRC among it) over a payload
    // that checks against it; anything else is replaced, and said so.
    let mut replaced = None;
    if std::fs::metadata(&target).is_ok_and(|m| m.is_file()) {
        match Table::open(&target, rules, rule, level, pits) {
            Ok(t) if t.header == header => return Ok(Merged::Kept(target)),
            Ok(t) => {
                replaced = Some(format!(
                    "its header (payload CRC {:08x}, {} exceptions, tool {:?}) is not the \
                     manifest's (payload CRC {:08x}, {} exceptions, tool {:?})",
                    t.header.payload_crc,
                    t.header.exceptions,
                    t.header.tool,
                    header.payload_crc,
                    header.exceptions,
                    header.tool
                ))
            }
            Err(e) => replaced = Some(e.to_string()),
        }
    }
    let parts = open_parts(dirs, (&m, &manifest), rules, rule, level)?;
    let mut failed = None;
    let res = write_atomic_with(&target, |w| copy_merged(w, &header, &parts, &mut failed));
    match (res, failed) {
        (_, Some(e)) => return Err(e),
        (Err(e), None) => return Err(TableError::io_at(&target)(e)),
        (Ok(()), None) => {}
    }
    // Sizes and records of the result, as any reader checks them.
    Table::open_checked(&target, rules, rule, level, pits, OpenCheck::Header)?;
    Ok(match replaced {
        Some(why) => Merged::Replaced(target, why),
        None => Merged::Written(target),
    })
}
