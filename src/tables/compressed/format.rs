//! The compressed level format (`.adjz`, version 1), and its writer: a
//! level's value bytes in independent blocks of `B` entries, each a zstd
//! frame of the transformed bytes ([`super::codec`]), so that a probe
//! decodes one block; the exception records stored as they are. The raw
//! level file ([`crate::tables::format`]) it stands for is given back
//! byte for byte: its header is kept verbatim, and its CRC-32 is in the
//! header.
//!
//! ```text
//! offset      size  field
//!   0           8   magic "ADJITBZ\0"
//!   8           4   format version, u32 LE (1)
//!  12           1   game: 1 = adjito, 2 = adjiboto
//!  13           1   loop rule: 0 = start, 1 = even
//!  14           2   level n, u16 LE
//!  16           8   entry count N, u64 LE (as the raw header)
//!  24           8   exception count X, u64 LE (as the raw header)
//!  32          16   version of the tool that compressed it, ASCII, zero-padded
//!  48           1   rule set (crate::rules::RuleSet::code)
//!  49           1   codec: 1 = zstd (one frame per block, content size set)
//!  50           1   transform (super::codec::Transform::code): 0 none,
//!                   1 delta, 2 sides, 3 sides then delta, 4 don't care
//!                   (crate::tables::dontcare: stored bytes as they are,
//!                   values read through the levels below)
//!  51           1   zstd level used (information only)
//!  52           4   block size B, entries per block, u32 LE, 1 ..= 2²⁰
//!  56           8   block count K = ⌈N / B⌉, u64 LE
//!  64           4   CRC-32 of the whole raw level file, u32 LE
//!  68           4   CRC-32 of the block index (bytes 192 .. 192 + 12(K+1))
//!  72           8   length of this file in bytes, u64 LE
//!  80           4   transform 4 (don't care) only: CRC-32 of the stored
//!                   value bytes, every block's in order (the raw CRC is
//!                   met only through the levels below); else zero
//!  84          40   reserved, zero
//! 124           4   CRC-32 of bytes 0..124, u32 LE
//! 128          64   the raw level file's 64-byte header, verbatim
//! 192    12(K+1)    block index: for block i < K, its offset in this file
//!                   (u64 LE) and the CRC-32 of its stored bytes (u32 LE);
//!                   entry K: the offset of the exception records and
//!                   their CRC-32. Offsets ascend; block i's bytes end
//!                   where entry i + 1 begins
//!  …                blocks: block i holds entries iB .. min((i+1)B, N)
//!  …          X·W   the exception records, as in the raw file (W bytes each)
//! end − 4       4   CRC-32 of every byte before it, u32 LE
//! ```
//!
//! Compressed level files are named as the raw ones with `.adjz` for
//! `.adjt` (`adjito-start-020.adjz`).

use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::codec::{encode_block, BlockPlace, Transform};
use crate::fsutil::write_atomic_with;
use crate::rules::RuleSet;
use crate::tables::dontcare::{fill, keeps, needs_lower, Fill, Lower};
use crate::tables::error::TableError;
use crate::tables::format::{file_prefix, pits_of, record_len, tool_version, Header, HEADER_LEN};
use crate::value::LoopRule;

/// File magic.
pub const MAGIC: &[u8; 8] = b"ADJITBZ\0";
/// Format version.
pub const VERSION: u32 = 1;
/// Bytes of the compressed header (before the raw header).
pub const ZHEADER_LEN: usize = 128;
/// Offset of the block index.
pub const INDEX_AT: usize = ZHEADER_LEN + HEADER_LEN;
/// Bytes per block index entry.
pub const INDEX_ENTRY: usize = 12;
/// Bytes of the closing CRC.
pub const TRAILER_LEN: usize = 4;
/// The codec code of zstd.
pub const CODEC_ZSTD: u8 = 1;
/// The largest block size accepted.
pub const MAX_BLOCK: u32 = 1 << 16;
/// File name suffix.
pub const SUFFIX: &str = ".adjz";
/// Bytes of blocks held at once by a round of blocks coded in parallel
/// (the writer's, and `convert::stream_raw`'s decoding), whatever the
/// block size.
pub const ROUND_BYTES: u64 = 16 << 20;

/// How a level is compressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Codec {
    /// Entries per block.
    pub block: u32,
    /// zstd level.
    pub level: i32,
    /// The transform before zstd.
    pub transform: Transform,
}

