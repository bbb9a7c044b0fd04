//! Sharded levels: a level stored as several shard files and a manifest,
//! each shard holding a stretch of the level's ranks; what a distributed or
//! out-of-core build writes. [`super::Table`] reads a sharded level like a
//! level file (a level file in the same directory wins over a manifest);
//! [`merge_level`] turns the shards into the level file, byte for byte what
//! a one-process build writes, and [`split_level`] does the reverse.
//!
//! # Shard file (version 1)
//!
//! Shard `index` of `of` holds the entries `first .. first + count` of the
//! level's colex rank order ([`crate::index`]):
//!
//! ```text
//! offset      size  field
//!   0           7   magic "ADJISHD"
//!   7           1   shard format version (1)
//!   8           1   game: 1 = adjito, 2 = adjiboto
//!   9           1   loop rule: 0 = start, 1 = even
//!  10           1   rule set (crate::rules::RuleSet::code)
//!  11           1   level n (seeds on the board; no game has more than 100)
//!  12           4   index, u32 LE (0-based)
//!  16           4   of: shards of the level, u32 LE
//!  20           8   first: rank of the shard's first entry, u64 LE
//!  28           8   count: entries in the shard, u64 LE
//!  36           8   exceptions X in the shard, u64 LE
//!  44           8   the level's entry count N, u64 LE
//!  52           4   CRC-32 of the value bytes, u32 LE
//!  56           4   CRC-32 of the exception records, u32 LE
//!  60           4   CRC-32 of bytes 0..60, u32 LE
//!  64       count   value bytes of ranks first .. first + count, as in a
//!                   level file (format::EXCEPTION marks an exception)
//!  64 + count  WX   exception records of those ranks, ascending, with
//!                   GLOBAL ranks, W = format::record_len(N) bytes each
//!                   (the level file's width: 8, or 16 above 2³² entries)
//! ```
//!
//! The shards' value bytes in order, then their exception records in
//! order, are the level file's payload; the level file is its 64-byte
//! header (format.rs) followed by that payload. Shard files are named
//! `GAME-[RULES-]LOOP-LLL.shard-IIIII-of-KKKKK.adjs` ([`shard_name`]).
//!
//! # Manifest (version 1)
//!
//! `GAME-[RULES-]LOOP-LLL.shards.json` ([`manifest_path`]), in the
//! directory of the shards, is a JSON object ([`Manifest`]):
//!
//! ```text
//! format        "adji-shards"
//! version       1
//! game, rules, loop   names as on the command line ("adjito", "default", "start")
//! level         seeds on the board
//! count         the level's entries N
//! exceptions    the level's exception records, all shards
//! record_len    bytes per exception record (format::record_len(N))
//! tool          the build tool's version, as the level file's header gets it
//! payload_crc   CRC-32 of the level file's payload (value bytes of every
//!               shard, then every shard's records), which is the header's
//!               payload CRC; from the shards' CRCs by crc32fast's
//!               `Hasher::combine` (lengths count and X·record_len)
//! shards        one object per shard, by index: index, of, first, count,
//!               exceptions, values_crc, exceptions_crc, file (a name, no
//!               directory); together exactly 0..N without gap or overlap
//! checksum      CRC-32 of the compact JSON of this object with checksum 0,
//!               fields in the order above
//! ```
//!
//! Opening checks the manifest's checksum and consistency, every shard's
//! header against the manifest, sizes, and (with
//! [`super::OpenCheck::Full`]) every shard's checksums: a missing,
//! corrupt, overlapping or gapped shard is one [`TableError`] naming the
//! file and what is wrong.

use std::io::Write;
use std::path::{Path, PathBuf};

use memmap2::Mmap;

use super::format::{self, Bounds, Header, HEADER_LEN};
use super::{Data, OpenCheck, Segment, Storage, Table, TableError};
use crate::fsutil::{open_regular, write_atomic_with};
use crate::game::GameId;
use crate::index::level_size;
use crate::rules::RuleSet;
use crate::value::LoopRule;

/// Shard file magic (the version byte follows).
pub const SHARD_MAGIC: &[u8; 7] = b"ADJISHD";
/// Shard file format version.
pub const SHARD_VERSION: u8 = 1;
/// Manifest format name.
pub const MANIFEST_FORMAT: &str = "adji-shards";
/// Manifest format version.
pub const MANIFEST_VERSION: u32 = 1;
/// Suffix of manifest file names, after the level.
pub const MANIFEST_SUFFIX: &str = ".shards.json";
/// Suffix of shard file names.
pub const SHARD_SUFFIX: &str = ".adjs";
/// The largest manifest read (far above a million shards' worth).
const MANIFEST_MAX: u64 = 256 << 20;
/// The most shards a level may have. A reader maps every shard of every
/// level it opens, and Linux allows a process 65,530 mappings by default
/// (`vm.max_map_count`): a level split into 66,030 shards could not be
/// read at all ("Cannot allocate memory"). 512 shards for each of
/// Adji-Boto's 101 levels stay under that limit with room to spare.
pub const MAX_SHARDS: u32 = 512;

