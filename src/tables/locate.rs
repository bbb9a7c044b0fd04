//! Where a level's bytes are: which levels a directory holds (a level
//! file or a shard manifest), and which of the two a level is read from.
//! Every command that looks for a level asks here, so that they agree.

use std::path::{Path, PathBuf};

use super::error::TableError;
use super::format::{check_level, file_prefix, level_path};
use super::shard::{manifest_path, MANIFEST_SUFFIX};
use crate::fsutil::list_dir;
use crate::rules::RuleSet;
use crate::value::LoopRule;

/// The table files of one game and rule in a directory, by name.
#[derive(Debug, Default)]
pub struct LevelFiles {
    /// Levels with a file, ascending (whatever the files hold; opening
    /// them checks that).
    pub levels: Vec<u32>,
    /// Files named for a level the game cannot have (above its seeds):
    /// one [`TableError::LevelOutOfRange`] each, never opened.
    pub strays: Vec<TableError>,
}

/// The levels of `game` under `rule` that have a level file, a
/// compressed level file or a shard manifest ([`manifest_path`]) in
/// `dir`, by file name,
/// ascending; a name with a level above the game's seeds ([`super::format::total_of`])
/// is a stray, set apart so that no caller walks to it. When a level has
/// more than one, readers take one by [`locate_level`].
///
/// # Errors
/// [`TableError::Io`] when the directory cannot be listed.
pub fn levels_present(
    dir: &Path,
    rules: RuleSet,
    rule: LoopRule,
) -> Result<LevelFiles, TableError> {
    let (game, prefix) = (rules.game(), file_prefix(rules.tables(), rule));
    let names = list_dir(dir).map_err(|e| TableError::Io {
        path: dir.to_path_buf(),
        source: e,
    })?;
    let mut found = LevelFiles::default();
    for name in &names {
        let Some(level) = name.strip_prefix(&prefix).and_then(|n| {
            n.strip_suffix(".adjt")
                .or_else(|| n.strip_suffix(super::compressed::SUFFIX))
                .or_else(|| n.strip_suffix(MANIFEST_SUFFIX))
        }) else {
            continue;
        };
        let Ok(level) = level.parse::<u32>() else {
            continue;
        };
        match check_level(&dir.join(name), game, level) {
            Ok(()) => found.levels.push(level),
            Err(e) => found.strays.push(e),
        }
    }
    found.levels.sort_unstable();
    found.levels.dedup();
    Ok(found)
}

/// Where a level's bytes are in a directory ([`locate_level`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LevelAt {
    /// Its level file (which may still be missing or bad: the reader says).
    File(PathBuf),
    /// Its shards, by their manifest.
    Shards(PathBuf),
    /// Its compressed level file ([`super::compressed`]).
    Compressed(PathBuf),
}

impl LevelAt {
    /// The level file's or the manifest's path.
    pub fn path(&self) -> &Path {
        match self {
            LevelAt::File(p) | LevelAt::Shards(p) | LevelAt::Compressed(p) => p,
        }
    }
}

/// The one rule of where level `level`'s bytes are in `dir`, which every
/// reader, hasher and verdict follows: its level file, unless nothing can
/// be opened there (missing, or a symbolic link to nothing); then its
/// compressed level file (`.adjz`), unless nothing can be opened there
/// either; then its shards when the level's manifest is there. So the raw
/// file wins over both other forms, and a compressed file over shards.
pub fn locate_level(dir: &Path, rules: RuleSet, rule: LoopRule, level: u32) -> LevelAt {
    let mut forms = level_forms(dir, rules, rule, level);
    if forms.is_empty() {
        return LevelAt::File(level_path(dir, rules.tables(), rule, level));
    }
    forms.swap_remove(0)
}

/// Every form of level `level` present in `dir`, in the order
/// [`locate_level`] prefers them: the level file and the compressed file
/// when something can be opened at their names (not a symbolic link to
/// nothing), the shards when the manifest's name is taken. A verifier
/// checks them all ([`super::verify`]); readers take the first.
pub fn level_forms(dir: &Path, rules: RuleSet, rule: LoopRule, level: u32) -> Vec<LevelAt> {
    let missing = |p: &Path| matches!(std::fs::metadata(p), Err(e) if e.kind() == std::io::ErrorKind::NotFound);
    let file = level_path(dir, rules.tables(), rule, level);
    let z = super::compressed::format::level_path(dir, rules, rule, level);
    let manifest = manifest_path(dir, rules, rule, level);
    let mut forms = Vec::new();
    if !missing(&file) {
        forms.push(LevelAt::File(file));
    }
    if !missing(&z) {
        forms.push(LevelAt::Compressed(z));
    }
    if std::fs::symlink_metadata(&manifest).is_ok() {
        forms.push(LevelAt::Shards(manifest));
    }
    forms
}

/// What a verdict or message names for a level in `dir`: its level file,
/// or its manifest when the level is read from its shards
/// ([`locate_level`]).
pub fn level_source(dir: &Path, rules: RuleSet, rule: LoopRule, level: u32) -> PathBuf {
    locate_level(dir, rules, rule, level).path().to_path_buf()
}
