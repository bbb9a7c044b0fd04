//! One level's table, [`Table`]: a level file, its shards or its
//! compressed file, mapped and checked when opened ([`OpenCheck`]), and
//! probed entry by entry.

use std::path::Path;

use super::compressed::{self, format::RawLevel};
use super::damage::Damage;
use super::error::TableError;
use super::form::Form;
use super::format::{self, Header};
use super::level_file::LevelFile;
use super::locate;
use super::payload::{corrupted, OpenCheck, Segment};
use super::shard::{self, Shards};
use crate::fsutil::open_regular;
use crate::rules::RuleSet;
use crate::value::{decode_bound, Bounds, LoopRule};

/// Where a table's bytes are, each form reading its own behind [`Form`]:
/// one level file, the shards of a level, or a compressed level file.
enum Storage {
    /// A level file: header, value bytes, exception records.
    Single(LevelFile),
    /// Shard files ([`shard`]).
    Sharded(Shards),
    /// A compressed level file ([`compressed`]): blocks decoded on probe.
    Compressed(Box<compressed::Compressed>),
}

/// `$body` with `$f` bound to the form a [`Storage`] holds, whichever it
/// is: the one place that lists the forms for the methods of [`Form`].
macro_rules! each_form {
    ($storage:expr, $f:ident => $body:expr) => {
        match $storage {
            Storage::Single($f) => $body,
            Storage::Sharded($f) => $body,
            Storage::Compressed($f) => $body,
        }
    };
}

/// One level's table, memory-mapped and checked: one file, or the shards
/// of a sharded level ([`shard`]).
pub struct Table {
    storage: Storage,
    count: usize,
    /// Bytes per exception record ([`format::record_len`]).
    width: usize,
    /// The header (of the merged file, for a sharded level).
    pub header: Header,
    /// The first damage a probe met, and the alarm it raises.
    pub(in crate::tables) damage: Damage,
    /// The level file, the manifest of a sharded level, or the compressed
    /// file (for messages).
    path: std::path::PathBuf,
    /// Opened with [`OpenCheck::Header`] from raw bytes (a level file or
    /// shards): each value byte read is checked to be possible for the
    /// level (a compressed block has its own checksum).
    trusted: bool,
    /// A compressed level with don't-care entries
    /// ([`crate::tables::dontcare`]): its bytes are values only through
    /// the levels below, so this table alone refuses to read them.
    dont_care: bool,
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Table")
            .field("header", &self.header)
            .field("mapped_bytes", &self.mapped_bytes())
            .finish()
    }
}

impl Table {
    /// Opens and checks a level file: header, game, rule, level, size and
    /// payload checksum ([`OpenCheck::Full`]). When `path` does not exist
    /// but the level's manifest ([`shard::manifest_path`]) does in the same
    /// directory, the level is opened from its shards instead
    /// ([`Table::open_checked`]).
    ///
    /// # Errors
    /// A [`TableError`] naming the problem; never panics on a bad file.
    pub fn open(
        path: &Path,
        rules: RuleSet,
        rule: LoopRule,
        level: u32,
        pits: usize,
    ) -> Result<Table, TableError> {
        Table::open_checked(path, rules, rule, level, pits, OpenCheck::Full)
    }