/// Where a shard sits in its level: shard `index` of `of`, holding
/// entries `first .. first + count` of the level's colex rank order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    /// 0-based.
    pub index: u32,
    /// Number of shards of the level.
    pub of: u32,
    /// Rank of its first entry.
    pub first: u64,
    /// Entries.
    pub count: u64,
}

impl Place {
    /// Shard `index` of `of`, entries `range`.
    pub fn new(index: u32, of: u32, range: std::ops::Range<u64>) -> Place {
        Place {
            index,
            of,
            first: range.start,
            count: range.end - range.start,
        }
    }
}

/// One shard of a level: entries `[first, first + count)` of the level's
/// colex rank order.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShardInfo {
    /// 0-based.
    pub index: u32,
    /// Number of shards of the level.
    pub of: u32,
    /// Rank of its first entry.
    pub first: u64,
    /// Entries.
    pub count: u64,
    /// Exception records.
    pub exceptions: u64,
    /// CRC-32 of the shard's value bytes.
    pub values_crc: u32,
    /// CRC-32 of the shard's exception records.
    pub exceptions_crc: u32,
    /// File name (no directory).
    pub file: String,
}

impl ShardInfo {
    /// Where the shard sits in its level.
    pub fn place(&self) -> Place {
        Place {
            index: self.index,
            of: self.of,
            first: self.first,
            count: self.count,
        }
    }
}

/// A level's manifest (see the module documentation).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// [`MANIFEST_FORMAT`].
    pub format: String,
    /// [`MANIFEST_VERSION`].
    pub version: u32,
    /// The game's name.
    pub game: String,
    /// The rule set's name (of its tables).
    pub rules: String,
    /// The loop rule's name.
    #[serde(rename = "loop")]
    pub rule: String,
    /// Seeds on the board.
    pub level: u32,
    /// The level's entries.
    pub count: u64,
    /// The level's exception records.
    pub exceptions: u64,
    /// Bytes per exception record.
    pub record_len: u32,
    /// Build-tool version, for the level file's header.
    pub tool: String,
    /// CRC-32 of the level file's payload.
    pub payload_crc: u32,
    /// The shards, by index.
    pub shards: Vec<ShardInfo>,
    /// CRC-32 of the compact JSON of the manifest with this field 0.
    pub checksum: u32,
}

/// `GAME-[RULES-]LOOP-LLL`, what a level's file, shards and manifest are
/// named by.
fn level_stem(rules: RuleSet, rule: LoopRule, level: u32) -> String {
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

/// Where a level's bytes are in a directory ([`locate_level`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LevelAt {
    /// Its level file (which may still be missing or bad: the reader says).
    File(PathBuf),
    /// Its shards, by their manifest.
    Shards(PathBuf),
}

impl LevelAt {
    /// The level file's or the manifest's path.
    pub fn path(&self) -> &Path {
        match self {
            LevelAt::File(p) | LevelAt::Shards(p) => p,
        }
    }
}

/// The one rule of where level `level`'s bytes are in `dir`, which every
/// reader, hasher and verdict follows: its level file, unless nothing can
/// be opened there (missing, or a symbolic link to nothing) and the level's
/// manifest is in the same directory; then its shards.
pub fn locate_level(dir: &Path, rules: RuleSet, rule: LoopRule, level: u32) -> LevelAt {
    let file = format::level_path(dir, rules.tables(), rule, level);
    let manifest = manifest_path(dir, rules, rule, level);
    match std::fs::metadata(&file) {
        Err(e)
            if e.kind() == std::io::ErrorKind::NotFound
                && std::fs::symlink_metadata(&manifest).is_ok() =>
        {
            LevelAt::Shards(manifest)
        }
        _ => LevelAt::File(file),
    }
}

/// What a verdict or message names for a level in `dir`: its level file,
/// or its manifest when the level is read from its shards
/// ([`locate_level`]).
pub fn level_source(dir: &Path, rules: RuleSet, rule: LoopRule, level: u32) -> PathBuf {
    match locate_level(dir, rules, rule, level) {
        LevelAt::File(p) | LevelAt::Shards(p) => p,
    }
}

/// [`TableError::Shards`] of `path`.
fn shards_error(path: &Path, what: impl Into<String>) -> TableError {
    TableError::Shards {
        path: path.to_path_buf(),
        what: what.into(),
    }
}

/// [`TableError::Io`] of `path`.
fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> TableError + '_ {
    move |e| TableError::Io {
        path: path.to_path_buf(),
        source: e,
    }
}

