//! The table file format (version 3): a 64-byte header, one value byte per
//! position, and a sorted list of the loop-sensitive exceptions.
//!
//! ```text
//! offset      size  field
//!   0           8   magic "ADJITBL\0"
//!   8           4   format version, u32 LE (3)
//!  12           1   game: 1 = adjito, 2 = adjiboto
//!  13           1   loop rule: 0 = start, 1 = even
//!  14           2   level n (seeds on the board), u16 LE
//!  16           8   entry count N, u64 LE = C(n + pits − 1, pits − 1)
//!  24           8   exception count X, u64 LE
//!  32          16   build-tool version, ASCII, zero-padded
//!  48           4   CRC-32 of the payload (bytes 64 .. end), u32 LE
//!  52           1   rule set (crate::rules::RuleSet::code; 0 = the game's
//!                   default reading, so files made before rule sets are its)
//!  53           7   reserved, zero
//!  60           4   CRC-32 of bytes 0..60, u32 LE
//!  64           N   value bytes, i8, in colex rank order (see crate::index)
//!  64 + N      WX   exceptions, ascending by rank, W bytes each
//!                   (W = [`record_len`]`(N)`):
//!                   W = 8 when N ≤ 2³²: rank u32 LE, lo i8, hi i8,
//!                         two zero bytes (every file of levels up to
//!                         Adjito 48 and Adji-Boto 43);
//!                   W = 16 above: rank u64 LE, lo i8, hi i8, six zero
//!                         bytes (Adji-Boto 44, C(53, 9) = 4 431 613 550
//!                         positions, is the first such level)
//! ```
//!
//! A level may also be stored as shards and a manifest ([`super::shard`]);
//! merged, they give this file byte for byte.
//!
//! Level files are named `GAME-[RULES-]LOOP-LLL.adjt`, the rule set's name
//! left out for each game's default (`adjito-start-020.adjt`,
//! `adjito-must-reach-start-020.adjt`).
//!
//! Entry `r` is the board of rank `r` among the boards of level `n`, seen by
//! the player to move (relative board, mover's row first); Adji-Boto tables
//! hold main-phase positions only. For almost every position the two
//! fixpoints of the value definition of docs/RULES.md §4 agree (`lo == hi`), and the
//! value byte is that value (seeds, mover minus opponent; it does not
//! depend on the loop rule's `w`). A position with `lo < hi` is
//! loop-sensitive: its value byte is −128 and its exact `lo` and `hi` are in
//! the exception list (−128 stands for −∞, +127 for +∞), so that the value
//! under the file's loop rule is `clamp(w, lo, hi)` and `tables verify` can
//! still recompute every entry from its successors. A probe reads one byte,
//! plus a binary search of the (short) list for an exception.
//!
//! Files of versions 1 and 2 (two bytes per position) are refused with a
//! message to rebuild. The header checksum is checked before any other
//! field is trusted; the level and counts are checked against the game
//! before anything is indexed with them.

use std::io::Write;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::fsutil::write_atomic_with;
use crate::game::GameId;
use crate::index::{level_size, MAX_LEVEL};
use crate::rules::RuleSet;
use crate::value::{LoopRule, NEG_INF_BYTE, POS_INF_BYTE};

use super::error::TableError;

/// File magic.
pub const MAGIC: &[u8; 8] = b"ADJITBL\0";
/// Current format version. Version 1 stored `lo` and `hi` as two separate
/// planes, version 2 interleaved them (two bytes per position); version 3
/// stores one value byte per position and the loop-sensitive exceptions.
pub const VERSION: u32 = 3;
/// Header size in bytes.
pub const HEADER_LEN: usize = 64;
/// Bytes per exception record of a level of at most 2³² entries.
pub const EXCEPTION_LEN: usize = 8;
/// Bytes per exception record of a level of more than 2³² entries.
pub const WIDE_EXCEPTION_LEN: usize = 16;
/// The value byte of a loop-sensitive position (look it up in the exceptions).
pub const EXCEPTION: i8 = i8::MIN;

/// A decoded header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// Game.
    pub game: GameId,
    /// The rule set the values were computed under.
    pub rules: RuleSet,
    /// Loop rule the values were computed under.
    pub rule: LoopRule,
    /// Seeds on the board.
    pub level: u16,
    /// Number of entries.
    pub count: u64,
    /// Number of loop-sensitive exceptions.
    pub exceptions: u64,
    /// Version of the tool that built it.
    pub tool: String,
    /// CRC-32 of the payload.
    pub payload_crc: u32,
}