impl Codec {
    /// The codec chosen by measurement (results/compression.md): zstd
    /// level 12 over blocks of 4,096 entries, no transform, for both
    /// games: within 1% of zstd 19's ratio at 2.4 times its speed, and a
    /// cold probe of about 7 µs (16 KiB blocks gain 3% and cost 3 times
    /// as much a probe; no transform measured helped).
    pub const fn chosen() -> Codec {
        Codec {
            block: 4096,
            level: 12,
            transform: Transform::None,
        }
    }

    /// The codec that models the values (issue 52, results/compression.md):
    /// [`Codec::chosen`] with don't-care entries
    /// ([`crate::tables::dontcare`]), for levels that are read with the
    /// levels below them (`tables compress --transform dontcare`).
    pub const fn modelled() -> Codec {
        Codec {
            transform: Transform::DontCare,
            ..Codec::chosen()
        }
    }
}

/// The file name of a compressed level.
pub fn file_name(rules: RuleSet, rule: LoopRule, level: u32) -> String {
    format!("{}{:03}{SUFFIX}", file_prefix(rules.tables(), rule), level)
}

/// The path of a compressed level in `dir`.
pub fn level_path(dir: &Path, rules: RuleSet, rule: LoopRule, level: u32) -> PathBuf {
    dir.join(file_name(rules, rule, level))
}

/// A decoded compressed header (the fields beyond the raw header's).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ZHeader {
    /// The codec.
    pub codec: Codec,
    /// Block count.
    pub blocks: u64,
    /// CRC-32 of the raw level file.
    pub raw_crc: u32,
    /// CRC-32 of the block index.
    pub index_crc: u32,
    /// Length of the compressed file.
    pub file_len: u64,
    /// CRC-32 of the stored value bytes of a don't-care level (else 0).
    pub stored_crc: u32,
    /// The raw level file's header, verbatim.
    pub raw_header: [u8; HEADER_LEN],
}

impl ZHeader {
    /// Encodes the 192 bytes before the index.
    pub fn encode(&self, h: &Header) -> [u8; INDEX_AT] {
        let mut b = [0u8; INDEX_AT];
        b[0..8].copy_from_slice(MAGIC);
        b[8..12].copy_from_slice(&VERSION.to_le_bytes());
        b[12] = h.game.code();
        b[13] = h.rule.code();
        b[14..16].copy_from_slice(&h.level.to_le_bytes());
        b[16..24].copy_from_slice(&h.count.to_le_bytes());
        b[24..32].copy_from_slice(&h.exceptions.to_le_bytes());
        let t = tool_version();
        let n = t.len().min(16);
        b[32..32 + n].copy_from_slice(&t.as_bytes()[..n]);
        b[48] = h.rules.code();
        b[49] = CODEC_ZSTD;
        b[50] = self.codec.transform.code();
        b[51] = self.codec.level.clamp(0, 255) as u8;
        b[52..56].copy_from_slice(&self.codec.block.to_le_bytes());
        b[56..64].copy_from_slice(&self.blocks.to_le_bytes());
        b[64..68].copy_from_slice(&self.raw_crc.to_le_bytes());
        b[68..72].copy_from_slice(&self.index_crc.to_le_bytes());
        b[72..80].copy_from_slice(&self.file_len.to_le_bytes());
        b[80..84].copy_from_slice(&self.stored_crc.to_le_bytes());
        let hc = crc32fast::hash(&b[0..124]);
        b[124..128].copy_from_slice(&hc.to_le_bytes());
        b[128..192].copy_from_slice(&self.raw_header);
        b
    }
}

/// The CRC-32 of a raw level file from its header bytes and its
/// payload's CRC (which the header holds): no pass over the payload.
pub fn raw_file_crc(raw_header: &[u8; HEADER_LEN], payload_crc: u32, payload_len: u64) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(raw_header);
    h.combine(&crc32fast::Hasher::new_with_initial_len(
        payload_crc,
        payload_len,
    ));
    h.finalize()
}

/// A level as [`write_compressed`] reads it, whatever its form: the raw
/// level file it is or stands for, entry by entry
/// ([`crate::tables::Table`] is one, for a level file, shards or a
/// compressed file).
pub trait RawLevel: Sync {
    /// The level's header.
    fn header(&self) -> &Header;
    /// The 64-byte header of the raw level file.
    fn raw_header(&self) -> [u8; HEADER_LEN];
    /// Every exception record of the level, in rank order.
    fn records_all(&self) -> Vec<u8>;
    /// Copies the value bytes of entries `first .. first + out.len()`.
    ///
    /// # Errors
    /// A part of the level that cannot be read, naming it.
    fn values_into(&self, first: usize, out: &mut [u8]) -> Result<(), TableError>;
}

