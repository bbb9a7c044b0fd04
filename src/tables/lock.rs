//! Who may write table files in a directory: the build locks, and the
//! removal of the temporary files a killed build left.
//!
//! A build holds two advisory locks (`flock`, released by the kernel when
//! the process ends, however it ends) in its directory for its whole run,
//! and so do `tables compress` and `tables decompress` in the directory
//! they write (they write the same file set's levels in another form):
//!
//! - `.adji-build-FILES.lock`, exclusive, where FILES names its file set
//!   (game, rule set's tables, loop rule: `adjito-must-reach-start`). A second
//!   build of the same files in the same directory is **refused** at once
//!   with [`TableError::Locked`] naming that lock: two builders of one file
//!   would race on it.
//! - `.adji-build.lock`, shared. Builds of **different** file sets (two
//!   games, two rule sets, two loop rules) **coexist** in one directory:
//!   each writes only its own files.
//!
//! Every temporary file names its target (`.adji-adjito-start-023.adjt.
//! XXXXXX.tmp`, [`crate::fsutil::write_atomic_with`]). A build starting
//! removes the stale temporaries of its own file set (no other live build
//! writes them: it holds their lock). Temporaries it cannot attribute to a
//! file set (another set's, or of the older random naming `.adji-XXXXXX.tmp`
//! and `.adjt-*.tmp`) are removed only when it can take `.adji-build.lock`
//! exclusively, that is when no other build runs in the directory; else they
//! are left for a later build. A build of a version without these locks is
//! not seen by them: do not mix versions in one directory.
//!
//! The lock files stay in the directory (removing a lock file while another
//! process waits on it would let two processes hold "the" lock); they are
//! empty and named so that no table listing takes them for a level.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};

use crate::fsutil::{TMP_PREFIX, TMP_SUFFIX};
use crate::rules::RuleSet;
use crate::value::LoopRule;

use super::error::TableError;
use super::format;

/// The directory-wide lock every build holds shared.
pub const DIR_LOCK: &str = ".adji-build.lock";

/// Prefix of the temporary files that versions before `fsutil` left.
const LEGACY_TMP_PREFIX: &str = ".adjt-";

/// The locks of a running build; dropping it releases them.
#[derive(Debug)]
pub struct BuildLock {
    /// The file set's lock, held exclusively.
    _files: File,
    /// The directory's lock, held shared.
    _dir: File,
    /// Stale temporary files removed when the lock was taken.
    removed: usize,
}

impl BuildLock {
    /// Takes the locks for building the tables of `rules` (its
    /// [`RuleSet::tables`]) under `rule` in `dir` (made when missing), then
    /// removes the stale temporary files the module comment says.
    ///
    /// # Errors
    /// [`TableError::Locked`] when another build of the same files holds
    /// their lock; [`TableError::Io`] creating the directory or a lock
    /// file, or removing a file.
    pub fn acquire(dir: &Path, rules: RuleSet, rule: LoopRule) -> Result<BuildLock, TableError> {
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| TableError::Io { path, source }
        };
        crate::fsutil::create_dir_all(dir).map_err(io(dir))?;
        let set = format::set_name(rules, rule);
        let files_path = dir.join(files_lock_name(&set));
        let files = open_lock(&files_path)?;
        match files.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                return Err(TableError::Locked {
                    lock: files_path,
                    what: rules.command_line(),
                    rule,
                })
            }
            Err(TryLockError::Error(e)) => return Err(io(&files_path)(e)),
        }
        let dir_path = dir.join(DIR_LOCK);
        let dir_lock = open_lock(&dir_path)?;
        let alone = match dir_lock.try_lock() {
            Ok(()) => true,
            Err(TryLockError::WouldBlock) => false,
            Err(TryLockError::Error(e)) => return Err(io(&dir_path)(e)),
        };
        let removed = remove_stale_temps(dir, &set, alone).map_err(io(dir))?;
        if alone {
            dir_lock.unlock().map_err(io(&dir_path))?;
        }
        // Blocks only while a starting build holds it exclusively to clean.
        dir_lock.lock_shared().map_err(io(&dir_path))?;
        Ok(BuildLock {
            _files: files,
            _dir: dir_lock,
            removed,
        })
    }

    /// How many stale temporary files were removed when the lock was taken.
    pub fn removed(&self) -> usize {
        self.removed
    }
}