impl Header {
    /// Encodes the header.
    pub fn encode(&self) -> [u8; HEADER_LEN] {
        let mut h = [0u8; HEADER_LEN];
        h[0..8].copy_from_slice(MAGIC);
        h[8..12].copy_from_slice(&VERSION.to_le_bytes());
        h[12] = self.game.code();
        h[13] = self.rule.code();
        h[52] = self.rules.code();
        h[14..16].copy_from_slice(&self.level.to_le_bytes());
        h[16..24].copy_from_slice(&self.count.to_le_bytes());
        h[24..32].copy_from_slice(&self.exceptions.to_le_bytes());
        let t = self.tool.as_bytes();
        let n = t.len().min(16);
        h[32..32 + n].copy_from_slice(&t[..n]);
        h[48..52].copy_from_slice(&self.payload_crc.to_le_bytes());
        let hc = crc32fast::hash(&h[0..60]);
        h[60..64].copy_from_slice(&hc.to_le_bytes());
        h
    }

    /// Bytes of the whole file this header describes.
    pub fn file_len(&self) -> u64 {
        HEADER_LEN as u64 + self.count + record_len(self.count) as u64 * self.exceptions
    }

    /// Decodes and checks a header: magic, version, header checksum, known
    /// game and rule, a level the game can have, the entry count of that
    /// level and an exception count within it. Nothing is indexed before
    /// these checks pass.
    ///
    /// # Errors
    /// [`TableError`] naming what is wrong; never panics on any input.
    pub fn decode(path: &Path, b: &[u8]) -> Result<Header, TableError> {
        let p = || path.to_path_buf();
        let bad = |what: String| TableError::Corrupted { path: p(), what };
        let truncated = || TableError::Truncated {
            path: p(),
            expected: HEADER_LEN as u64,
            found: b.len() as u64,
        };
        if b.len() >= 8 && &b[0..8] != MAGIC {
            return Err(TableError::NotATable { path: p() });
        }
        if b.len() < 12 {
            return Err(truncated());
        }
        let u32_at = |o: usize| u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
        let u64_at = |o: usize| (u32_at(o) as u64) | (u32_at(o + 4) as u64) << 32;
        let version = u32_at(8);
        if version != VERSION {
            return Err(TableError::Version {
                path: p(),
                found: version,
                reads: VERSION,
            });
        }
        if b.len() < HEADER_LEN {
            return Err(truncated());
        }
        if crc32fast::hash(&b[0..60]) != u32_at(60) {
            return Err(bad("header checksum mismatch".into()));
        }
        let game =
            GameId::from_code(b[12]).ok_or_else(|| bad(format!("unknown game code {}", b[12])))?;
        let rules = RuleSet::from_code(game, b[52])
            .ok_or_else(|| bad(format!("unknown rule set code {} for {game}", b[52])))?;
        let rule = LoopRule::from_code(b[13])
            .ok_or_else(|| bad(format!("unknown loop rule code {}", b[13])))?;
        let level = u16::from_le_bytes([b[14], b[15]]);
        check_level(path, game, level as u32)?;
        let (count, exceptions) = (u64_at(16), u64_at(24));
        let want = level_size(level as usize, pits_of(game));
        if count != want {
            return Err(bad(format!(
                "entry count {count} but level {level} has {want} positions"
            )));
        }
        if exceptions > count {
            return Err(bad(format!("{exceptions} exceptions for {count} entries")));
        }
        let tool = String::from_utf8_lossy(&b[32..48])
            .trim_end_matches('\0')
            .to_string();
        Ok(Header {
            game,
            rules,
            rule,
            level,
            count,
            exceptions,
            tool,
            payload_crc: u32_at(48),
        })
    }

    /// Checks that the header is the one wanted: game, rule set, loop
    /// rule, level.
    ///
    /// # Errors
    /// [`TableError::WrongGame`], [`TableError::WrongRules`],
    /// [`TableError::WrongRule`] or [`TableError::WrongLevel`].
    pub fn expect(
        &self,
        path: &Path,
        rules: RuleSet,
        rule: LoopRule,
        level: u32,
    ) -> Result<(), TableError> {
        let path = path.to_path_buf();
        if self.game != rules.game() {
            Err(TableError::WrongGame {
                path,
                expected: rules.game(),
                found: self.game,
            })
        } else if self.rules != rules {
            Err(TableError::WrongRules {
                path,
                expected: rules,
                found: self.rules,
            })
        } else if self.rule != rule {
            Err(TableError::WrongRule {
                path,
                expected: rule,
                found: self.rule,
            })
        } else if self.level as u32 != level {
            Err(TableError::WrongLevel {
                path,
                expected: level,
                found: self.level as u32,
            })
        } else {
            Ok(())
        }
    }
}

