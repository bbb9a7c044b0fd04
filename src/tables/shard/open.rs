//! Reading a sharded level: its shards mapped and checked against the
//! manifest, as one [`Table`], or one rank's own shard alone.

use super::*;

/// One mapped shard of a sharded [`Table`].
pub(in crate::tables) struct Part {
    /// Rank of its first entry.
    pub(in crate::tables) first: usize,
    /// Entries.
    pub(super) count: usize,
    /// The file's bytes.
    pub(in crate::tables) data: Data,
    /// The file.
    pub(super) path: PathBuf,
    /// CRC-32 of the value bytes and of the records (from its header).
    pub(super) crcs: (u32, u32),
}

impl Part {
    /// Entries.
    pub(in crate::tables) fn count(&self) -> usize {
        self.count
    }

    /// The value byte of entry `idx` (of the level; within this shard).
    #[inline(always)]
    pub(in crate::tables) fn byte(&self, idx: usize) -> u8 {
        self.data[HEADER_LEN..HEADER_LEN + self.count][idx - self.first]
    }

    /// The value byte of entry `idx` for a prefetch.
    #[inline(always)]
    pub(in crate::tables) fn get(&self, idx: usize) -> Option<&u8> {
        self.data.get(HEADER_LEN + idx.checked_sub(self.first)?)
    }

    /// The exception records.
    pub(in crate::tables) fn records(&self) -> &[u8] {
        &self.data[HEADER_LEN + self.count..]
    }

    /// The shard as a segment of the level.
    pub(in crate::tables) fn segment(&self) -> Segment<'_> {
        Segment {
            first: self.first as u64,
            values: &self.data[HEADER_LEN..HEADER_LEN + self.count],
            records: self.records(),
            path: &self.path,
            crcs: Some(self.crcs),
        }
    }

    /// The shard copied into anonymous memory.
    pub(in crate::tables) fn into_memory(self) -> std::io::Result<Part> {
        Ok(Part {
            data: self.data.into_memory()?,
            ..self
        })
    }
}

/// Opens the level whose manifest is at `manifest` from its shards, in
/// the manifest's directory: the manifest checked, every shard's header
/// and size against it, and per `check` the shards' checksums and value
/// bytes.
///
/// # Errors
/// One [`TableError`] naming the file and what is wrong.
pub(in crate::tables) fn open_sharded(
    manifest: &Path,
    rules: RuleSet,
    rule: LoopRule,
    level: u32,
    check: OpenCheck,
) -> Result<Table, TableError> {
    let m = read_manifest(manifest, rules, rule, level)?;
    let dir = manifest.parent().unwrap_or(Path::new("."));
    let mut parts = Vec::with_capacity(m.shards.len());
    for s in &m.shards {
        let path = dir.join(&s.file);
        let part = open_part(&path, manifest, rules, rule, level, s)?;
        if part.count > 0 {
            parts.push(part);
        }
    }
    let t = Table::assemble(
        manifest,
        Storage::Sharded(parts),
        m.level_header(rules, rule),
        m.record_len as usize,
    )
    .checked_as(check);
    t.check_segments(manifest, check)?;
    Ok(t)
}

/// Opens shard `index` of `of` of a level in `dir`, alone, as listed in
/// the level's manifest there: the table of a distributed build's rank that
/// holds only its own slice of a lower level (the other ranks' entries are
/// asked of them, [`crate::tables::retrograde`]'s remote lookups). Only
/// the entries of `range` may be read from it; its other entries are not
/// there ([`Table::holds`]).
///
/// # Errors
/// No manifest, a manifest of another split, a missing or bad shard: one
/// [`TableError`] naming the file.
pub fn open_own_shard(
    dir: &Path,
    rules: RuleSet,
    rule: LoopRule,
    level: u32,
    (index, of): (u32, u32),
) -> Result<Table, TableError> {
    let manifest = manifest_path(dir, rules, rule, level);
    let m = read_manifest(&manifest, rules, rule, level)?;
    let Some(s) = m.shards.iter().find(|s| s.index == index && s.of == of) else {
        return Err(shards_error(
            &manifest,
            format!("the manifest lists no shard {index} of {of}"),
        ));
    };
    let part = open_part(&dir.join(&s.file), &manifest, rules, rule, level, s)?;
    let t = Table::assemble(
        &manifest,
        Storage::Sharded(vec![part]),
        m.level_header(rules, rule),
        m.record_len as usize,
    );
    t.check_segments(&manifest, OpenCheck::Full)?;
    Ok(t)
}

/// Maps the shard `s` at `path` listed in `manifest`, its header and size
/// checked against the listing.
pub(super) fn open_part(
    path: &Path,
    manifest: &Path,
    rules: RuleSet,
    rule: LoopRule,
    level: u32,
    s: &ShardInfo,
) -> Result<Part, TableError> {
    let (map, h) = map_shard(path, rules, rule, level, s.place()).map_err(|e| match e {
        TableError::Missing { .. } => shards_error(
            path,
            format!("shard file missing (listed in {})", manifest.display()),
        ),
        e => e,
    })?;
    if h.info(s.file.clone()) != *s {
        return Err(shards_error(
            path,
            format!(
                "shard header (exceptions {}, checksums {:08x} {:08x}) differs from its listing \
                 in {} (exceptions {}, checksums {:08x} {:08x})",
                h.exceptions,
                h.values_crc,
                h.exceptions_crc,
                manifest.display(),
                s.exceptions,
                s.values_crc,
                s.exceptions_crc
            ),
        ));
    }
    Ok(Part {
        first: s.first as usize,
        count: s.count as usize,
        data: Data::Mapped(map),
        path: path.to_path_buf(),
        crcs: (h.values_crc, h.exceptions_crc),
    })
}
