//! Shard files: their format, writing one and checking one.
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

use std::io::Write;
use std::path::Path;

use memmap2::Mmap;

use crate::fsutil::{open_regular, write_atomic_with};
use crate::game::GameId;
use crate::index::level_size;
use crate::rules::RuleSet;
use crate::tables::error::TableError;
use crate::tables::format::{self, Bounds, Header, HEADER_LEN};
use crate::value::LoopRule;

use super::name::{shard_name, shard_path};

/// Shard file magic (the version byte follows).
pub const SHARD_MAGIC: &[u8; 7] = b"ADJISHD";
/// Shard file format version.
pub const SHARD_VERSION: u8 = 1;

/// One shard of a level, as its header gives it and its manifest lists
/// it: entries `[first, first + count)` of the level's colex rank order.
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
        let bad = |what: String| TableError::shards(path, what);
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
            return Err(TableError::shards(
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
            return Err(TableError::shards(
                path,
                format!("file holds entries {a}..{b}, expected {c}..{d}"),
            ));
        }
        Ok(())
    }

    /// Where the shard sits in its level.
    pub(super) fn place(&self) -> Place {
        Place {
            index: self.index,
            of: self.of,
            first: self.first,
            count: self.count,
        }
    }

    /// A level header with this shard's game, rules, rule and level (for
    /// [`Header::expect`]).
    pub(super) fn as_level_header(&self) -> Header {
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
    pub(super) fn info(&self, file: String) -> ShardInfo {
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
        return Err(TableError::shards(
            &path,
            format!(
                "shard {index} of {of} with entries {first} + {count} does not fit level {level} \
                 of {total} entries"
            ),
        ));
    }
    crate::fsutil::create_dir_all(dir).map_err(TableError::io_at(dir))?;
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
    .map_err(TableError::io_at(&path))?;
    Ok(header.info(shard_name(rules, rule, level, index, of)))
}

/// Maps a shard file, checks its header (against the shard wanted) and
/// size; returns the map and the header.
pub(super) fn map_shard(
    path: &Path,
    rules: RuleSet,
    rule: LoopRule,
    level: u32,
    place: Place,
) -> Result<(Mmap, ShardHeader), TableError> {
    let file = open_regular(path).map_err(|e| TableError::from_open(path, level, e))?;
    let map = crate::tables::payload::map_file(path, &file)?;
    let h = ShardHeader::decode(path, &map)?;
    h.expect(path, rules.tables(), rule, level, place)?;
    crate::tables::payload::check_len(path, map.len() as u64, h.file_len())?;
    Ok((map, h))
}

/// The CRC-32s of a shard's value bytes and of its records (in parallel).
pub(super) fn shard_crcs(map: &[u8], count: u64) -> (u32, u32) {
    let values = &map[HEADER_LEN..HEADER_LEN + count as usize];
    let crc = crate::tables::payload::scan_payload(values, 0, 0, 1 << 24).crc;
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
        return Err(TableError::shards(&path, "shard checksum mismatch"));
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