/// Pits of `game`'s board (its home's [`crate::games::pits`]).
pub const fn pits_of(game: GameId) -> usize {
    crate::games::pits(game)
}

/// Seeds of a whole `game`: no level is larger (its home's
/// [`crate::games::total`]).
pub const fn total_of(game: GameId) -> u32 {
    crate::games::total(game)
}

/// Refuses a level `game` cannot have (from a header or a file name)
/// before anything is indexed with it.
///
/// # Errors
/// [`TableError::LevelOutOfRange`].
pub fn check_level(path: &Path, game: GameId, level: u32) -> Result<(), TableError> {
    let total = total_of(game);
    if level > total || level as usize > MAX_LEVEL {
        return Err(TableError::LevelOutOfRange {
            path: path.to_path_buf(),
            game,
            level,
            total,
        });
    }
    Ok(())
}

/// The file name of a level of the tables of `rules` (its
/// [`RuleSet::tables`]).
pub fn file_name(rules: RuleSet, rule: LoopRule, level: u32) -> String {
    format!("{}{:03}.adjt", file_prefix(rules, rule), level)
}

/// What every level file of `rules` and `rule` is named by, before the
/// level.
pub(crate) fn file_prefix(rules: RuleSet, rule: LoopRule) -> String {
    format!("{}-", set_name(rules, rule))
}

/// The name of the file set of `rules` (its [`RuleSet::tables`]) and
/// `rule`: every level file's name before `-LLL.adjt` (`adjito-start`,
/// `adjito-must-reach-start`).
pub fn set_name(rules: RuleSet, rule: LoopRule) -> String {
    format!("{}-{}{}", rules.game(), rules.file_tag(), rule.name())
}

/// The path of a level in `dir`.
pub fn level_path(dir: &Path, rules: RuleSet, rule: LoopRule, level: u32) -> PathBuf {
    dir.join(file_name(rules, rule, level))
}

/// Whether bound bytes `lo`, `hi` need an exception record: a
/// loop-sensitive position (`lo < hi`), or an infinite bound (never with
/// `lo == hi`, but kept exact if it were).
#[inline]
pub fn is_exception(lo: u8, hi: u8) -> bool {
    lo != hi || lo == NEG_INF_BYTE as u8 || lo == POS_INF_BYTE as u8
}

/// Bytes per exception record of a level of `count` entries: 8 (rank
/// u32) up to 2³² entries, so that every file of such a level keeps the
/// layout it always had; 16 (rank u64) above.
#[inline]
pub const fn record_len(count: u64) -> usize {
    if count <= 1 << 32 {
        EXCEPTION_LEN
    } else {
        WIDE_EXCEPTION_LEN
    }
}

/// Writes the exception record of `rank` with bound bytes `lo`, `hi` into
/// `rec` (of a record's width, 8 or 16 bytes: the rank takes its first
/// half, `lo` and `hi` follow, the rest is zero).
pub fn encode_record(rec: &mut [u8], rank: u64, lo: u8, hi: u8) {
    let half = rec.len() / 2;
    rec.fill(0);
    rec[..half].copy_from_slice(&rank.to_le_bytes()[..half]);
    (rec[half], rec[half + 1]) = (lo, hi);
}

/// The rank of an exception record (of a record's width).
#[inline]
pub fn record_rank(rec: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    let half = rec.len() / 2;
    b[..half].copy_from_slice(&rec[..half]);
    u64::from_le_bytes(b)
}

/// The `lo` and `hi` bound bytes of an exception record.
#[inline]
pub fn record_bounds(rec: &[u8]) -> (u8, u8) {
    let half = rec.len() / 2;
    (rec[half], rec[half + 1])
}

/// Whether the padding bytes of an exception record are zero.
pub fn record_padding_zero(rec: &[u8]) -> bool {
    rec[rec.len() / 2 + 2..].iter().all(|&b| b == 0)
}

/// The bound bytes of the record of `rank` among `recs`, records of
/// `width` bytes ascending by rank (binary search); `None` when absent.
#[inline]
pub fn find_record(recs: &[u8], width: usize, rank: u64) -> Option<(u8, u8)> {
    let (mut a, mut b) = (0, recs.len() / width);
    while a < b {
        let m = (a + b) / 2;
        let rec = &recs[m * width..(m + 1) * width];
        match record_rank(rec).cmp(&rank) {
            std::cmp::Ordering::Less => a = m + 1,
            std::cmp::Ordering::Greater => b = m,
            std::cmp::Ordering::Equal => return Some(record_bounds(rec)),
        }
    }
    None
}

