//! Merging shards into the level file (or a stream of its bytes), byte
//! for byte what a one-process build writes.

use super::*;

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

/// The manifest of a level from the copies in `dirs` (which must agree),
/// and the directory of the first copy.
pub(super) fn find_manifest(
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
                return Err(shards_error(
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
            shards_error(
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
pub(super) fn open_parts(
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
        (Err(e), None) => return Err(io_error(&target)(e)),
        (Ok(()), None) => {}
    }
    // Sizes and records of the result, as any reader checks them.
    Table::open_checked(&target, rules, rule, level, pits, OpenCheck::Header)?;
    Ok(match replaced {
        Some(why) => Merged::Replaced(target, why),
        None => Merged::Written(target),
    })
}

/// Writes the bytes of the level file that the shards of `level` in
/// `dirs` merge into (what [`merge_level`] writes) to `w`, without
/// writing a file: e.g. to hash a sharded level as its level file. Every
/// shard's checksums and the payload's are checked on the way.
///
/// # Errors
/// As [`merge_level`]'s; a failed write of `w` is [`TableError::Io`]
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
        (Err(e), None) => Err(io_error(&manifest)(e)),
        (Ok(()), None) => Ok(()),
    }
}

/// Writes a level file's bytes to `w`: `header`, then every part's value
/// bytes, then every part's records, each part's checksums and the
/// payload's checked on the way. A part's mismatch stops it and is left
/// in `failed`.
pub(super) fn copy_merged(
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
            *failed = Some(shards_error(path, format!("{what} checksum mismatch")));
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