/// The name of the lock file of the file set named `set`.
pub fn files_lock_name(set: &str) -> String {
    format!("{TMP_PREFIX}build-{set}.lock")
}

/// Opens (creating) the lock file at `path`.
fn open_lock(path: &Path) -> Result<File, TableError> {
    OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(|source| TableError::Io {
            path: path.to_path_buf(),
            source,
        })
}

/// Whether `name` is a temporary file of a level of the file set `set`:
/// a level file, a compressed level, a shard or a manifest
/// (`.adji-SET-LLL.adjt.XXXXXX.tmp`, `.adji-SET-LLL.adjz.XXXXXX.tmp`,
/// `.adji-SET-LLL.shard-….adjs.XXXXXX.tmp`, `.adji-SET-LLL.shards.json.XXXXXX.tmp`).
fn is_own_temp(name: &str, set: &str) -> bool {
    let Some(rest) = name
        .strip_prefix(TMP_PREFIX)
        .and_then(|r| r.strip_prefix(set))
        .and_then(|r| r.strip_prefix('-'))
        .and_then(|r| r.strip_suffix(TMP_SUFFIX))
    else {
        return false;
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let after = &rest[digits..];
    digits >= 3
        && [".adjt.", ".adjz.", ".shard-", ".shards.json."]
            .iter()
            .any(|k| after.starts_with(k))
}

/// Whether `name` is a temporary file of this tool's naming, old or new.
fn is_any_temp(name: &str) -> bool {
    (name.starts_with(TMP_PREFIX) || name.starts_with(LEGACY_TMP_PREFIX))
        && name.ends_with(TMP_SUFFIX)
}

/// Removes from `dir` the stale temporary files of the file set `set`,
/// and every temporary file of this tool's naming when `alone` (no other
/// build runs there). Returns how many were removed.
fn remove_stale_temps(dir: &Path, set: &str, alone: bool) -> std::io::Result<usize> {
    let mut removed = 0;
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let stale = if alone {
            is_any_temp(&name)
        } else {
            is_own_temp(&name, set)
        };
        if stale && entry.file_type()?.is_file() {
            std::fs::remove_file(entry.path())?;
            removed += 1;
        }
    }
    Ok(removed)
}

/// The path of the file set's lock in `dir`.
pub fn files_lock_path(dir: &Path, rules: RuleSet, rule: LoopRule) -> PathBuf {
    dir.join(files_lock_name(&format::set_name(rules, rule)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_temps_are_told_from_other_sets() {
        let set = "adjito-start";
        assert!(is_own_temp(".adji-adjito-start-023.adjt.AbC123.tmp", set));
        // A compressed level's (issue 49: a killed compress left its own
        // forever).
        assert!(is_own_temp(".adji-adjito-start-023.adjz.AbC123.tmp", set));
        assert!(!is_own_temp(
            ".adji-adjito-must-reach-start-023.adjt.AbC123.tmp",
            set
        ));
        assert!(!is_own_temp(".adji-adjito-start-023.adjt.AbC123", set));
        assert!(!is_own_temp(".adji-AbC123.tmp", set));
        assert!(!is_own_temp(".adji-adjito-start-x.adjt.A.tmp", set));
        let shard = ".adji-adjito-start-023.shard-00001-of-00004.adjs.AbC123.tmp";
        assert!(is_own_temp(shard, set));
        assert!(is_own_temp(
            ".adji-adjito-start-023.shards.json.AbC123.tmp",
            set
        ));
        assert!(!is_own_temp(
            &shard.replace("adjito-start", "adjito-even"),
            set
        ));
        assert!(is_any_temp(".adji-AbC123.tmp"));
        assert!(is_any_temp(".adjt-AbC123.tmp"));
        assert!(!is_any_temp(DIR_LOCK));
    }
}