/// A decoded shard header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardHeader {
    /// The rule set (of its tables).
    pub rules: RuleSet,
    /// Loop rule.
    pub rule: LoopRule,
    /// Seeds on the board.
    pub level: u32,
    /// 0-based index.
    pub index: u32,
    /// Shards of the level.
    pub of: u32,
    /// Rank of its first entry.
    pub first: u64,
    /// Entries.
    pub count: u64,
    /// Exception records.
    pub exceptions: u64,
    /// The level's entries.
    pub total: u64,
    /// CRC-32 of the value bytes.
    pub values_crc: u32,
    /// CRC-32 of the exception records.
    pub exceptions_crc: u32,
}

impl ShardHeader {
    /// Encodes the header.
    pub fn encode(&self) -> [u8; HEADER_LEN] {
        let mut h = [0u8; HEADER_LEN];
        h[0..7].copy_from_slice(SHARD_MAGIC);
        h[7] = SHARD_VERSION;
        h[8] = self.rules.game().code();
        h[9] = self.rule.code();
        h[10] = self.rules.code();
        h[11] = self.level as u8;
        h[12..16].copy_from_slice(&self.index.to_le_bytes());
        h[16..20].copy_from_slice(&self.of.to_le_bytes());
        h[20..28].copy_from_slice(&self.first.to_le_bytes());
        h[28..36].copy_from_slice(&self.count.to_le_bytes());
        h[36..44].copy_from_slice(&self.exceptions.to_le_bytes());
        h[44..52].copy_from_slice(&self.total.to_le_bytes());
        h[52..56].copy_from_slice(&self.values_crc.to_le_bytes());
        h[56..60].copy_from_slice(&self.exceptions_crc.to_le_bytes());
        let hc = crc32fast::hash(&h[0..60]);
        h[60..64].copy_from_slice(&hc.to_le_bytes());
        h
    }

    /// Bytes of the whole shard file this header describes.
    pub fn file_len(&self) -> u64 {
        HEADER_LEN as u64 + self.count + format::record_len(self.total) as u64 * self.exceptions
    }

    /// Decodes and checks a shard header: magic, version, header checksum,
    /// known game, rule set and loop rule, a level the game can have with
    /// its entry count, `index < of`, and the shard within the level.
    ///
    /// # Errors
    /// [`TableError`] naming what is wrong; never panics on any input.
    pub fn decode(path: &Path, b: &[u8]) -> Result<ShardHeader, TableError> {
        let bad = |what: String| shards_error(path, what);
        if b.len() >= 7 && &b[0..7] != SHARD_MAGIC {
            return Err(TableError::NotATable {
                path: path.to_path_buf(),
            });
        }
        if b.len() < HEADER_LEN {
            return Err(TableError::Truncated {
                path: path.to_path_buf(),
                expected: HEADER_LEN as u64,
                found: b.len() as u64,
            });
        }
        if b[7] != SHARD_VERSION {
            return Err(bad(format!(
                "unsupported shard format version {} (this tool reads version {SHARD_VERSION})",
                b[7]
            )));
        }
        let u32_at = |o: usize| u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
        let u64_at = |o: usize| (u32_at(o) as u64) | (u32_at(o + 4) as u64) << 32;
        if crc32fast::hash(&b[0..60]) != u32_at(60) {
            return Err(bad("shard header checksum mismatch".into()));
        }
        let game =
            GameId::from_code(b[8]).ok_or_else(|| bad(format!("unknown game code {}", b[8])))?;
        let rules = RuleSet::from_code(game, b[10])
            .ok_or_else(|| bad(format!("unknown rule set code {} for {game}", b[10])))?;
        let rule = LoopRule::from_code(b[9])
            .ok_or_else(|| bad(format!("unknown loop rule code {}", b[9])))?;
        let level = b[11] as u32;
        format::check_level(path, game, level)?;
        let h = ShardHeader {
            rules,
            rule,
            level,
            index: u32_at(12),
            of: u32_at(16),
            first: u64_at(20),
            count: u64_at(28),
            exceptions: u64_at(36),
            total: u64_at(44),
            values_crc: u32_at(52),
            exceptions_crc: u32_at(56),
        };
        let want = level_size(level as usize, format::pits_of(game));
        if h.total != want {
            return Err(bad(format!(
                "level entry count {} but level {level} has {want} positions",
                h.total
            )));
        }
        if h.index >= h.of {
            return Err(bad(format!("shard index {} of {}", h.index, h.of)));
        }
        if h.first.checked_add(h.count).is_none_or(|e| e > h.total) {
            return Err(bad(format!(
                "entries {} + {} beyond the level's {}",
                h.first, h.count, h.total
            )));
        }
        if h.exceptions > h.count {
            return Err(bad(format!(
                "{} exceptions for {} entries",
                h.exceptions, h.count
            )));
        }
        Ok(h)
    }

