//! Names: what a level's file, shards and manifest are called, and which
//! levels a directory holds manifests of.

use std::path::{Path, PathBuf};

use crate::rules::RuleSet;
use crate::tables::error::TableError;
use crate::tables::format;
use crate::value::LoopRule;

/// Suffix of manifest file names, after the level.
pub const MANIFEST_SUFFIX: &str = ".shards.json";
/// Suffix of shard file names.
pub const SHARD_SUFFIX: &str = ".adjs";

/// `GAME-[RULES-]LOOP-LLL`, what a level's file, shards and manifest are
/// named by.
pub(super) fn level_stem(rules: RuleSet, rule: LoopRule, level: u32) -> String {
    let f = format::file_name(rules.tables(), rule, level);
    f.trim_end_matches(".adjt").to_string()
}

/// The file name of shard `index` of `of` of a level.
pub fn shard_name(rules: RuleSet, rule: LoopRule, level: u32, index: u32, of: u32) -> String {
    format!(
        "{}.shard-{index:05}-of-{of:05}{SHARD_SUFFIX}",
        level_stem(rules, rule, level)
    )
}

/// The path of shard `index` of `of` of a level in `dir`.
pub fn shard_path(
    dir: &Path,
    rules: RuleSet,
    rule: LoopRule,
    level: u32,
    index: u32,
    of: u32,
) -> PathBuf {
    dir.join(shard_name(rules, rule, level, index, of))
}

/// The manifest's path of a level (in the same directory as its shards).
pub fn manifest_path(dir: &Path, rules: RuleSet, rule: LoopRule, level: u32) -> PathBuf {
    dir.join(format!(
        "{}{MANIFEST_SUFFIX}",
        level_stem(rules, rule, level)
    ))
}

/// The levels with a manifest in any of `dirs`, ascending (files named
/// for a level the game cannot have are left out).
///
/// # Errors
/// [`TableError::Io`] when a directory cannot be listed.
pub fn manifest_levels(
    dirs: &[PathBuf],
    rules: RuleSet,
    rule: LoopRule,
) -> Result<Vec<u32>, TableError> {
    let mut levels = Vec::new();
    for dir in dirs {
        for name in crate::fsutil::list_dir(dir).map_err(TableError::io_at(dir))? {
            if let Some(l) = manifest_level(&name, rules, rule) {
                levels.push(l);
            }
        }
    }
    levels.sort_unstable();
    levels.dedup();
    Ok(levels)
}

/// The level a manifest file name is of (for `rules` and `rule`), if it
/// is one and the game can have that level.
pub fn manifest_level(name: &str, rules: RuleSet, rule: LoopRule) -> Option<u32> {
    let prefix = level_stem(rules, rule, 0);
    let prefix = prefix.trim_end_matches("000");
    let level: u32 = name
        .strip_prefix(prefix)?
        .strip_suffix(MANIFEST_SUFFIX)?
        .parse()
        .ok()?;
    (level <= format::total_of(rules.game())).then_some(level)
}
