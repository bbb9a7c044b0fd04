//! Reading a sharded level: its shards mapped and checked against the
//! manifest ([`Shards`], what a [`crate::tables::Table`] reads), or one
//! rank's own shard alone.

use std::path::{Path, PathBuf};

use crate::rules::RuleSet;
use crate::tables::error::TableError;
use crate::tables::form::Form;
use crate::tables::format::{Header, HEADER_LEN};
use crate::tables::payload::{check_segments, Data, OpenCheck, Segment};
use crate::value::LoopRule;

use super::file::{map_shard, ShardInfo};
use super::manifest::read_manifest;
use super::name::manifest_path;

/// One mapped shard of a sharded level.
pub(in crate::tables) struct Part {
    /// Rank of its first entry.
    pub(super) first: usize,
    /// Entries.
    pub(super) count: usize,
    /// The file's bytes.
    pub(super) data: Data,
    /// The file.
    pub(super) path: PathBuf,
    /// CRC-32 of the value bytes and of the records (from its header).
    pub(super) crcs: (u32, u32),
}

impl Part {
    /// The value byte of entry `idx` (of the level; within this shard).
    #[inline(always)]
    fn byte(&self, idx: usize) -> u8 {
        self.data[HEADER_LEN..HEADER_LEN + self.count][idx - self.first]
    }

    /// The value byte of entry `idx` for a prefetch.
    #[inline(always)]
    fn get(&self, idx: usize) -> Option<&u8> {
        self.data.get(HEADER_LEN + idx.checked_sub(self.first)?)
    }

    /// The exception records.
    pub(super) fn records(&self) -> &[u8] {
        &self.data[HEADER_LEN + self.count..]
    }

    /// The shard as a segment of the level.
    pub(super) fn segment(&self) -> Segment<'_> {
        Segment {
            first: self.first as u64,
            values: &self.data[HEADER_LEN..HEADER_LEN + self.count],
            records: self.records(),
            path: &self.path,
            crcs: Some(self.crcs),
        }
    }

    /// The shard copied into anonymous memory.
    fn into_memory(self) -> std::io::Result<Part> {
        Ok(Part {
            data: self.data.into_memory()?,
            ..self
        })
    }
}

/// The shards of a level (or one of them alone), mapped and checked: the
/// sharded form of a [`crate::tables::Table`], read entry by entry.
pub(in crate::tables) struct Shards {
    /// Ascending, covering the level (empty shards left out), or one
    /// rank's own shard alone ([`open_own`]); each holds its value bytes
    /// and the exception records of its ranks.
    parts: Vec<Part>,
}

/// A sharded level as opened and checked: its shards, and from its
/// manifest the level's header (of the merged file) and the bytes per
/// exception record.
pub(in crate::tables) struct Opened {
    /// The shards.
    pub(in crate::tables) shards: Shards,
    /// The level's header.
    pub(in crate::tables) header: Header,
    /// Bytes per exception record.
    pub(in crate::tables) width: usize,
}

impl Opened {
    /// Checks the shards' segments per `check` ([`check_segments`]).
    fn check(self, check: OpenCheck) -> Result<Opened, TableError> {
        check_segments(&self.shards.segments(), &self.header, self.width, check)?;
        Ok(self)
    }
}

impl Shards {
    /// The shard holding entry `idx`.
    #[inline]
    fn part(&self, idx: usize) -> &Part {
        let parts = &self.parts;
        &parts[parts.partition_point(|p| p.first <= idx).saturating_sub(1)]
    }

    /// One segment per shard, ascending.
    fn segments(&self) -> Vec<Segment<'_>> {
        self.parts.iter().map(Part::segment).collect()
    }

    /// The shards copied into anonymous memory.
    pub(in crate::tables) fn into_memory(self) -> std::io::Result<Shards> {
        Ok(Shards {
            parts: self
                .parts
                .into_iter()
                .map(Part::into_memory)
                .collect::<std::io::Result<_>>()?,
        })
    }
}

/// The shards of a level as a storage form: each entry read from the
/// shard that holds it; the exception records near an entry are its
/// shard's.
impl Form for Shards {
    #[inline(always)]
    fn value_byte(&self, idx: usize) -> Result<u8, TableError> {
        Ok(self.part(idx).byte(idx))
    }

    #[inline(always)]
    fn entry_ref(&self, idx: usize) -> Option<&u8> {
        self.part(idx).get(idx)
    }

    fn records_near(&self, idx: usize) -> &[u8] {
        self.part(idx).records()
    }

    fn segments_at<'a>(&'a self, _path: &'a Path) -> Vec<Segment<'a>> {
        self.segments()
    }

    fn holds_entry(&self, idx: u64, _count: usize) -> bool {
        self.parts
            .iter()
            .any(|p| (p.first as u64..(p.first + p.count) as u64).contains(&idx))
    }

    fn mapped(&self) -> u64 {
        self.parts.iter().map(|p| p.data.mapped_len()).sum()
    }

    fn allocated(&self) -> u64 {
        self.parts
            .iter()
            .map(|p| p.data.len() as u64 - p.data.mapped_len())
            .sum()
    }

    fn header_bytes(&self, header: &Header) -> [u8; HEADER_LEN] {
        header.encode()
    }

    fn copy_values(&self, first: usize, out: &mut [u8]) -> Result<(), TableError> {
        for (i, o) in out.iter_mut().enumerate() {
            *o = self.part(first + i).byte(first + i);
        }
        Ok(())
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
) -> Result<Opened, TableError> {
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
    Opened {
        shards: Shards { parts },
        header: m.level_header(rules, rule),
        width: m.record_len as usize,
    }
    .check(check)
}

/// Opens shard `index` of `of` of a level in `dir`, alone, as listed in
/// the level's manifest there (at the path returned with it): what
/// [`crate::tables::Table::open_own_shard`] reads. Only the entries of
/// its range may be read from it; its other entries are not there
/// ([`Shards::holds`]).
///
/// # Errors
/// No manifest, a manifest of another split, a missing or bad shard: one
/// [`TableError`] naming the file.
pub(in crate::tables) fn open_own(
    dir: &Path,
    rules: RuleSet,
    rule: LoopRule,
    level: u32,
    (index, of): (u32, u32),
) -> Result<(Opened, PathBuf), TableError> {
    let manifest = manifest_path(dir, rules, rule, level);
    let m = read_manifest(&manifest, rules, rule, level)?;
    let Some(s) = m.shards.iter().find(|s| s.index == index && s.of == of) else {
        return Err(TableError::shards(
            &manifest,
            format!("the manifest lists no shard {index} of {of}"),
        ));
    };
    let part = open_part(&dir.join(&s.file), &manifest, rules, rule, level, s)?;
    let opened = Opened {
        shards: Shards { parts: vec![part] },
        header: m.level_header(rules, rule),
        width: m.record_len as usize,
    }
    .check(OpenCheck::Full)?;
    Ok((opened, manifest))
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
        TableError::Missing { .. } => TableError::shards(
            path,
            format!("shard file missing (listed in {})", manifest.display()),
        ),
        e => e,
    })?;
    if h.info(s.file.clone()) != *s {
        return Err(TableError::shards(
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
