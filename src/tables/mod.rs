//! Endgame tables: one file per level (seeds on the board), every position
//! of the level stored, values exactly as docs/RULES.md §4 defines them.
//!
//! - [`TableError`]: everything that can go wrong with tables;
//! - [`format`]: the level file format, its names and atomic writes;
//! - [`locate`]: where a level's bytes are (a level file or a manifest),
//!   and which levels a directory holds;
//! - [`shard`]: a level stored as shard files and a manifest, merged and
//!   split (a [`Table`] reads either form);
//! - [`compressed`]: a level stored compressed (`.adjz`) in blocks, read
//!   in place through a cache of decoded blocks;
//! - [`lock`]: the build locks of a directory and its stale temporary files;
//! - [`retrograde`]: the parallel retrograde builder (named for its algorithm, not build output);
//! - `payload`: the checks of a level's bytes as it is opened;
//! - [`verify`]: header, checksum and successor checks;
//! - [`stats`]: per-level statistics;
//! - `moves`: the value of each legal move of a position, from the tables;
//! - [`bench`]: probe speed.
//!
//! Boards are indexed relative to the mover with one colex rank per level
//! ([`crate::index`]); Adji-Boto tables cover main-phase positions only.

pub mod bench;
pub mod compressed;
mod error;
pub mod format;
pub mod locate;
pub mod lock;
mod moves;
mod payload;
pub mod retrograde;
pub mod shard;
pub mod stats;
pub mod verify;

use std::path::Path;

use memmap2::Mmap;

use crate::fsutil::open_regular;
use crate::game::{Game, GameId, Position};
use crate::index::rank;
use crate::rules::RuleSet;
use crate::value::{decode_bound, Bounds, LoopRule};

pub use format::{level_path, Header};

pub use error::TableError;
pub use moves::{move_values, MoveValue};
use payload::{
    check_len, check_records, combine_crc, corrupted, first_impossible, map_file, scan_payload,
    PayloadScan,
};

/// The bytes of a table: the file mapped, or a copy in anonymous memory
/// on transparent huge pages ([`Table::into_memory`]).
enum Data {
    Mapped(Mmap),
    Loaded(memmap2::MmapMut),
}

impl std::ops::Deref for Data {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Data::Mapped(m) => m,
            Data::Loaded(m) => m,
        }
    }
}

/// Where a table's bytes are: one level file, or the shards of a level.
enum Storage {
    /// A level file: header, value bytes, exception records.
    Single(Data),
    /// Shard files, ascending and covering the level (empty shards left
    /// out); each holds its value bytes and the exception records of its
    /// ranks.
    Sharded(Vec<shard::Part>),
    /// A compressed level file ([`compressed`]): blocks decoded on probe.
    Compressed(Box<compressed::Compressed>),
}

/// One contiguous stretch of a level's entries: ranks `first ..
/// first + values.len()`, their value bytes and their exception records.
struct Segment<'a> {
    first: u64,
    values: &'a [u8],
    records: &'a [u8],
    path: &'a Path,
    /// A shard's CRC-32s of its value bytes and of its records; `None`
    /// for a level file (its header has the payload's).
    crcs: Option<(u32, u32)>,
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
}