    /// Checks that the header is that of the shard at `place` in the
    /// level wanted.
    ///
    /// # Errors
    /// [`TableError::WrongGame`], [`TableError::WrongRules`],
    /// [`TableError::WrongRule`], [`TableError::WrongLevel`], or
    /// [`TableError::Shards`] for another place in the level.
    pub fn expect(
        &self,
        path: &Path,
        rules: RuleSet,
        rule: LoopRule,
        level: u32,
        place: Place,
    ) -> Result<(), TableError> {
        self.as_level_header().expect(path, rules, rule, level)?;
        let (want, got) = (place, self.place());
        if (got.index, got.of) != (want.index, want.of) {
            return Err(shards_error(
                path,
                format!(
                    "file holds shard {} of {}, expected shard {} of {}",
                    got.index, got.of, want.index, want.of
                ),
            ));
        }
        if (got.first, got.count) != (want.first, want.count) {
            let (a, b) = (got.first, got.first + got.count);
            let (c, d) = (want.first, want.first + want.count);
            return Err(shards_error(
                path,
                format!("file holds entries {a}..{b}, expected {c}..{d}"),
            ));
        }
        Ok(())
    }

    /// Where the shard sits in its level.
    fn place(&self) -> Place {
        Place {
            index: self.index,
            of: self.of,
            first: self.first,
            count: self.count,
        }
    }

    /// A level header with this shard's game, rules, rule and level (for
    /// [`Header::expect`]).
    fn as_level_header(&self) -> Header {
        Header {
            game: self.rules.game(),
            rules: self.rules,
            rule: self.rule,
            level: self.level as u16,
            count: self.total,
            exceptions: 0,
            tool: String::new(),
            payload_crc: 0,
        }
    }

    /// The [`ShardInfo`] of this header for the file `file`.
    fn info(&self, file: String) -> ShardInfo {
        ShardInfo {
            index: self.index,
            of: self.of,
            first: self.first,
            count: self.count,
            exceptions: self.exceptions,
            values_crc: self.values_crc,
            exceptions_crc: self.exceptions_crc,
            file,
        }
    }
}

/// Writes the shard at `place` of a level into `dir` (made when missing):
/// entries `first .. first + count`, whose bound bytes (lo, hi) are
/// `bounds(i)` for LOCAL `i` in `0..count`. Atomic (temporary file,
/// fsync, rename). Exception records carry GLOBAL ranks, in the level's
/// record width. Returns its info.
///
/// # Errors
/// [`TableError::Shards`] for a shard outside the level or `index ≥ of`;
/// [`TableError::Io`] on any I/O failure (the final file is then
/// untouched).
pub fn write_shard_with(
    dir: &Path,
    rules: RuleSet,
    rule: LoopRule,
    level: u32,
    place: Place,
    bounds: &Bounds,
) -> Result<ShardInfo, TableError> {
    use std::io::{Seek, SeekFrom};
    let Place {
        index,
        of,
        first,
        count,
    } = place;
    let rules = rules.tables();
    let path = shard_path(dir, rules, rule, level, index, of);
    format::check_level(&path, rules.game(), level)?;
    let total = level_size(level as usize, format::pits_of(rules.game()));
    if index >= of || first.checked_add(count).is_none_or(|e| e > total) {
        return Err(shards_error(
            &path,
            format!(
                "shard {index} of {of} with entries {first} + {count} does not fit level {level} \
                 of {total} entries"
            ),
        ));
    }
    crate::fsutil::create_dir_all(dir).map_err(io_error(dir))?;
    let width = format::record_len(total);
    let records = format::exception_records(first, count as usize, width, bounds);
    let mut header = ShardHeader {
        rules,
        rule,
        level,
        index,
        of,
        first,
        count,
        exceptions: (records.len() / width) as u64,
        total,
        values_crc: 0,
        exceptions_crc: crc32fast::hash(&records),
    };
    write_atomic_with(&path, |w| {
        w.write_all(&header.encode())?;
        let mut crc = crc32fast::Hasher::new();
        format::write_values(w, &mut crc, count as usize, bounds)?;
        w.write_all(&records)?;
        header.values_crc = crc.finalize();
        w.seek(SeekFrom::Start(0))?;
        w.write_all(&header.encode())
    })
    .map_err(io_error(&path))?;
    Ok(header.info(shard_name(rules, rule, level, index, of)))
}

/// Maps a shard file, checks its header (against the shard wanted) and
/// size; returns the map and the header.
fn map_shard(
    path: &Path,
    rules: RuleSet,
    rule: LoopRule,
    level: u32,
    place: Place,
) -> Result<(Mmap, ShardHeader), TableError> {
    let file = open_regular(path).map_err(|e| TableError::from_open(path, level, e))?;
    let map = super::map_file(path, &file)?;
    let h = ShardHeader::decode(path, &map)?;
    h.expect(path, rules.tables(), rule, level, place)?;
    super::check_len(path, map.len() as u64, h.file_len())?;
    Ok((map, h))
}

