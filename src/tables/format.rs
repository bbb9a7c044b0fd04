//! The table file format: a 64-byte header and two raw planes.
//!
//! ```text
//! offset size  field
//!   0     8    magic "ADJITBL\0"
//!   8     4    format version, u32 LE (2)
//!  12     1    game: 1 = adjito, 2 = adjiboto
//!  13     1    loop rule: 0 = start, 1 = even
//!  14     2    level (seeds on the board), u16 LE
//!  16     8    entry count, u64 LE = C(level + pits − 1, pits − 1)
//!  24    16    build-tool version, ASCII, zero-padded
//!  40     4    CRC-32 of the payload, u32 LE
//!  44     4    CRC-32 of bytes 0..44, u32 LE
//!  48    16    reserved, zero
//!  64    2N    entries in colex rank order, two i8 each: lo, then hi
//! ```
//! A bound byte is the value (seeds, mover minus opponent) with −128 for
//! −∞ and +127 for +∞. The stored value is `clamp(w, lo, hi)` and the
//! loop-sensitive bit is `lo < hi`: both follow from the two bytes, which
//! also let `tables verify` check every entry against its successors.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::game::GameId;
use crate::value::LoopRule;

use super::TableError;

/// File magic.
pub const MAGIC: &[u8; 8] = b"ADJITBL\0";
/// Current format version. Version 1 stored `lo` and `hi` as two separate
/// planes; version 2 interleaves them so that a lookup touches one cache line.
pub const VERSION: u32 = 2;
/// Header size in bytes.
pub const HEADER_LEN: usize = 64;

/// A decoded header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// Game.
    pub game: GameId,
    /// Loop rule the values were computed under.
    pub rule: LoopRule,
    /// Seeds on the board.
    pub level: u16,
    /// Number of entries.
    pub count: u64,
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
        h[14..16].copy_from_slice(&self.level.to_le_bytes());
        h[16..24].copy_from_slice(&self.count.to_le_bytes());
        let t = self.tool.as_bytes();
        let n = t.len().min(16);
        h[24..24 + n].copy_from_slice(&t[..n]);
        h[40..44].copy_from_slice(&self.payload_crc.to_le_bytes());
        let hc = crc32fast::hash(&h[0..44]);
        h[44..48].copy_from_slice(&hc.to_le_bytes());
        h
    }

    /// Decodes and checks a header: magic, version, header checksum, known
    /// game and rule.
    ///
    /// # Errors
    /// [`TableError`] naming what is wrong; never panics on any input.
    pub fn decode(path: &Path, b: &[u8]) -> Result<Header, TableError> {
        let p = || path.to_path_buf();
        if b.len() < HEADER_LEN {
            return Err(TableError::Truncated {
                path: p(),
                expected: HEADER_LEN as u64,
                found: b.len() as u64,
            });
        }
        if &b[0..8] != MAGIC {
            return Err(TableError::NotATable { path: p() });
        }
        let u32_at = |o: usize| u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
        let version = u32_at(8);
        if version != VERSION {
            return Err(TableError::Version {
                path: p(),
                found: version,
            });
        }
        if crc32fast::hash(&b[0..44]) != u32_at(44) {
            return Err(TableError::Corrupted {
                path: p(),
                what: "header checksum mismatch".into(),
            });
        }
        let game = GameId::from_code(b[12]).ok_or_else(|| TableError::Corrupted {
            path: p(),
            what: format!("unknown game code {}", b[12]),
        })?;
        let rule = LoopRule::from_code(b[13]).ok_or_else(|| TableError::Corrupted {
            path: p(),
            what: format!("unknown loop rule code {}", b[13]),
        })?;
        let level = u16::from_le_bytes([b[14], b[15]]);
        let mut c = [0u8; 8];
        c.copy_from_slice(&b[16..24]);
        let count = u64::from_le_bytes(c);
        let tool = String::from_utf8_lossy(&b[24..40])
            .trim_end_matches('\0')
            .to_string();
        Ok(Header {
            game,
            rule,
            level,
            count,
            tool,
            payload_crc: u32_at(40),
        })
    }
}

/// The file name of a level.
pub fn file_name(game: GameId, rule: LoopRule, level: u32) -> String {
    format!("{}-{}-{:03}.adjt", game.name(), rule.name(), level)
}

/// The path of a level in `dir`.
pub fn level_path(dir: &Path, game: GameId, rule: LoopRule, level: u32) -> PathBuf {
    dir.join(file_name(game, rule, level))
}

/// Writes a level atomically: a temporary file in the same directory,
/// fsynced, then renamed over the final name.
///
/// # Errors
/// [`TableError::Io`] on any I/O failure; the final file is then untouched.
pub fn write_level(
    dir: &Path,
    game: GameId,
    rule: LoopRule,
    level: u32,
    lo: &[u8],
    hi: &[u8],
) -> Result<PathBuf, TableError> {
    let path = level_path(dir, game, rule, level);
    let io = |e: std::io::Error| TableError::Io {
        path: path.clone(),
        source: e,
    };
    // The payload is lo/hi interleaved; it is produced a block at a time
    // (for the checksum, then for the file) rather than held in memory.
    let blocks = || {
        lo.chunks(1 << 16).zip(hi.chunks(1 << 16)).map(|(l, h)| {
            let mut b = Vec::with_capacity(2 * l.len());
            for (x, y) in l.iter().zip(h) {
                b.push(*x);
                b.push(*y);
            }
            b
        })
    };
    let mut hasher = crc32fast::Hasher::new();
    for b in blocks() {
        hasher.update(&b);
    }
    let crc = hasher.finalize();
    let header = Header {
        game,
        rule,
        level: level as u16,
        count: lo.len() as u64,
        tool: format!("adji {}", env!("CARGO_PKG_VERSION")),
        payload_crc: crc,
    };
    std::fs::create_dir_all(dir).map_err(io)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".adjt-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(io)?;
    {
        let mut w = std::io::BufWriter::with_capacity(1 << 20, tmp.as_file_mut());
        w.write_all(&header.encode()).map_err(io)?;
        for b in blocks() {
            w.write_all(&b).map_err(io)?;
        }
        w.flush().map_err(io)?;
    }
    tmp.as_file().sync_all().map_err(io)?;
    tmp.persist(&path).map_err(|e| io(e.error))?;
    Ok(path)
}