    /// [`Table::open`] with the given depth of checking.
    ///
    /// # Errors
    /// A [`TableError`] naming the problem; never panics on a bad file.
    pub fn open_checked(
        path: &Path,
        rules: RuleSet,
        rule: LoopRule,
        level: u32,
        pits: usize,
        check: OpenCheck,
    ) -> Result<Table, TableError> {
        let (rules, game) = (rules.tables(), rules.game());
        format::check_level(path, game, level)?;
        debug_assert_eq!(pits, format::pits_of(game));
        let file = match open_regular(path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                // Where the level is, by the one rule every command asks.
                let dir = path.parent().unwrap_or(Path::new("."));
                match locate::locate_level(dir, rules, rule, level) {
                    locate::LevelAt::Shards(manifest) => {
                        let s = shard::open_sharded(&manifest, rules, rule, level, check)?;
                        return Ok(Table::of_shards(&manifest, s, check));
                    }
                    locate::LevelAt::Compressed(z) => {
                        return Table::open_compressed(&z, rules, rule, level, check);
                    }
                    locate::LevelAt::File(_) => {}
                }
                return Err(TableError::from_open(path, level, e));
            }
            Err(e) => return Err(TableError::from_open(path, level, e)),
        };
        let (f, header) = LevelFile::open(path, &file, (rules, rule, level), check)?;
        let width = format::record_len(header.count);
        Ok(Table::assemble(path, Storage::Single(f), header, width).checked_as(check))
    }

    /// Opens a compressed level file ([`compressed::Compressed::open`]).
    ///
    /// # Errors
    /// A [`TableError`] naming the file (and block); never panics on a
    /// bad file.
    pub fn open_compressed(
        path: &Path,
        rules: RuleSet,
        rule: LoopRule,
        level: u32,
        check: OpenCheck,
    ) -> Result<Table, TableError> {
        let c = compressed::Compressed::open(path, rules, rule, level, check)?;
        let (header, width) = (c.header.clone(), format::record_len(c.header.count));
        Ok(Table::assemble(
            path,
            Storage::Compressed(Box::new(c)),
            header,
            width,
        ))
    }

    /// The table of a sharded level (its manifest at `manifest`) as
    /// [`shard::open_sharded`] or [`shard::open_own`] opened it, with
    /// `check`.
    pub(in crate::tables) fn of_shards(
        manifest: &Path,
        s: shard::Opened,
        check: OpenCheck,
    ) -> Table {
        Table::assemble(manifest, Storage::Sharded(s.shards), s.header, s.width).checked_as(check)
    }

    /// Opens shard `index` of `of` of a level in `dir`, alone, as listed
    /// in the level's manifest there: the table of a distributed build's
    /// rank that holds only its own slice of a lower level (the other
    /// ranks' entries are asked of them, [`crate::tables::retrograde`]'s
    /// remote lookups). Only the entries of its range may be read from
    /// it; its other entries are not there ([`Table::holds`]).
    ///
    /// # Errors
    /// No manifest, a manifest of another split, a missing or bad shard:
    /// one [`TableError`] naming the file.
    pub fn open_own_shard(
        dir: &Path,
        rules: RuleSet,
        rule: LoopRule,
        level: u32,
        own: (u32, u32),
    ) -> Result<Table, TableError> {
        let (s, manifest) = shard::open_own(dir, rules, rule, level, own)?;
        Ok(Table::of_shards(&manifest, s, OpenCheck::Full))
    }

    /// The table of `storage`, whose level has `header` and exception
    /// records of `width` bytes.
    fn assemble(path: &Path, storage: Storage, header: Header, width: usize) -> Table {
        let dont_care = matches!(&storage, Storage::Compressed(c)
            if c.codec().transform == compressed::Transform::DontCare);
        Table {
            path: path.to_path_buf(),
            trusted: false,
            dont_care,
            storage,
            count: header.count as usize,
            width,
            header,
            damage: Damage::default(),
        }
    }

    /// The same table, its raw value bytes checked as they are read when
    /// `check` did not read them at open ([`OpenCheck::Header`]).
    fn checked_as(self, check: OpenCheck) -> Table {
        let raw = !self.is_compressed();
        Table {
            trusted: raw && check == OpenCheck::Header,
            ..self
        }
    }

    /// The damage a probe of this level met, if any ([`super::damage`]):
    /// the error naming the file (and block); or the refusal of a
    /// don't-care level read alone ([`TableError::DontCare`]).
    pub fn damage(&self) -> Option<TableError> {
        self.damage.error()
    }

    /// The table's stretches of entries: the whole level for a level file
    /// (at `path`), one per (non-empty) shard otherwise; none for a
    /// compressed level (checked block by block when opened).
    fn segments<'a>(&'a self, path: &'a Path) -> Vec<Segment<'a>> {
        each_form!(&self.storage, f => f.segments_at(path))
    }

    /// Whether entry `idx` is in this table's files: every entry of a
    /// level file or a complete sharded level; those of its one shard for a
    /// table opened by [`Table::open_own_shard`].
    pub fn holds(&self, idx: u64) -> bool {
        each_form!(&self.storage, f => f.holds_entry(idx, self.count))
    }

    /// The bytes of the level's files mapped read-only: page cache that
    /// the kernel may drop and read again, not an allocation (one file, a
    /// slot per shard, or a compressed file). A copy in memory
    /// ([`Table::into_memory`]) maps nothing.
    pub fn mapped_bytes(&self) -> u64 {
        each_form!(&self.storage, f => f.mapped())
    }

    /// The bytes the level allocates, at most: a copy in memory
    /// ([`Table::into_memory`]), or the cache of decoded blocks of a
    /// compressed level ([`compressed::Compressed::cache_bytes`]). Memory
    /// plans count these, and report [`Table::mapped_bytes`] apart.
    pub fn allocated_bytes(&self) -> u64 {
        each_form!(&self.storage, f => f.allocated())
    }

    /// Whether the level is read from a compressed file ([`compressed`]).
    pub fn is_compressed(&self) -> bool {
        matches!(self.storage, Storage::Compressed(_))
    }

    /// Whether the level is compressed with don't-care entries
    /// ([`crate::tables::dontcare`]): read through a [`super::TableSet`]
    /// that holds the levels below it.
    pub fn dont_care(&self) -> bool {
        self.dont_care
    }

    /// Entry `idx` of a don't-care level: its value when a probe kept it
    /// ([`Table::remember`]), else its stored byte; `None` where its block
    /// does not decode (the damage recorded).
    #[inline]
    pub(in crate::tables) fn dc_byte(&self, idx: usize) -> Option<super::dontcare::DcByte> {
        let c = self.compressed()?;
        match c.dc_byte(idx) {
            Ok(b) => Some(b),
            Err(e) => {
                self.damage.note(&e);
                None
            }
        }
    }

    /// Keeps `v`, the value of entry `idx` of a don't-care level
    /// ([`compressed::Compressed::remember`]).
    pub(in crate::tables) fn remember(&self, idx: usize, v: i32) {
        if let Some(c) = self.compressed() {
            c.remember(idx, v);
        }
    }

    /// The refusal of reading a don't-care level alone.
    fn refused(&self) -> TableError {
        TableError::DontCare {
            path: self.path.clone(),
            level: self.header.level as u32,
        }
    }

    /// The codec of a compressed level; `None` for a raw one.
    pub fn codec(&self) -> Option<compressed::Codec> {
        self.compressed().map(|c| c.codec())
    }

    /// The compressed file of a compressed level; `None` for a raw one.
    pub(in crate::tables) fn compressed(&self) -> Option<&compressed::Compressed> {
        match &self.storage {
            Storage::Compressed(c) => Some(c),
            _ => None,
        }
    }

    /// [`Table::compressed`], to shape its cache.
    pub(in crate::tables) fn compressed_mut(&mut self) -> Option<&mut compressed::Compressed> {
        match &mut self.storage {
            Storage::Compressed(c) => Some(c),
            _ => None,
        }
    }

    /// The 64-byte header of the raw level file this table is or stands
    /// for: the file's own bytes, the merged file's for shards, the one
    /// a compressed file carries.
    pub fn raw_header(&self) -> [u8; format::HEADER_LEN] {
        each_form!(&self.storage, f => f.header_bytes(&self.header))
    }

    /// Every exception record of the level (of the files it holds), in
    /// rank order.
    pub fn records_all(&self) -> Vec<u8> {
        each_form!(&self.storage, f => f.all_records())
    }

    /// Copies the value bytes of entries `first .. first + out.len()`
    /// (within the level).
    ///
    /// # Errors
    /// A compressed block that does not decode, naming the file and block.
    pub fn values_into(&self, first: usize, out: &mut [u8]) -> Result<(), TableError> {
        if self.dont_care {
            return Err(self.refused());
        }
        self.stored_into(first, out)
    }

    /// The stored bytes of entries `first .. first + out.len()`: the value
    /// bytes, but for a don't-care level the bytes that
    /// [`crate::tables::dontcare`] reads through the levels below.
    ///
    /// # Errors
    /// A compressed block that does not decode, naming the file and block.
    pub(in crate::tables) fn stored_into(
        &self,
        first: usize,
        out: &mut [u8],
    ) -> Result<(), TableError> {
        each_form!(&self.storage, f => f.copy_values(first, out))
    }

    /// Whether the level is read from shards ([`shard`]).
    pub fn is_sharded(&self) -> bool {
        matches!(self.storage, Storage::Sharded(_))
    }

    /// The same table copied into anonymous memory, asked for on
    /// transparent huge pages: the builder's random lookups into lower
    /// levels then miss the TLB far less than through the file's 4 KiB
    /// pages. Costs the table's size in memory (the page cache of the file
    /// can be reclaimed). A compressed level is decoded whole into the
    /// raw level file it stands for (its checksum checked).
    ///
    /// # Errors
    /// When the memory cannot be had.
    pub fn into_memory(self) -> std::io::Result<Table> {
        if self.dont_care {
            return Err(std::io::Error::other(self.refused()));
        }
        let storage = match self.storage {
            Storage::Single(f) => Storage::Single(f.into_memory()?),
            Storage::Sharded(s) => Storage::Sharded(s.into_memory()?),
            Storage::Compressed(c) => {
                let len = self.header.file_len() as usize;
                let mut m = memmap2::MmapMut::map_anon(len.max(1))?;
                #[cfg(target_os = "linux")]
                let _ = m.advise(memmap2::Advice::HugePage);
                c.raw_into(&mut m[..len]).map_err(std::io::Error::other)?;
                Storage::Single(LevelFile::loaded(m, self.count))
            }
        };
        Ok(Table { storage, ..self })
    }

    /// Number of loop-sensitive entries (exceptions).
    pub fn exceptions(&self) -> u64 {
        self.header.exceptions
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.count
    }

    /// True for an empty table (never: level 0 has one entry).
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The lo and hi bound bytes of every entry, as two planes (what the
    /// builder produces and [`format::write_level`] takes).
    ///
    /// # Errors
    /// A compressed block that does not decode, naming the file and block.
    pub fn planes(&self) -> Result<(Vec<u8>, Vec<u8>), TableError> {
        let mut l = vec![0u8; self.count];
        let segments = self.segments(Path::new(""));
        if segments.is_empty() {
            self.values_into(0, &mut l)?;
        }
        for seg in segments {
            let f = seg.first as usize;
            l[f..f + seg.values.len()].copy_from_slice(seg.values);
        }
        let mut h = l.clone();
        for r in self.records_all().chunks_exact(self.width) {
            let i = format::record_rank(r) as usize;
            (l[i], h[i]) = format::record_bounds(r);
        }
        Ok((l, h))
    }

    /// The bound bytes (`lo`, `hi`) of entry `idx` as the writer takes them
    /// ([`format::Bounds`]): the value byte twice, or an exception's
    /// record (`idx < len()`); `None` for a damaged entry
    /// ([`super::damage`]).
    pub fn bound_bytes(&self, idx: usize) -> Option<(u8, u8)> {
        let v = self.byte(idx)?;
        if v as i8 != format::EXCEPTION {
            return Some((v, v));
        }
        self.record_of_marked(idx)
    }

    /// The value byte of entry `idx`: one branch between a level file,
    /// its shards and its compressed blocks; `None` where a compressed
    /// block does not decode (the damage recorded).
    #[inline(always)]
    fn byte(&self, idx: usize) -> Option<u8> {
        if self.dont_care {
            return self.unresolved();
        }
        self.stored_byte(idx)
    }

    /// A probe of a don't-care level without the levels below it: never a
    /// value (recorded as the level's damage, naming why).
    #[cold]
    fn unresolved(&self) -> Option<u8> {
        self.damage.note(&self.refused());
        None
    }

    /// The stored byte of entry `idx` ([`Table::stored_into`]); `None`
    /// where a compressed block does not decode (the damage recorded).
    #[inline(always)]
    pub(in crate::tables) fn stored_byte(&self, idx: usize) -> Option<u8> {
        let raw = match each_form!(&self.storage, f => f.value_byte(idx)) {
            Ok(v) => v,
            Err(e) => {
                self.damage.note(&e);
                return None;
            }
        };
        if self.trusted && !self.possible(raw) {
            return self.impossible(idx, raw);
        }
        Some(raw)
    }

    /// Whether value byte `v` may stand in this level: a value within
    /// ±(seeds on the board), or the loop-sensitive mark.
    #[inline(always)]
    fn possible(&self, v: u8) -> bool {
        v as i8 == format::EXCEPTION
            || crate::value::possible_value(self.header.level as i32, v as i8 as i32)
    }

    /// Records a value byte no entry of the level can hold (a damaged byte
    /// of a trusted file): never a value.
    #[cold]
    fn impossible(&self, idx: usize, v: u8) -> Option<u8> {
        self.damage.note(&TableError::ImpossibleValue {
            path: self.path.clone(),
            rank: idx as u64,
            what: format!("value byte {}, outside ±{}", v as i8, self.header.level),
        });
        None
    }

    /// The bound bytes of the exception record of entry `idx` (binary
    /// search), `None` when it has none.
    fn record(&self, idx: usize) -> Option<(u8, u8)> {
        let recs = each_form!(&self.storage, f => f.records_near(idx));
        format::find_record(recs, self.width, idx as u64)
    }

    /// The record of entry `idx`, whose byte is marked loop-sensitive.
    /// Opened with [`OpenCheck::Full`], every marked byte has one; a file
    /// opened with [`OpenCheck::Header`] may lack it if damaged: `None`
    /// then, the damage recorded.
    #[cold]
    fn record_of_marked(&self, idx: usize) -> Option<(u8, u8)> {
        let r = self.record(idx);
        if r.is_none() {
            self.damage.note(&corrupted(
                &self.path,
                format!("entry {idx} is marked loop-sensitive but has no exception record"),
            ));
        }
        r
    }

    /// Hints the processor to fetch entry `idx` (no effect on results).
    #[inline(always)]
    pub fn prefetch(&self, idx: usize) {
        each_form!(&self.storage, f => f.prefetch_entry(idx))
    }

    /// Bounds of entry `idx` (`idx < len()`); `None` for a damaged entry,
    /// which is never a value ([`super::damage`]).
    #[inline]
    pub fn bounds(&self, idx: usize) -> Option<Bounds> {
        self.bounds_of(idx, self.byte(idx)?)
    }

    /// The bounds of entry `idx` read from its stored byte
    /// ([`Table::stored_byte`]): what [`super::dontcare`] reads of a
    /// loop-sensitive entry of a don't-care level.
    pub(in crate::tables) fn stored_bounds(&self, idx: usize) -> Option<Bounds> {
        self.bounds_of(idx, self.stored_byte(idx)?)
    }

    /// The bounds of entry `idx`, whose byte is `v`.
    #[inline]
    fn bounds_of(&self, idx: usize, v: u8) -> Option<Bounds> {
        let v = v as i8;
        if v != format::EXCEPTION {
            return Some(Bounds {
                lo: v as i32,
                hi: v as i32,
            });
        }
        self.record_of_marked(idx).map(|(lo, hi)| Bounds {
            lo: decode_bound(lo as i8),
            hi: decode_bound(hi as i8),
        })
    }

    /// The value of entry `idx` for a stretch whose endless play scores
    /// `w`; `None` for a damaged entry.
    #[inline]
    pub fn value(&self, idx: usize, w: i32) -> Option<i32> {
        self.value_with(idx, || w)
    }

    /// [`Table::value`], computing `w` only for a loop-sensitive entry.
    #[inline]
    pub fn value_with(&self, idx: usize, w: impl FnOnce() -> i32) -> Option<i32> {
        let v = self.byte(idx)? as i8;
        if v != format::EXCEPTION {
            return Some(v as i32);
        }
        self.bounds(idx).map(|b| b.value(w()))
    }
}

impl RawLevel for Table {
    fn header(&self) -> &Header {
        &self.header
    }

    fn raw_header(&self) -> [u8; format::HEADER_LEN] {
        Table::raw_header(self)
    }

    fn records_all(&self) -> Vec<u8> {
        Table::records_all(self)
    }

    fn values_into(&self, first: usize, out: &mut [u8]) -> Result<(), TableError> {
        Table::values_into(self, first, out)
    }
}