/// The CRC-32s of a shard's value bytes and of its records (in parallel).
fn shard_crcs(map: &[u8], count: u64) -> (u32, u32) {
    let values = &map[HEADER_LEN..HEADER_LEN + count as usize];
    let crc = super::scan_payload(values, 0, 0, 1 << 24).crc;
    (crc, crc32fast::hash(&map[HEADER_LEN + count as usize..]))
}

/// Checks an existing shard file (header, size, checksums) against what
/// it must be: the shard at `place` in the level. `Ok(info)` when it is good (a resumed build keeps it),
/// an error naming the problem otherwise ([`TableError::Missing`] when
/// there is no file).
///
/// # Errors
/// As described.
pub fn check_shard(
    dir: &Path,
    rules: RuleSet,
    rule: LoopRule,
    level: u32,
    place: Place,
) -> Result<ShardInfo, TableError> {
    let path = shard_path(dir, rules, rule, level, place.index, place.of);
    let (map, h) = map_shard(&path, rules, rule, level, place)?;
    if shard_crcs(&map, place.count) != (h.values_crc, h.exceptions_crc) {
        return Err(shards_error(&path, "shard checksum mismatch"));
    }
    Ok(h.info(shard_name(rules, rule, level, place.index, place.of)))
}

/// The CRC-32 of the level file's payload from its shards' CRCs and
/// lengths (`crc32fast`'s combine), shards in order.
pub fn payload_crc(shards: &[ShardInfo], width: usize) -> u32 {
    let mut h = crc32fast::Hasher::new();
    for s in shards {
        h.combine(&crc32fast::Hasher::new_with_initial_len(
            s.values_crc,
            s.count,
        ));
    }
    for s in shards {
        h.combine(&crc32fast::Hasher::new_with_initial_len(
            s.exceptions_crc,
            s.exceptions * width as u64,
        ));
    }
    h.finalize()
}

/// Checks that `shards` (by index) are shards `0..of` of one level of
/// `total` entries, named as [`shard_name`] names them, covering it
/// exactly in rank order.
fn check_cover(
    path: &Path,
    rules: RuleSet,
    rule: LoopRule,
    level: u32,
    total: u64,
    shards: &[ShardInfo],
) -> Result<(), TableError> {
    let err = |what: String| Err(shards_error(path, what));
    if shards.is_empty() {
        return err("no shards listed".into());
    }
    let of = shards[0].of;
    let mut next = 0u64;
    for (i, s) in shards.iter().enumerate() {
        if s.of != of {
            return err(format!(
                "shards disagree on the level's number of shards: {of} and {}",
                s.of
            ));
        }
        if s.index as usize != i || s.index >= of {
            let what = if (s.index as usize) < i {
                "listed twice"
            } else {
                "not listed"
            };
            let missing = if what == "listed twice" {
                s.index
            } else {
                i as u32
            };
            return err(format!("shard {missing} of {of} is {what}"));
        }
        let name = shard_name(rules, rule, level, s.index, s.of);
        if s.file != name {
            return err(format!(
                "shard {i} is named {:?}, expected {name:?}",
                s.file
            ));
        }
        if s.first > next {
            return err(format!(
                "gap: entries {next}..{} are in no shard (shard {i} starts at {})",
                s.first, s.first
            ));
        }
        if s.first < next {
            return err(format!(
                "overlap: shard {i} starts at {} but the shards before it end at {next}",
                s.first
            ));
        }
        if s.exceptions > s.count {
            return err(format!(
                "shard {i}: {} exceptions for {} entries",
                s.exceptions, s.count
            ));
        }
        next = s.first.saturating_add(s.count);
    }
    if shards.len() < of as usize {
        return err(format!("shard {} of {of} is not listed", shards.len()));
    }
    if next != total {
        return err(format!(
            "the shards cover entries 0..{next} but level {level} has {total}"
        ));
    }
    Ok(())
}

impl Manifest {
    /// The manifest of a level from its shards (by index), its checksum
    /// set.
    fn new(rules: RuleSet, rule: LoopRule, level: u32, total: u64, shards: Vec<ShardInfo>) -> Self {
        let width = format::record_len(total);
        let mut m = Manifest {
            format: MANIFEST_FORMAT.into(),
            version: MANIFEST_VERSION,
            game: rules.game().name().into(),
            rules: rules.name().into(),
            rule: rule.name().into(),
            level,
            count: total,
            exceptions: shards.iter().map(|s| s.exceptions).sum(),
            record_len: width as u32,
            tool: format::tool_version(),
            payload_crc: payload_crc(&shards, width),
            shards,
            checksum: 0,
        };
        m.checksum = m.computed_checksum();
        m
    }

    /// The CRC-32 of the compact JSON of the manifest with checksum 0.
    pub fn computed_checksum(&self) -> u32 {
        let body = Manifest {
            checksum: 0,
            ..self.clone()
        };
        crc32fast::hash(&serde_json::to_vec(&body).unwrap_or_default())
    }

