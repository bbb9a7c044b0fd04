//! Splitting a level file into shards and their manifest.

use super::*;

/// Splits the level file of `level` in `dir` (opened and checked in
/// full) into `shards` shards of nearly equal size and their manifest in
/// `out`. Returns the shards' infos.
///
/// # Errors
/// [`TableError::Missing`] when the level has no file in `dir` (a
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
    if let Err(e) = std::fs::symlink_metadata(&path) {
        return Err(TableError::from_open(&path, level, e));
    }
    let t = Table::open(&path, rules, rule, level, format::pits_of(rules.game()))?;
    let total = t.len() as u64;
    let at = |i: u32| (total as u128 * i as u128 / shards as u128) as u64;
    let infos = (0..shards)
        .map(|i| {
            let first = at(i);
            let bounds = |j: usize| t.bound_bytes(first as usize + j);
            let place = Place::new(i, shards, first..at(i + 1));
            write_shard_with(out, rules, rule, level, place, &bounds)
        })
        .collect::<Result<Vec<_>, _>>()?;
    write_manifest(out, rules, rule, level, &infos)?;
    Ok(infos)
}