/// The exception records, `width` bytes each and ascending, of the
/// `count` entries from rank `first` on whose bound bytes `bounds` gives
/// for LOCAL indices `0..count`; the records carry the global ranks
/// `first + i`.
pub fn exception_records(first: u64, count: usize, width: usize, bounds: &Bounds) -> Vec<u8> {
    const CHUNK: usize = 1 << 16;
    (0..count.div_ceil(CHUNK))
        .into_par_iter()
        .flat_map_iter(|ci| {
            let mut out = Vec::new();
            for i in ci * CHUNK..((ci + 1) * CHUNK).min(count) {
                let (a, b) = bounds(i);
                if is_exception(a, b) {
                    let at = out.len();
                    out.resize(at + width, 0);
                    encode_record(&mut out[at..], first + i as u64, a, b);
                }
            }
            out
        })
        .collect()
}

/// The value byte stored for bound bytes `lo`, `hi`: `lo`, or
/// [`EXCEPTION`] for an entry with an exception record.
#[inline]
pub fn value_byte(lo: u8, hi: u8) -> u8 {
    if is_exception(lo, hi) {
        EXCEPTION as u8
    } else {
        lo
    }
}

/// Writes the value bytes of the `count` entries that `bounds` gives to
/// `w` a block at a time, into `crc` as well.
pub(crate) fn write_values(
    w: &mut impl Write,
    crc: &mut crc32fast::Hasher,
    count: usize,
    bounds: &Bounds,
) -> std::io::Result<()> {
    const BLOCK: usize = 1 << 16;
    let mut block = Vec::with_capacity(BLOCK);
    for start in (0..count).step_by(BLOCK) {
        block.clear();
        block.extend((start..(start + BLOCK).min(count)).map(|i| {
            let (a, b) = bounds(i);
            value_byte(a, b)
        }));
        crc.update(&block);
        w.write_all(&block)?;
    }
    Ok(())
}

/// The lo and hi bound bytes of each entry, by rank.
pub type Bounds<'a> = dyn Fn(usize) -> (u8, u8) + Sync + 'a;

/// Writes a level from its `lo` and `hi` planes; see [`write_level_with`].
///
/// # Errors
/// As [`write_level_with`].
pub fn write_level(
    dir: &Path,
    rules: RuleSet,
    rule: LoopRule,
    level: u32,
    lo: &[u8],
    hi: &[u8],
) -> Result<PathBuf, TableError> {
    write_level_with(dir, rules, rule, level, lo.len(), &|i| (lo[i], hi[i]))
}

/// Writes a level of `count` entries whose bound bytes `bounds` gives,
/// atomically through [`crate::fsutil::write_atomic_with`] (a
/// `.adji-*.tmp` file in the same directory, fsynced, then renamed over the
/// final name). The payload is produced a block at a time.
///
/// # Errors
/// [`TableError::Io`] on any I/O failure; the final file is then untouched.
pub fn write_level_with(
    dir: &Path,
    rules: RuleSet,
    rule: LoopRule,
    level: u32,
    count: usize,
    bounds: &Bounds,
) -> Result<PathBuf, TableError> {
    use std::io::{Seek, SeekFrom};
    let rules = rules.tables();
    let path = level_path(dir, rules, rule, level);
    // The tables directory is the builder's own: made when missing.
    crate::fsutil::create_dir_all(dir).map_err(|e| TableError::Io {
        path: dir.to_path_buf(),
        source: e,
    })?;
    let width = record_len(count as u64);
    let exc = exception_records(0, count, width, bounds);
    let mut header = Header {
        game: rules.game(),
        rules,
        rule,
        level: level as u16,
        count: count as u64,
        exceptions: (exc.len() / width) as u64,
        tool: tool_version(),
        payload_crc: 0,
    };
    write_atomic_with(&path, |w| {
        w.write_all(&header.encode())?;
        let mut crc = crc32fast::Hasher::new();
        write_values(w, &mut crc, count, bounds)?;
        crc.update(&exc);
        w.write_all(&exc)?;
        header.payload_crc = crc.finalize();
        w.seek(SeekFrom::Start(0))?;
        w.write_all(&header.encode())
    })
    .map_err(|e| TableError::Io {
        path: path.clone(),
        source: e,
    })?;
    Ok(path)
}

/// The build-tool version written into headers and manifests.
pub fn tool_version() -> String {
    format!("adji {}", env!("CARGO_PKG_VERSION"))
}