    /// The header of the level file the shards merge into.
    pub fn level_header(&self, rules: RuleSet, rule: LoopRule) -> Header {
        Header {
            game: rules.game(),
            rules: rules.tables(),
            rule,
            level: self.level as u16,
            count: self.count,
            exceptions: self.exceptions,
            tool: self.tool.clone(),
            payload_crc: self.payload_crc,
        }
    }

    /// Checks everything a manifest states against itself and against the
    /// level wanted.
    fn check(
        &self,
        path: &Path,
        rules: RuleSet,
        rule: LoopRule,
        level: u32,
    ) -> Result<(), TableError> {
        let bad = |what: String| Err(shards_error(path, what));
        if self.format != MANIFEST_FORMAT || self.version != MANIFEST_VERSION {
            return bad(format!(
                "manifest format {:?} version {}, this tool reads {MANIFEST_FORMAT:?} version \
                 {MANIFEST_VERSION}",
                self.format, self.version
            ));
        }
        if self.checksum != self.computed_checksum() {
            return bad("manifest checksum mismatch".into());
        }
        let game = [GameId::Adjito, GameId::AdjiBoto]
            .into_iter()
            .find(|g| g.name() == self.game)
            .ok_or_else(|| shards_error(path, format!("unknown game {:?}", self.game)))?;
        let found_rules =
            RuleSet::parse(game, &self.rules).map_err(|e| shards_error(path, e.to_string()))?;
        let found_rule = [LoopRule::Start, LoopRule::Even]
            .into_iter()
            .find(|r| r.name() == self.rule)
            .ok_or_else(|| shards_error(path, format!("unknown loop rule {:?}", self.rule)))?;
        format::check_level(path, game, self.level)?;
        let found = Header {
            game,
            rules: found_rules,
            rule: found_rule,
            level: self.level as u16,
            count: 0,
            exceptions: 0,
            tool: String::new(),
            payload_crc: 0,
        };
        found.expect(path, rules.tables(), rule, level)?;
        let total = level_size(level as usize, format::pits_of(game));
        if self.count != total {
            return bad(format!(
                "entry count {} but level {level} has {total} positions",
                self.count
            ));
        }
        let width = format::record_len(total);
        if self.record_len as usize != width {
            return bad(format!(
                "record length {} but level {level} has {width}-byte records",
                self.record_len
            ));
        }
        if self.shards.len() > MAX_SHARDS as usize {
            return bad(format!(
                "{} shards, more than the {MAX_SHARDS} a level may have",
                self.shards.len()
            ));
        }
        check_cover(path, rules, rule, level, total, &self.shards)?;
        let exc: u64 = self.shards.iter().map(|s| s.exceptions).sum();
        if exc != self.exceptions {
            return bad(format!(
                "{} exceptions, but its shards list {exc}",
                self.exceptions
            ));
        }
        if payload_crc(&self.shards, width) != self.payload_crc {
            return bad("payload checksum does not match the shards' checksums".into());
        }
        Ok(())
    }
}

/// Writes the manifest of a level into `dir` from all its shards' infos
/// (any order; they must cover the level exactly, else an error).
/// Atomic. Holds, besides the shards, the CRC-32 of the level file's
/// payload, so that [`merge_level`] reproduces the one-process file byte
/// for byte.
///
/// # Errors
/// [`TableError::Shards`] when the shards do not make the level;
/// [`TableError::Io`].
pub fn write_manifest(
    dir: &Path,
    rules: RuleSet,
    rule: LoopRule,
    level: u32,
    shards: &[ShardInfo],
) -> Result<PathBuf, TableError> {
    let rules = rules.tables();
    let path = manifest_path(dir, rules, rule, level);
    format::check_level(&path, rules.game(), level)?;
    let total = level_size(level as usize, format::pits_of(rules.game()));
    let mut shards = shards.to_vec();
    shards.sort_by_key(|s| (s.index, s.first));
    check_cover(&path, rules, rule, level, total, &shards)?;
    let m = Manifest::new(rules, rule, level, total, shards);
    let mut text =
        serde_json::to_string_pretty(&m).map_err(|e| shards_error(&path, e.to_string()))?;
    text.push('\n');
    crate::fsutil::create_dir_all(dir).map_err(io_error(dir))?;
    crate::fsutil::write_atomic(&path, text.as_bytes()).map_err(io_error(&path))?;
    Ok(path)
}

/// Reads and checks the manifest at `path` of the level wanted.
///
/// # Errors
/// [`TableError::Missing`] when there is none; [`TableError::Shards`] or
/// a `Wrong…` error naming what is wrong.
pub fn read_manifest(
    path: &Path,
    rules: RuleSet,
    rule: LoopRule,
    level: u32,
) -> Result<Manifest, TableError> {
    use std::io::Read;
    let file = open_regular(path).map_err(|e| TableError::from_open(path, level, e))?;
    let mut text = String::new();
    file.take(MANIFEST_MAX + 1)
        .read_to_string(&mut text)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::InvalidData => shards_error(path, "manifest is not UTF-8 text"),
            _ => TableError::Io {
                path: path.to_path_buf(),
                source: e,
            },
        })?;
    if text.len() as u64 > MANIFEST_MAX {
        return Err(shards_error(path, "manifest larger than 256 MiB"));
    }
    let m: Manifest = serde_json::from_str(&text)
        .map_err(|e| shards_error(path, format!("manifest is not valid: {e}")))?;
    m.check(path, rules, rule, level)?;
    Ok(m)
}

