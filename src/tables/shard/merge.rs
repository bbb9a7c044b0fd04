//! Merging shards into a stream of the level file's bytes, byte for byte
//! what a one-process build writes: the shards found in the directories
//! given, opened, and their checksums checked on the way.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::rules::RuleSet;
use crate::tables::error::TableError;
use crate::tables::format::Header;
use crate::value::LoopRule;

use super::file::ShardInfo;
use super::manifest::{read_manifest, Manifest};
use super::name::manifest_path;
use super::open::{open_part, Part};

/// The manifest of a level from the copies in `dirs` (which must agree),
/// and the directory of the first copy.
pub(in crate::tables) fn find_manifest(
    dirs: &[PathBuf],
    rules: RuleSet,
    rule: LoopRule,
    level: u32,
) -> Result<(Manifest, PathBuf), TableError> {
    let mut found: Option<(Manifest, PathBuf)> = None;
    for dir in dirs {
        let path = manifest_path(dir, rules, rule, level);
        if std::fs::symlink_metadata(&path).is_err() {
            continue;
        }
        let m = read_manifest(&path, rules, rule, level)?;
        match &found {
            None => found = Some((m, path)),
            Some((f, fp)) if *f != m => {
                return Err(TableError::shards(
                    &path,
                    format!(
                        "differs from the manifest {} of the same level",
                        fp.display()
                    ),
                ))
            }
            Some(_) => {}
        }
    }
    found.ok_or_else(|| TableError::Missing {
        level,
        path: manifest_path(
            dirs.first().map_or(Path::new("."), |d| d),
            rules,
            rule,
            level,
        ),
    })
}

/// The path of shard `s` in the first of `dirs` that has it.
pub(super) fn find_shard(
    dirs: &[PathBuf],
    s: &ShardInfo,
    manifest: &Path,
) -> Result<PathBuf, TableError> {
    dirs.iter()
        .map(|d| d.join(&s.file))
        .find(|p| std::fs::symlink_metadata(p).is_ok())
        .ok_or_else(|| {
            let list: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
            TableError::shards(
                Path::new(&s.file),
                format!(
                    "shard file missing (listed in {}; looked in {})",
                    manifest.display(),
                    list.join(", ")
                ),
            )
        })
}

/// The shards of `m` (the manifest at `manifest`) found in `dirs`,
/// opened: each mapped, its header and size checked against the listing.
pub(in crate::tables) fn open_parts(
    dirs: &[PathBuf],
    (m, manifest): (&Manifest, &Path),
    rules: RuleSet,
    rule: LoopRule,
    level: u32,
) -> Result<Vec<Part>, TableError> {
    let mut parts = Vec::with_capacity(m.shards.len());
    for s in &m.shards {
        let path = find_shard(dirs, s, manifest)?;
        parts.push(open_part(&path, manifest, rules, rule, level, s)?);
    }
    Ok(parts)
}

/// Writes the bytes of the level file that the shards of `level` in
/// `dirs` merge into (what [`crate::tables::convert::merge_level`]
/// writes) to `w`, without
/// writing a file: e.g. to hash a sharded level as its level file. Every
/// shard's checksums and the payload's are checked on the way.
///
/// # Errors
/// As [`crate::tables::convert::merge_level`]'s; a failed write of `w` is [`TableError::Io`]
/// naming the manifest.
pub fn stream_level(
    dirs: &[PathBuf],
    rules: RuleSet,
    rule: LoopRule,
    level: u32,
    w: &mut impl Write,
) -> Result<(), TableError> {
    let rules = rules.tables();
    let (m, manifest) = find_manifest(dirs, rules, rule, level)?;
    let parts = open_parts(dirs, (&m, &manifest), rules, rule, level)?;
    let mut failed = None;
    let res = copy_merged(w, &m.level_header(rules, rule), &parts, &mut failed);
    match (res, failed) {
        (_, Some(e)) => Err(e),
        (Err(e), None) => Err(TableError::io_at(&manifest)(e)),
        (Ok(()), None) => Ok(()),
    }
}

/// Writes a level file's bytes to `w`: `header`, then every part's value
/// bytes, then every part's records, each part's checksums and the
/// payload's checked on the way. A part's mismatch stops it and is left
/// in `failed`.
pub(in crate::tables) fn copy_merged(
    w: &mut impl Write,
    header: &Header,
    parts: &[Part],
    failed: &mut Option<TableError>,
) -> std::io::Result<()> {
    w.write_all(&header.encode())?;
    let mut crc = crc32fast::Hasher::new();
    let mut copy = |bytes: &[u8], want: u32, path: &Path, what: &str| {
        let got = crate::tables::payload::scan_payload(bytes, 0, 0, 1 << 24).crc;
        if got != want {
            *failed = Some(TableError::shards(
                path,
                format!("{what} checksum mismatch"),
            ));
            return Err(std::io::Error::other("shard checksum mismatch"));
        }
        crc.combine(&crc32fast::Hasher::new_with_initial_len(
            got,
            bytes.len() as u64,
        ));
        w.write_all(bytes)
    };
    for p in parts {
        let seg = p.segment();
        copy(seg.values, p.crcs.0, &p.path, "value bytes")?;
    }
    for p in parts {
        copy(p.records(), p.crcs.1, &p.path, "exception records")?;
    }
    if crc.finalize() != header.payload_crc {
        return Err(std::io::Error::other("merged payload checksum mismatch"));
    }
    Ok(())
}
