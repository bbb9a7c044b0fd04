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

use crate::fsutil::write_atomic_with;
use crate::game::GameId;
use crate::index::{level_size, MAX_LEVEL};
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
    /// game and rule, a level the game can have and the entry count of that
    /// level. Nothing is indexed before these checks pass.
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
        check_level(path, game, level as u32)?;
        let want = level_size(level as usize, pits_of(game));
        if count != want {
            return Err(TableError::Corrupted {
                path: p(),
                what: format!("entry count {count} but level {level} has {want} positions"),
            });
        }
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

    /// Checks that the header is the one wanted: game, loop rule, level.
    ///
    /// # Errors
    /// [`TableError::WrongGame`], [`TableError::WrongRule`] or
    /// [`TableError::WrongLevel`].
    pub fn expect(
        &self,
        path: &Path,
        game: GameId,
        rule: LoopRule,
        level: u32,
    ) -> Result<(), TableError> {
        let path = path.to_path_buf();
        if self.game != game {
            Err(TableError::WrongGame {
                path,
                expected: game,
                found: self.game,
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

/// Pits of `game`'s board.
pub const fn pits_of(game: GameId) -> usize {
    match game {
        GameId::Adjito => 12,
        GameId::AdjiBoto => 10,
    }
}

/// Seeds of a whole `game`: no level is larger.
pub const fn total_of(game: GameId) -> u32 {
    match game {
        GameId::Adjito => 48,
        GameId::AdjiBoto => 100,
    }
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

/// The file name of a level.
pub fn file_name(game: GameId, rule: LoopRule, level: u32) -> String {
    format!("{}-{}-{:03}.adjt", game.name(), rule.name(), level)
}

/// The path of a level in `dir`.
pub fn level_path(dir: &Path, game: GameId, rule: LoopRule, level: u32) -> PathBuf {
    dir.join(file_name(game, rule, level))
}

/// Writes a level atomically through [`crate::fsutil::write_atomic_with`]
/// (a `.adji-*.tmp` file in the same directory, fsynced, then renamed over
/// the final name).
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
    let header = Header {
        game,
        rule,
        level: level as u16,
        count: lo.len() as u64,
        tool: format!("adji {}", env!("CARGO_PKG_VERSION")),
        payload_crc: hasher.finalize(),
    };
    write_atomic_with(&path, |w| {
        w.write_all(&header.encode())?;
        blocks().try_for_each(|b| w.write_all(&b))
    })
    .map_err(|e| TableError::Io {
        path: path.clone(),
        source: e,
    })?;
    Ok(path)
}

/// Prefix of the temporary files that versions before `fsutil` left.
const LEGACY_TMP_PREFIX: &str = ".adjt-";

/// Removes the temporary files a killed build left in `dir`: ours
/// ([`crate::fsutil::remove_stale_temps`]) and those of the older
/// `.adjt-*.tmp` naming. Returns how many were removed.
///
/// # Errors
/// [`TableError::Io`] listing the directory or removing a file.
pub fn remove_stale_temps(dir: &Path) -> Result<usize, TableError> {
    let io = |e| TableError::Io {
        path: dir.to_path_buf(),
        source: e,
    };
    let mut removed = crate::fsutil::remove_stale_temps(dir).map_err(io)?;
    for name in list_dir(dir).map_err(io)? {
        if name.starts_with(LEGACY_TMP_PREFIX) && name.ends_with(crate::fsutil::TMP_SUFFIX) {
            let p = dir.join(&name);
            if std::fs::symlink_metadata(&p).is_ok_and(|m| m.is_file()) {
                std::fs::remove_file(&p).map_err(io)?;
                removed += 1;
            }
        }
    }
    Ok(removed)
}

/// The names in `dir` (none when it does not exist).
fn list_dir(dir: &Path) -> std::io::Result<Vec<String>> {
    match std::fs::read_dir(dir) {
        Ok(rd) => rd
            .map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()))
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(e),
    }
}

/// The levels of `game` under `rule` that have a file in `dir`, by file
/// name, ascending (whatever the files hold; opening them checks that).
///
/// # Errors
/// [`TableError::Io`] when the directory cannot be listed.
pub fn levels_present(dir: &Path, game: GameId, rule: LoopRule) -> Result<Vec<u32>, TableError> {
    let prefix = format!("{}-{}-", game.name(), rule.name());
    let mut v: Vec<u32> = list_dir(dir)
        .map_err(|e| TableError::Io {
            path: dir.to_path_buf(),
            source: e,
        })?
        .iter()
        .filter_map(|n| n.strip_prefix(&prefix)?.strip_suffix(".adjt")?.parse().ok())
        .collect();
    v.sort_unstable();
    Ok(v)
}