/// Writes `t` (any form: level file, shards or compressed) as a
/// compressed level file at `out`, atomically
/// ([`crate::fsutil::write_atomic_with`]). Blocks are compressed in
/// parallel on the current rayon pool; `done(entries)` is called after
/// each round of blocks. A don't-care codec needs `lower`
/// ([`write_compressed_with`]); this refuses it.
///
/// # Errors
/// [`TableError::Io`] naming `out`; the final file is then untouched.
pub fn write_compressed(
    t: &impl RawLevel,
    out: &Path,
    codec: Codec,
    done: &(dyn Fn(u64) + Sync),
) -> Result<(), TableError> {
    write_compressed_with(t, out, codec, None, done)
}

/// One block's stored bytes as the file holds them: zstd's frame, and the
/// CRC-32 of the bytes it decodes to.
struct Coded {
    frame: Vec<u8>,
    crc: u32,
}

/// The block of `values` at `place` coded with `codec`. A don't-care
/// codec fills the free entries that `lower` finds as `how` says, and
/// checks that the filled block keeps every value ([`keeps`]).
fn code_block(
    values: &[u8],
    codec: Codec,
    place: BlockPlace,
    lower: Option<(&dyn Lower, Fill)>,
) -> std::io::Result<Coded> {
    let Some((lower, how)) = lower.filter(|_| needs_lower(codec.transform)) else {
        let frame = encode_block(values, codec.transform, place, codec.level)?;
        return Ok(Coded {
            frame,
            crc: crc32fast::hash(values),
        });
    };
    let free = lower
        .free(place.level, place.first, values)
        .map_err(std::io::Error::other)?;
    let stored = fill(values, &free, place.level, how);
    if !keeps(values, &free, &stored) {
        return Err(std::io::Error::other(format!(
            "level {}, block at rank {}: the filled block does not keep its values",
            place.level, place.first
        )));
    }
    Ok(Coded {
        frame: encode_block(&stored, codec.transform, place, codec.level)?,
        crc: crc32fast::hash(&stored),
    })
}

/// The `len` value bytes of `t` from rank `first`, and where they lie.
fn block_values(
    t: &impl RawLevel,
    first: u64,
    len: usize,
) -> std::io::Result<(Vec<u8>, BlockPlace)> {
    let h = t.header();
    let mut v = vec![0u8; len];
    t.values_into(first as usize, &mut v)
        .map_err(std::io::Error::other)?;
    let place = BlockPlace {
        first,
        level: h.level as u32,
        pits: pits_of(h.game),
    };
    Ok((v, place))
}

/// Blocks a writer codes both ways to choose a level's [`Fill`].
const FILL_SAMPLE: u64 = 16;

/// The filling of the level of `t` that zstd codes shortest over
/// [`FILL_SAMPLE`] blocks spread over it.
fn choose_fill(t: &impl RawLevel, codec: Codec, lower: &dyn Lower) -> std::io::Result<Fill> {
    let h = t.header();
    let (n, b) = (h.count, codec.block as u64);
    let blocks = n.div_ceil(b);
    let mut sizes = [0usize; 2];
    for i in (0..blocks).step_by((blocks / FILL_SAMPLE).max(1) as usize) {
        let (v, place) = block_values(t, i * b, b.min(n - i * b) as usize)?;
        for (k, how) in Fill::ALL.into_iter().enumerate() {
            sizes[k] += code_block(&v, codec, place, Some((lower, how)))?
                .frame
                .len();
        }
    }
    Ok(Fill::ALL[(sizes[1] < sizes[0]) as usize])
}

