//! Splitting a level file into shards and their manifest.

use super::*;

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
        return Err(shards_error(&path, "cannot split into 0 shards"));
    }
    if shards > MAX_SHARDS {
        return Err(shards_error(
            &path,
            format!(
                "cannot split into {shards} shards: a level has at most {MAX_SHARDS} (readers \
                 map every shard, and a process may hold only so many mappings)"
            ),
        ));
    }
    use crate::tables::locate::{locate_level, LevelAt};
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