/// How much of a level file [`Table::open_checked`] reads before trusting it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum OpenCheck {
    /// Header, size, the payload checksum and every exception record: the
    /// whole file is read once (in parallel). The default.
    #[default]
    Full,
    /// Header, size and the exception records only: the value bytes are
    /// not read until probed, so a cold start maps a big table at once. A
    /// corrupted value byte then goes unnoticed; check files with
    /// `adji tables verify` before trusting them this way.
    Header,
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
                        return shard::open_sharded(&manifest, rules, rule, level, check);
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
        let map = map_file(path, &file)?;
        let header = Header::decode(path, &map)?;
        header.expect(path, rules, rule, level)?;
        check_len(path, map.len() as u64, header.file_len())?;
        let t = Table {
            storage: Storage::Single(Data::Mapped(map)),
            count: header.count as usize,
            width: format::record_len(header.count),
            header,
        };
        t.check_segments(path, check)?;
        Ok(t)
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
        Ok(Table {
            count: c.header.count as usize,
            width: format::record_len(c.header.count),
            header: c.header.clone(),
            storage: Storage::Compressed(Box::new(c)),
        })
    }

    /// The table's stretches of entries: the whole level for a level file
    /// (at `path`), one per (non-empty) shard otherwise; none for a
    /// compressed level (checked block by block when opened).
    fn segments<'a>(&'a self, path: &'a Path) -> Vec<Segment<'a>> {
        match &self.storage {
            Storage::Compressed(_) => Vec::new(),
            Storage::Single(d) => vec![Segment {
                first: 0,
                values: &d[format::HEADER_LEN..format::HEADER_LEN + self.count],
                records: &d[format::HEADER_LEN + self.count..],
                path,
                crcs: None,
            }],
            Storage::Sharded(parts) => parts.iter().map(shard::Part::segment).collect(),
        }
    }

    /// Checks every segment ([`OpenCheck::Full`]: checksums, value bytes
    /// and records; [`OpenCheck::Header`]: the records only) and, for a
    /// level file, the payload checksum and the exception count of the
    /// header. A sharded level's segments are checked against its shards'
    /// headers when opened ([`shard::open_sharded`]).
    fn check_segments(&self, path: &Path, check: OpenCheck) -> Result<(), TableError> {
        let n = self.header.level as u8;
        for seg in self.segments(path) {
            let path = seg.path;
            if check == OpenCheck::Full {
                let scan = scan_payload(seg.values, seg.values.len(), n, 1 << 24);
                let good = match seg.crcs {
                    None => {
                        combine_crc(scan.crc, seg.values.len() as u64, seg.records)
                            == self.header.payload_crc
                    }
                    Some(c) => c == (scan.crc, crc32fast::hash(seg.records)),
                };
                if !good {
                    return Err(corrupted(path, "payload checksum mismatch".into()));
                }
                let marked = self.check_scan(&seg, &scan)?;
                let records = (seg.records.len() / self.width) as u64;
                if marked != records {
                    return Err(corrupted(
                        path,
                        format!("{marked} entries marked loop-sensitive but {records} exception records"),
                    ));
                }
            }
            check_records(&seg, path, self.width, n as i32)?;
        }
        Ok(())
    }

    /// Checks a segment's scan: no value byte outside ±(seeds on the
    /// board). Returns the bytes marked loop-sensitive.
    fn check_scan(&self, seg: &Segment<'_>, scan: &PayloadScan) -> Result<u64, TableError> {
        if scan.outside > scan.marked {
            return Err(first_impossible(seg, self.header.level as i32));
        }
        Ok(scan.marked)
    }

    /// Whether entry `idx` is in this table's files: every entry of a
    /// level file or a complete sharded level; those of its one shard for a
    /// table opened by [`shard::open_own_shard`].
    pub fn holds(&self, idx: u64) -> bool {
        match &self.storage {
            Storage::Single(_) | Storage::Compressed(_) => idx < self.count as u64,
            Storage::Sharded(parts) => parts
                .iter()
                .any(|p| (p.first as u64..(p.first + p.count()) as u64).contains(&idx)),
        }
    }

    /// The bytes of the level's files mapped read-only: page cache that
    /// the kernel may drop and read again, not an allocation (one file, a
    /// slot per shard, or a compressed file). A copy in memory
    /// ([`Table::into_memory`]) maps nothing.
    pub fn mapped_bytes(&self) -> u64 {
        match &self.storage {
            Storage::Single(d) => d.mapped_len(),
            Storage::Sharded(parts) => parts.iter().map(|p| p.data.mapped_len()).sum(),
            Storage::Compressed(c) => c.file_len(),
        }
    }

    /// The bytes the level allocates, at most: a copy in memory
    /// ([`Table::into_memory`]), or the cache of decoded blocks of a
    /// compressed level ([`compressed::Compressed::cache_bytes`]). Memory
    /// plans count these, and report [`Table::mapped_bytes`] apart.
    pub fn allocated_bytes(&self) -> u64 {
        match &self.storage {
            Storage::Single(d) => d.len() as u64 - d.mapped_len(),
            Storage::Sharded(parts) => parts
                .iter()
                .map(|p| p.data.len() as u64 - p.data.mapped_len())
                .sum(),
            Storage::Compressed(c) => c.cache_bytes(),
        }
    }

    /// Whether the level is read from a compressed file ([`compressed`]).
    pub fn is_compressed(&self) -> bool {
        matches!(self.storage, Storage::Compressed(_))
    }

    /// The codec of a compressed level; `None` for a raw one.
    pub fn codec(&self) -> Option<compressed::Codec> {
        match &self.storage {
            Storage::Compressed(c) => Some(c.codec()),
            _ => None,
        }
    }

    /// The 64-byte header of the raw level file this table is or stands
    /// for: the file's own bytes, the merged file's for shards, the one
    /// a compressed file carries.
    pub fn raw_header(&self) -> [u8; format::HEADER_LEN] {
        match &self.storage {
            Storage::Single(d) => {
                let mut h = [0u8; format::HEADER_LEN];
                h.copy_from_slice(&d[..format::HEADER_LEN]);
                h
            }
            Storage::Sharded(_) => self.header.encode(),
            Storage::Compressed(c) => c.raw_header(),
        }
    }

    /// Every exception record of the level (of the files it holds), in
    /// rank order.
    pub fn records_all(&self) -> Vec<u8> {
        match &self.storage {
            Storage::Compressed(c) => c.records().to_vec(),
            _ => self
                .segments(Path::new(""))
                .iter()
                .flat_map(|s| s.records.iter().copied())
                .collect(),
        }
    }

    /// Copies the value bytes of entries `first .. first + out.len()`
    /// (within the level).
    pub fn values_into(&self, first: usize, out: &mut [u8]) {
        match &self.storage {
            Storage::Single(d) => out.copy_from_slice(
                &d[format::HEADER_LEN + first..format::HEADER_LEN + first + out.len()],
            ),
            Storage::Compressed(c) => c.values_into(first, out),
            Storage::Sharded(parts) => {
                for (i, o) in out.iter_mut().enumerate() {
                    *o = Table::part(parts, first + i).byte(first + i);
                }
            }
        }
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
        let storage = match self.storage {
            Storage::Single(d) => Storage::Single(d.into_memory()?),
            Storage::Sharded(parts) => Storage::Sharded(
                parts
                    .into_iter()
                    .map(shard::Part::into_memory)
                    .collect::<std::io::Result<_>>()?,
            ),
            Storage::Compressed(c) => {
                let len = self.header.file_len() as usize;
                let mut m = memmap2::MmapMut::map_anon(len.max(1))?;
                #[cfg(target_os = "linux")]
                let _ = m.advise(memmap2::Advice::HugePage);
                c.raw_into(&mut m[..len]).map_err(std::io::Error::other)?;
                Storage::Single(Data::Loaded(m))
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
    pub fn planes(&self) -> (Vec<u8>, Vec<u8>) {
        let mut l = vec![0u8; self.count];
        match &self.storage {
            Storage::Compressed(c) => c.values_into(0, &mut l),
            _ => {
                for seg in self.segments(Path::new("")) {
                    let f = seg.first as usize;
                    l[f..f + seg.values.len()].copy_from_slice(seg.values);
                }
            }
        }
        let mut h = l.clone();
        for r in self.records_all().chunks_exact(self.width) {
            let i = format::record_rank(r) as usize;
            (l[i], h[i]) = format::record_bounds(r);
        }
        (l, h)
    }

    /// The bound bytes (`lo`, `hi`) of entry `idx` as the writer takes them
    /// ([`format::Bounds`]): the value byte twice, or an exception's
    /// record (`idx < len()`).
    pub fn bound_bytes(&self, idx: usize) -> (u8, u8) {
        let v = self.byte(idx);
        if v as i8 != format::EXCEPTION {
            return (v, v);
        }
        self.record(idx)
            .unwrap_or((format::EXCEPTION as u8, crate::value::POS_INF_BYTE as u8))
    }

    /// The shard holding entry `idx` of a sharded level.
    #[inline]
    fn part(parts: &[shard::Part], idx: usize) -> &shard::Part {
        &parts[parts.partition_point(|p| p.first <= idx).saturating_sub(1)]
    }

    /// The value byte of entry `idx`: one branch between a level file and
    /// its shards.
    #[inline(always)]
    fn byte(&self, idx: usize) -> u8 {
        match &self.storage {
            Storage::Single(d) => d[format::HEADER_LEN..format::HEADER_LEN + self.count][idx],
            Storage::Sharded(parts) => Table::part(parts, idx).byte(idx),
            Storage::Compressed(c) => c.byte(idx),
        }
    }

    /// The bound bytes of the exception record of entry `idx` (binary
    /// search), `None` when it has none.
    fn record(&self, idx: usize) -> Option<(u8, u8)> {
        let recs = match &self.storage {
            Storage::Single(d) => &d[format::HEADER_LEN + self.count..],
            Storage::Sharded(parts) => Table::part(parts, idx).records(),
            Storage::Compressed(c) => c.records(),
        };
        format::find_record(recs, self.width, idx as u64)
    }

    /// The exact bounds of an exception entry.
    fn exception(&self, idx: usize) -> Option<Bounds> {
        self.record(idx).map(|(lo, hi)| Bounds {
            lo: decode_bound(lo as i8),
            hi: decode_bound(hi as i8),
        })
    }

    /// Hints the processor to fetch entry `idx` (no effect on results).
    #[inline(always)]
    pub fn prefetch(&self, idx: usize) {
        let b = match &self.storage {
            Storage::Single(d) => d.get(format::HEADER_LEN + idx),
            Storage::Sharded(parts) => Table::part(parts, idx).get(idx),
            Storage::Compressed(_) => None,
        };
        if let Some(b) = b {
            prefetch(b);
        }
    }

    /// Bounds of entry `idx` (`idx < len()`).
    #[inline]
    pub fn bounds(&self, idx: usize) -> Bounds {
        let v = self.byte(idx) as i8;
        if v != format::EXCEPTION {
            return Bounds {
                lo: v as i32,
                hi: v as i32,
            };
        }
        // Opened with `OpenCheck::Full`, every marked byte has its record;
        // a file trusted with `OpenCheck::Header` may lack one if corrupted:
        // the widest bounds then, never a panic.
        self.exception(idx).unwrap_or(Bounds {
            lo: crate::value::NEG_INF,
            hi: crate::value::POS_INF,
        })
    }

    /// The value of entry `idx` for a stretch whose endless play scores `w`.
    #[inline]
    pub fn value(&self, idx: usize, w: i32) -> i32 {
        self.value_with(idx, || w)
    }

    /// [`Table::value`], computing `w` only for a loop-sensitive entry.
    #[inline]
    pub fn value_with(&self, idx: usize, w: impl FnOnce() -> i32) -> i32 {
        let v = self.byte(idx) as i8;
        if v != format::EXCEPTION {
            return v as i32;
        }
        self.bounds(idx).value(w())
    }
}

impl Data {
    /// Bytes mapped from the file (none for a copy in memory).
    fn mapped_len(&self) -> u64 {
        match self {
            Data::Mapped(m) => m.len() as u64,
            Data::Loaded(_) => 0,
        }
    }

    /// The bytes copied into anonymous memory on transparent huge pages
    /// (see [`Table::into_memory`]).
    fn into_memory(self) -> std::io::Result<Data> {
        if let Data::Loaded(_) = self {
            return Ok(self);
        }
        let mut m = memmap2::MmapMut::map_anon(self.len().max(1))?;
        #[cfg(target_os = "linux")]
        let _ = m.advise(memmap2::Advice::HugePage);
        m[..self.len()].copy_from_slice(&self);
        Ok(Data::Loaded(m))
    }
}

/// Bytes as GiB with two decimals (for messages).
pub(crate) fn fmt_gib(b: u64) -> String {
    format!("{:.2} GiB", b as f64 / (1u64 << 30) as f64)
}

/// Hints the processor to fetch the cache line of `x` (no effect on
/// results; a no-op off x86-64).
#[inline(always)]
pub(crate) fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is a hint; the address is a valid reference.
    unsafe {
        std::arch::x86_64::_mm_prefetch(x as *const T as *const i8, std::arch::x86_64::_MM_HINT_T0);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// The tables of one game, rule set and loop rule, levels `0..=max_level`.
pub struct TableSet {
    /// Game.
    pub game: GameId,
    /// The rule set whose tables these are ([`RuleSet::tables`]).
    pub rules: RuleSet,
    /// Loop rule.
    pub rule: LoopRule,
    levels: Vec<Table>,
}

impl TableSet {
    /// An empty set (no level covered).
    pub fn empty(rules: RuleSet, rule: LoopRule) -> Self {
        TableSet {
            game: rules.game(),
            rules: rules.tables(),
            rule,
            levels: Vec::new(),
        }
    }

    /// Opens levels `0..=max` from `dir`.
    ///
    /// # Errors
    /// The first level that is missing or bad.
    pub fn open<G: Game>(dir: &Path, rule: LoopRule, max: u32) -> Result<Self, TableError> {
        let mut s = TableSet::empty(G::RULES.tables(), rule);
        for n in 0..=max {
            s.push(Table::open(
                &level_path(dir, G::RULES.tables(), rule, n),
                G::RULES,
                rule,
                n,
                G::PITS,
            )?);
        }
        Ok(s)
    }

    /// Opens every consecutive level from 0 that is present in `dir`.
    ///
    /// # Errors
    /// A level file that is present but bad.
    pub fn open_available<G: Game>(dir: &Path, rule: LoopRule) -> Result<Self, TableError> {
        TableSet::open_available_checked::<G>(dir, rule, OpenCheck::Full)
    }

    /// [`TableSet::open_available`] with the given depth of checking.
    ///
    /// # Errors
    /// A level file that is present but bad.
    pub fn open_available_checked<G: Game>(
        dir: &Path,
        rule: LoopRule,
        check: OpenCheck,
    ) -> Result<Self, TableError> {
        let mut s = TableSet::empty(G::RULES.tables(), rule);
        for n in 0..=format::total_of(G::ID) {
            let path = level_path(dir, G::RULES.tables(), rule, n);
            match Table::open_checked(&path, G::RULES.tables(), rule, n, G::PITS, check) {
                Ok(t) => s.push(t),
                Err(TableError::Missing { .. }) => break,
                Err(e) => return Err(e),
            }
        }
        Ok(s)
    }

    /// Which loop rules have at least level 0 in `dir` for `rules` (a file
    /// or a shard manifest).
    pub fn rules_present(dir: &Path, rules: RuleSet) -> Vec<LoopRule> {
        [LoopRule::Start, LoopRule::Even]
            .into_iter()
            .filter(|&r| {
                level_path(dir, rules.tables(), r, 0).exists()
                    || compressed::format::level_path(dir, rules, r, 0).exists()
                    || shard::manifest_path(dir, rules, r, 0).exists()
            })
            .collect()
    }

    /// The same tables copied into anonymous memory ([`Table::into_memory`]).
    ///
    /// # Errors
    /// When the memory cannot be had.
    pub fn into_memory(self) -> std::io::Result<TableSet> {
        Ok(TableSet {
            game: self.game,
            rules: self.rules,
            rule: self.rule,
            levels: self
                .levels
                .into_iter()
                .map(Table::into_memory)
                .collect::<std::io::Result<_>>()?,
        })
    }

    /// Appends the next level.
    pub fn push(&mut self, t: Table) {
        debug_assert_eq!(t.header.level as usize, self.levels.len());
        self.levels.push(t);
    }

    /// Number of levels covered (`max_level + 1`), 0 when empty.
    pub fn covered(&self) -> u32 {
        self.levels.len() as u32
    }

    /// Whether `level` is covered.
    #[inline]
    pub fn covers(&self, level: u32) -> bool {
        (level as usize) < self.levels.len()
    }

    /// Bytes of all mapped table files (what a search may touch).
    pub fn mapped_bytes(&self) -> u64 {
        self.levels.iter().map(Table::mapped_bytes).sum()
    }

    /// Bytes the tables allocate, at most ([`Table::allocated_bytes`]).
    pub fn allocated_bytes(&self) -> u64 {
        self.levels.iter().map(Table::allocated_bytes).sum()
    }

    /// Shapes the caches of the compressed levels for a budget of
    /// `bytes` of decoded blocks: the levels, smallest first, get the
    /// whole cache (room for every block, kept once decoded, so that a
    /// warm probe costs what a raw one does) while their value bytes fit
    /// what is left; the rest the direct-mapped cache of
    /// [`compressed::reader::CACHE_SLOTS`] blocks. Returns the bytes the
    /// caches may then hold ([`TableSet::allocated_bytes`] of the
    /// compressed levels).
    pub fn fit_caches(&mut self, bytes: u64) -> u64 {
        let mut left = bytes;
        let mut total = 0;
        for t in &mut self.levels {
            if let Storage::Compressed(c) = &mut t.storage {
                let whole = (t.count as u64) <= left;
                if whole {
                    left -= t.count as u64;
                }
                c.set_whole_cache(whole);
                total += c.cache_bytes();
            }
        }
        total
    }

    /// The table of `level`.
    pub fn level(&self, level: u32) -> Option<&Table> {
        self.levels.get(level as usize)
    }

    /// Bounds of a main-phase position whose level is covered.
    #[inline]
    pub fn bounds<G: Game>(&self, pos: &Position) -> Option<Bounds> {
        if pos.in_opening() {
            return None;
        }
        let t = self.levels.get(pos.level() as usize)?;
        Some(t.bounds(rank(&pos.pits, G::PITS) as usize))
    }

    /// Value of a main-phase position whose level is covered.
    #[inline]
    pub fn value<G: Game>(&self, pos: &Position) -> Option<i32> {
        if pos.in_opening() {
            return None;
        }
        let t = self.levels.get(pos.level() as usize)?;
        Some(t.value(rank(&pos.pits, G::PITS) as usize, self.rule.w::<G>(pos)))
    }
}

/// The positions (mover to move, main phase) of ranks `ranks` of `level`,
/// with their ranks, in rank order: the walk every per-level pass makes.
pub fn level_positions<G: Game>(
    level: u32,
    ranks: std::ops::Range<u64>,
) -> impl Iterator<Item = (u64, Position)> {
    crate::index::boards(ranks, level as usize, G::PITS).map(|(r, pits)| {
        (
            r,
            Position {
                pits,
                side: 0,
                opening: 0,
            },
        )
    })
}

#[cfg(test)]
mod tests;