/// One mapped shard of a sharded [`Table`].
pub(super) struct Part {
    /// Rank of its first entry.
    pub(super) first: usize,
    /// Entries.
    count: usize,
    /// The file's bytes.
    pub(super) data: Data,
    /// The file.
    path: PathBuf,
    /// CRC-32 of the value bytes and of the records (from its header).
    crcs: (u32, u32),
}

impl Part {
    /// Entries.
    pub(super) fn count(&self) -> usize {
        self.count
    }

    /// The value byte of entry `idx` (of the level; within this shard).
    #[inline(always)]
    pub(super) fn byte(&self, idx: usize) -> u8 {
        self.data[HEADER_LEN..HEADER_LEN + self.count][idx - self.first]
    }

    /// The value byte of entry `idx` for a prefetch.
    #[inline(always)]
    pub(super) fn get(&self, idx: usize) -> Option<&u8> {
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
    pub(super) fn into_memory(self) -> std::io::Result<Part> {
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
pub(super) fn open_sharded(
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
    let t = Table {
        storage: Storage::Sharded(parts),
        count: m.count as usize,
        width: m.record_len as usize,
        header: m.level_header(rules, rule),
    };
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
    let t = Table {
        storage: Storage::Sharded(vec![part]),
        count: m.count as usize,
        width: m.record_len as usize,
        header: m.level_header(rules, rule),
    };
    t.check_segments(&manifest, OpenCheck::Full)?;
    Ok(t)
}

/// Maps the shard `s` at `path` listed in `manifest`, its header and size
/// checked against the listing.
fn open_part(
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
        for name in format::list_dir(dir).map_err(io_error(dir))? {
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
fn find_manifest(
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
fn find_shard(dirs: &[PathBuf], s: &ShardInfo, manifest: &Path) -> Result<PathBuf, TableError> {
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
fn open_parts(
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
fn copy_merged(
    w: &mut impl Write,
    header: &Header,
    parts: &[Part],
    failed: &mut Option<TableError>,
) -> std::io::Result<()> {
    w.write_all(&header.encode())?;
    let mut crc = crc32fast::Hasher::new();
    let mut copy = |bytes: &[u8], want: u32, path: &Path, what: &str| {
        let got = super::scan_payload(bytes, 0, 0, 1 << 24).crc;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Bound bytes of a made-up level: mostly values, some exceptions.
    fn fake(i: u64) -> (u8, u8) {
        match i % 7 {
            3 => (-2i8 as u8, 4),
            5 => (
                crate::value::NEG_INF_BYTE as u8,
                crate::value::POS_INF_BYTE as u8,
            ),
            _ => ((i % 9) as u8, (i % 9) as u8),
        }
    }

    /// Wide records (16 bytes, rank u64) encode and decode ranks above
    /// 2³², and the binary search finds them, at the boundary.
    #[test]
    fn wide_records_round_trip_above_u32() {
        assert_eq!(format::record_len(1 << 32), 8);
        assert_eq!(format::record_len((1 << 32) + 1), 16);
        let first = u32::MAX as u64 - 20;
        for width in [16usize] {
            let recs = format::exception_records(first, 50, width, &|i| fake(first + i as u64));
            assert!(recs.len().is_multiple_of(width));
            let ranks: Vec<u64> = recs.chunks(width).map(format::record_rank).collect();
            let want: Vec<u64> = (first..first + 50)
                .filter(|&r| format::is_exception(fake(r).0, fake(r).1))
                .collect();
            assert_eq!(ranks, want);
            assert!(ranks.iter().any(|&r| r > u32::MAX as u64));
            for r in first..first + 50 {
                let got = format::find_record(&recs, width, r);
                let (lo, hi) = fake(r);
                assert_eq!(
                    got,
                    format::is_exception(lo, hi).then_some((lo, hi)),
                    "rank {r}"
                );
            }
            // The 8-byte form would have wrapped the ranks above 2³².
            let narrow = format::exception_records(first, 50, 8, &|i| fake(first + i as u64));
            assert!(format::find_record(&narrow, 8, u32::MAX as u64 + 5).is_none());
            assert!(recs.chunks(width).all(format::record_padding_zero));
        }
    }

    /// Narrow records are byte for byte the version-3 layout.
    #[test]
    fn narrow_records_keep_the_version_3_layout() {
        let recs = format::exception_records(10, 5, 8, &|i| fake(10 + i as u64));
        // Ranks 10 (3 mod 7) and 12 (5 mod 7).
        let mut want = Vec::new();
        want.extend_from_slice(&10u32.to_le_bytes());
        want.extend_from_slice(&[-2i8 as u8, 4, 0, 0]);
        want.extend_from_slice(&12u32.to_le_bytes());
        want.extend_from_slice(&[0x80, 0x7f, 0, 0]);
        assert_eq!(recs, want);
    }

    /// A shard at the end of Adji-Boto level 44 (more than 2³² entries)
    /// writes 16-byte records with global ranks, and checks.
    #[test]
    fn a_shard_of_a_level_beyond_u32_has_wide_records() {
        let d = tempfile::tempdir().unwrap();
        let rules = RuleSet::AdjiBotoDefault;
        let total = level_size(44, 10);
        assert!(total > u32::MAX as u64);
        let first = total - 100;
        let bounds = |i: usize| fake(first + i as u64);
        let place = Place::new(3, 4, first..total);
        let info = write_shard_with(d.path(), rules, LoopRule::Start, 44, place, &bounds).unwrap();
        let want_exc = (first..total)
            .filter(|&r| format::is_exception(fake(r).0, fake(r).1))
            .count();
        assert_eq!(info.exceptions, want_exc as u64);
        let checked = check_shard(d.path(), rules, LoopRule::Start, 44, place).unwrap();
        assert_eq!(checked, info);
        let bytes = std::fs::read(d.path().join(&info.file)).unwrap();
        assert_eq!(bytes.len(), HEADER_LEN + 100 + 16 * want_exc);
        let recs = &bytes[HEADER_LEN + 100..];
        let first_exc = (first..total).find(|&r| format::is_exception(fake(r).0, fake(r).1));
        assert_eq!(Some(format::record_rank(&recs[..16])), first_exc);
        assert!(first_exc.unwrap() > u32::MAX as u64);
        // Another place in the level is refused, naming the file.
        let elsewhere = Place::new(3, 4, first - 1..total - 1);
        let e = check_shard(d.path(), rules, LoopRule::Start, 44, elsewhere)
            .unwrap_err()
            .to_string();
        assert!(e.contains(&info.file) && e.contains("expected"), "{e}");
    }

    /// The manifest refuses gaps, overlaps, a wrong count and a corrupt
    /// checksum, each naming what is wrong.
    #[test]
    fn manifests_refuse_gaps_overlaps_and_corruption() {
        let d = tempfile::tempdir().unwrap();
        let (rules, rule, level) = (RuleSet::AdjitoDefault, LoopRule::Start, 3);
        let total = level_size(3, 12);
        let infos: Vec<ShardInfo> = [(0, 100), (100, total - 100)]
            .iter()
            .enumerate()
            .map(|(i, &(f, c))| {
                let place = Place::new(i as u32, 2, f..f + c);
                write_shard_with(d.path(), rules, rule, level, place, &|j| fake(f + j as u64))
                    .unwrap()
            })
            .collect();
        let mut gap = infos.clone();
        gap[1].first = 101;
        gap[1].count -= 1;
        let e = write_manifest(d.path(), rules, rule, level, &gap)
            .unwrap_err()
            .to_string();
        assert!(e.contains("gap: entries 100..101"), "{e}");
        let mut over = infos.clone();
        over[1].first = 99;
        over[1].count += 1;
        let e = write_manifest(d.path(), rules, rule, level, &over)
            .unwrap_err()
            .to_string();
        assert!(e.contains("overlap"), "{e}");
        let e = write_manifest(d.path(), rules, rule, level, &infos[..1])
            .unwrap_err()
            .to_string();
        assert!(e.contains("shard 1 of 2 is not listed"), "{e}");
        let mut twice = infos.clone();
        twice[1] = infos[0].clone();
        let e = write_manifest(d.path(), rules, rule, level, &twice)
            .unwrap_err()
            .to_string();
        assert!(e.contains("shard 0 of 2 is listed twice"), "{e}");
        let path = write_manifest(d.path(), rules, rule, level, &infos).unwrap();
        let m = read_manifest(&path, rules, rule, level).unwrap();
        assert_eq!(m.shards, infos);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replace("\"first\": 100", "\"first\": 10")).unwrap();
        let e = read_manifest(&path, rules, rule, level)
            .unwrap_err()
            .to_string();
        assert!(e.contains("manifest checksum mismatch"), "{e}");
        std::fs::write(&path, "{\"format\": ").unwrap();
        let e = read_manifest(&path, rules, rule, level)
            .unwrap_err()
            .to_string();
        assert!(e.contains("manifest is not valid"), "{e}");
        std::fs::write(&path, text).unwrap();
        let e = read_manifest(&path, RuleSet::AdjitoMustReach, rule, level).unwrap_err();
        assert!(matches!(e, TableError::WrongRules { .. }), "{e}");
    }
}