/// [`write_compressed`] with the levels below, which a don't-care codec
/// ([`crate::tables::dontcare`]) reads to fill and to check each block.
///
/// # Errors
/// [`TableError::Io`] naming `out`, or the error of a level below; the
/// final file is then untouched.
pub fn write_compressed_with(
    t: &impl RawLevel,
    out: &Path,
    codec: Codec,
    lower: Option<&dyn Lower>,
    done: &(dyn Fn(u64) + Sync),
) -> Result<(), TableError> {
    let h = t.header();
    let (n, b) = (h.count, codec.block.clamp(1, MAX_BLOCK) as u64);
    let codec = Codec {
        block: b as u32,
        ..codec
    };
    let blocks = n.div_ceil(b);
    let raw_header = t.raw_header();
    let records = t.records_all();
    let payload_len = n + records.len() as u64;
    let index_len = INDEX_ENTRY * (blocks as usize + 1);
    let mut index = vec![0u8; index_len];
    let mut zh = ZHeader {
        codec,
        blocks,
        raw_crc: raw_file_crc(&raw_header, h.payload_crc, payload_len),
        index_crc: 0,
        file_len: 0,
        stored_crc: 0,
        raw_header,
    };
    let lower = match (lower, needs_lower(codec.transform)) {
        (Some(l), true) => Some((
            l,
            choose_fill(t, codec, l).map_err(|e| read_or_written(e, out))?,
        )),
        (None, true) => {
            return Err(TableError::Io {
                path: out.to_path_buf(),
                source: std::io::Error::other("a don't-care codec needs the levels below"),
            })
        }
        (_, false) => None,
    };
    write_atomic_with(out, |w| {
        // Header and index are written last, over these zeros.
        w.write_all(&[0u8; INDEX_AT])?;
        w.write_all(&index)?;
        let mut body = crc32fast::Hasher::new();
        let mut stored_values = crc32fast::Hasher::new();
        let mut at = (INDEX_AT + index_len) as u64;
        let round = (ROUND_BYTES / b).max(1);
        for first in (0..blocks).step_by(round as usize) {
            let ids: Vec<u64> = (first..(first + round).min(blocks)).collect();
            let coded: Vec<std::io::Result<(Coded, u64)>> = ids
                .par_iter()
                .map(|&i| {
                    let len = b.min(n - i * b) as usize;
                    let (v, place) = block_values(t, i * b, len)?;
                    Ok((code_block(&v, codec, place, lower)?, len as u64))
                })
                .collect();
            for (&i, c) in ids.iter().zip(coded) {
                let (c, len) = c?;
                stored_values.combine(&crc32fast::Hasher::new_with_initial_len(c.crc, len));
                put_entry(&mut index, i as usize, at, crc32fast::hash(&c.frame));
                body.update(&c.frame);
                w.write_all(&c.frame)?;
                at += c.frame.len() as u64;
            }
            done(ids.len() as u64 * b);
        }
        put_entry(&mut index, blocks as usize, at, crc32fast::hash(&records));
        body.update(&records);
        w.write_all(&records)?;
        zh.file_len = at + (records.len() + TRAILER_LEN) as u64;
        zh.index_crc = crc32fast::hash(&index);
        if needs_lower(codec.transform) {
            zh.stored_crc = stored_values.finalize();
        }
        let head = zh.encode(h);
        let mut whole = crc32fast::Hasher::new();
        whole.update(&head);
        whole.update(&index);
        whole.combine(&body);
        w.write_all(&whole.finalize().to_le_bytes())?;
        w.seek(SeekFrom::Start(0))?;
        w.write_all(&head)?;
        w.write_all(&index)
    })
    .map_err(|e| read_or_written(e, out))
}

/// The error of a conversion writing `out`: the input's own error when
/// reading it failed (carried through the writer's `io::Error`), else an
/// I/O error of `out`, the file being written.
pub(super) fn read_or_written(e: std::io::Error, out: &Path) -> TableError {
    let written = |source| TableError::Io {
        path: out.to_path_buf(),
        source,
    };
    if !e.get_ref().is_some_and(|i| i.is::<TableError>()) {
        return written(e);
    }
    match e.into_inner().map(|i| i.downcast::<TableError>()) {
        Some(Ok(t)) => *t,
        Some(Err(other)) => written(std::io::Error::other(other)),
        None => written(std::io::Error::other("unknown error")),
    }
}

/// Writes index entry `i`: offset and CRC-32.
fn put_entry(index: &mut [u8], i: usize, offset: u64, crc: u32) {
    let e = &mut index[i * INDEX_ENTRY..(i + 1) * INDEX_ENTRY];
    e[0..8].copy_from_slice(&offset.to_le_bytes());
    e[8..12].copy_from_slice(&crc.to_le_bytes());
}

/// Index entry `i`: offset and CRC-32 (the index holds it).
pub(super) fn entry(index: &[u8], i: usize) -> (u64, u32) {
    let e = &index[i * INDEX_ENTRY..(i + 1) * INDEX_ENTRY];
    let mut o = [0u8; 8];
    o.copy_from_slice(&e[0..8]);
    let mut c = [0u8; 4];
    c.copy_from_slice(&e[8..12]);
    (u64::from_le_bytes(o), u32::from_le_bytes(c))
}

/// Bytes per exception record of the level of a header.
pub(super) fn width(h: &Header) -> usize {
    record_len(h.count)
}
