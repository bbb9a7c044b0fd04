//! Reading a compressed level in place: the file mapped, its header and
//! block index checked at open ([`Compressed::open`]), every block
//! decoded and checked when asked ([`Compressed::check_blocks`]), and
//! probes served from a bounded cache of decoded blocks
//! ([`Compressed::byte`]).
//!
//! The cache takes one of two shapes ([`Compressed::set_whole_cache`]):
//! - **whole**: room for every block, each written once, on the first
//!   probe of its block, and kept. Its bound is the level's value bytes
//!   (and a byte a block), mapped zeroed on transparent huge pages
//!   ([`super::atomic_bytes`]) so that the kernel gives only the pages
//!   of the blocks decoded;
//!   once warm a probe costs what a raw level's does (an atomic load and
//!   an index), which is what a search's probes, with almost no
//!   locality, need. [`crate::tables::TableSet::fit_caches`] gives this
//!   shape to the smallest levels that fit a byte budget.
//! - **direct-mapped**: [`CACHE_SLOTS`] slots, block `i` in slot
//!   `i mod S`, for the levels past the budget.
//!
//! Race policy (probes come from many rayon threads at once). Whole:
//! the level's bytes are one array of atomic bytes, and each block has a
//! state byte (empty, being written, ready). A probe reads a byte only
//! from a block it sees ready (acquire, paired with the writer's
//! release). A probe that finds its block empty decodes it into a buffer
//! of its own, and claims the block (empty to being written, one
//! compare-and-swap): the winner copies its buffer in and marks the
//! block ready; every other probe answers from its own buffer. So a
//! block is written once, by one thread, and never read half-written.
//! Direct-mapped: each slot is its own mutex; a probe locks its slot,
//! compares the slot's tag with its block and on a miss decodes the
//! block into the slot before reading its byte, all under the lock, so two probes of blocks that share a slot take turns and
//! evict each other, which costs time, never a wrong value. (Stockfish's
//! transposition table, tt.h, lets entries tear and checks a key
//! instead; a torn block here would be a wrong value with no key to
//! catch it.) A poisoned slot (a panic elsewhere while it was held) is
//! emptied and reused.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Mutex;

use memmap2::Mmap;
use rayon::prelude::*;

use super::atomic_bytes::AtomicBytes;
use super::codec::{decode_block, stored_bound, BlockPlace, Transform};
use super::format::{
    entry, width, Codec, CODEC_ZSTD, INDEX_AT, INDEX_ENTRY, MAGIC, MAX_BLOCK, ROUND_BYTES,
    TRAILER_LEN, VERSION, ZHEADER_LEN,
};
use crate::rules::RuleSet;
use crate::tables::dontcare::{classify, kept_code, DcByte, KEEP_VALUES_TO};
use crate::tables::error::TableError;
use crate::tables::form::Form;
use crate::tables::format::{check_level, pits_of, Header, EXCEPTION, HEADER_LEN};
use crate::tables::payload::{
    check_record_bounds, combine_crc, corrupted, count_values, OpenCheck,
};
use crate::value::{possible_value, LoopRule};

/// Slots of a direct-mapped cache (at most one per block): 256 blocks
/// of 4 KiB are 1 MiB a level.
pub const CACHE_SLOTS: usize = 256;

/// A level whose value bytes are at most this many gets the whole cache
/// when opened, so that once read it is probed as fast as a raw level:
/// the small levels, which a search probes most, cost at most this much
/// memory each (all of them together less than twice the largest).
/// [`crate::tables::TableSet::fit_caches`] sets the shape anew for a
/// budget.
pub const WHOLE_LEVEL_CACHE: u64 = 16 << 20;

/// A level's cache of decoded blocks.
enum Cache {
    /// The level's value bytes, a block's written once when it is first
    /// probed, and each block's state ([`EMPTY_BLOCK`], [`FILLING`],
    /// [`READY`]).
    Whole {
        bytes: AtomicBytes,
        state: AtomicBytes,
    },
    /// [`CACHE_SLOTS`] slots (fewer for a level of fewer blocks).
    Direct(Box<[Mutex<Slot>]>),
}

/// A block of the whole cache not decoded yet.
const EMPTY_BLOCK: u8 = 0;
/// A block of the whole cache being written by the probe that claimed it.
const FILLING: u8 = 1;
/// A block of the whole cache written: its bytes may be read.
const READY: u8 = 2;

impl Cache {
    /// The whole cache of a level of `count` entries in `blocks` blocks.
    fn whole(count: u64, blocks: u64) -> Cache {
        Cache::Whole {
            bytes: AtomicBytes::zeroed(count as usize),
            state: AtomicBytes::zeroed(blocks as usize),
        }
    }

    /// A direct-mapped cache of `slots` slots (at least one).
    fn direct(slots: usize) -> Cache {
        Cache::Direct(
            (0..slots.max(1))
                .map(|_| {
                    Mutex::new(Slot {
                        block: EMPTY,
                        bytes: Vec::new(),
                    })
                })
                .collect(),
        )
    }

    /// The cache of a level of `count` entries in `blocks` blocks: whole
    /// when `whole`, else direct-mapped.
    fn of(whole: bool, count: u64, blocks: u64) -> Cache {
        if whole {
            Cache::whole(count, blocks)
        } else {
            Cache::direct(CACHE_SLOTS.min(blocks as usize))
        }
    }
}

/// The tag of an empty slot.
const EMPTY: u64 = u64::MAX;

/// One slot of the cache: which block it holds, and its bytes.
struct Slot {
    block: u64,
    bytes: Vec<u8>,
}

/// A compressed level, mapped and checked.
pub struct Compressed {
    map: Mmap,
    path: PathBuf,
    /// The raw header it stands for.
    pub(in crate::tables) header: Header,
    codec: Codec,
    blocks: u64,
    raw_crc: u32,
    /// The CRC-32 of the stored value bytes of a don't-care level
    /// ([`super::format`], bytes 80..84).
    stored_crc: u32,
    /// log2 of the block size when it is a power of two.
    shift: Option<u32>,
    cache: Cache,
}

/// The little-endian u32 at `o` of `b` (in bounds: checked by callers).
fn u32_at(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]])
}

/// The little-endian u64 at `o` of `b`.
fn u64_at(b: &[u8], o: usize) -> u64 {
    u32_at(b, o) as u64 | (u32_at(b, o + 4) as u64) << 32
}

impl Compressed {
    /// Opens `path`: maps it and checks the header (magic, version,
    /// checksum, game, rule set, loop rule, level, counts, codec), the
    /// raw header it carries, the block index (its checksum, offsets
    /// ascending within the file, each block no longer than zstd may
    /// make it) and the exception records (checksum, whole records,
    /// ascending, possible bounds). With [`OpenCheck::Full`], also the
    /// whole file's checksum and every block ([`Compressed::check_blocks`]).
    ///
    /// # Errors
    /// One [`TableError`] naming the file (and the block, where one is
    /// at fault); never panics on any input.
    pub fn open(
        path: &Path,
        rules: RuleSet,
        rule: LoopRule,
        level: u32,
        check: OpenCheck,
    ) -> Result<Compressed, TableError> {
        let file =
            crate::fsutil::open_regular(path).map_err(|e| TableError::from_open(path, level, e))?;
        let map = crate::tables::payload::map_file(path, &file)?;
        let c = Compressed::from_map(map, path)?;
        c.header.expect(path, rules.tables(), rule, level)?;
        c.check_records()?;
        if check == OpenCheck::Full {
            // The blocks first, so that damage in one is named by its block.
            c.check_blocks()?;
            let b = &c.map[..];
            let end = b.len() - TRAILER_LEN;
            if crc32fast::hash(&b[..end]) != u32_at(b, end) {
                return Err(corrupted(path, "whole-file checksum mismatch".into()));
            }
            c.release_pages();
        }
        Ok(c)
    }

    /// Decodes and checks the header and block index of a mapped file.
    fn from_map(map: Mmap, path: &Path) -> Result<Compressed, TableError> {
        let b = &map[..];
        let bad = |what: String| corrupted(path, what);
        if b.len() >= 8 && &b[0..8] != MAGIC {
            return Err(TableError::NotATable {
                path: path.to_path_buf(),
            });
        }
        let short = |need: u64| TableError::Truncated {
            path: path.to_path_buf(),
            expected: need,
            found: b.len() as u64,
        };
        if b.len() < 12 {
            return Err(short(INDEX_AT as u64));
        }
        if u32_at(b, 8) != VERSION {
            return Err(bad(format!(
                "compressed format version {}, this tool reads {VERSION}",
                u32_at(b, 8)
            )));
        }
        if b.len() < INDEX_AT {
            return Err(short(INDEX_AT as u64));
        }
        if crc32fast::hash(&b[0..124]) != u32_at(b, 124) {
            return Err(bad("compressed header checksum mismatch".into()));
        }
        let header = Header::decode(path, &b[ZHEADER_LEN..INDEX_AT])?;
        let same = b[12] == header.game.code()
            && b[13] == header.rule.code()
            && b[14..16] == header.level.to_le_bytes()
            && u64_at(b, 16) == header.count
            && u64_at(b, 24) == header.exceptions
            && b[48] == header.rules.code();
        if !same {
            return Err(bad(
                "compressed header disagrees with the raw header it carries".into(),
            ));
        }
        check_level(path, header.game, header.level as u32)?;
        let transform = Transform::from_code(b[50])
            .ok_or_else(|| bad(format!("unknown transform code {}", b[50])))?;
        if b[49] != CODEC_ZSTD {
            return Err(bad(format!("unknown codec code {}", b[49])));
        }
        let block = u32_at(b, 52);
        if block == 0 || block > MAX_BLOCK {
            return Err(bad(format!(
                "block size {block} entries, not within 1..={MAX_BLOCK} (what this format uses)"
            )));
        }
        let blocks = u64_at(b, 56);
        if blocks != header.count.div_ceil(block as u64) {
            return Err(bad(format!(
                "{blocks} blocks of {block} for {} entries",
                header.count
            )));
        }
        let file_len = u64_at(b, 72);
        let index_end = (blocks + 1)
            .checked_mul(INDEX_ENTRY as u64)
            .and_then(|x| x.checked_add(INDEX_AT as u64 + TRAILER_LEN as u64));
        if index_end.is_none_or(|e| e > file_len) {
            return Err(bad(format!(
                "block index of {blocks} blocks beyond the file"
            )));
        }
        if (b.len() as u64) < file_len {
            return Err(short(file_len));
        }
        if b.len() as u64 > file_len {
            return Err(bad(format!("{} trailing bytes", b.len() as u64 - file_len)));
        }
        let index_len = INDEX_ENTRY * (blocks as usize + 1);
        let index = &b[INDEX_AT..INDEX_AT + index_len];
        if crc32fast::hash(index) != u32_at(b, 68) {
            return Err(bad("block index checksum mismatch".into()));
        }
        let codec = Codec {
            block,
            level: b[51] as i32,
            transform,
        };
        let count = header.count;
        let c = Compressed {
            path: path.to_path_buf(),
            header,
            codec,
            blocks,
            raw_crc: u32_at(b, 64),
            stored_crc: u32_at(b, 80),
            shift: block.is_power_of_two().then(|| block.trailing_zeros()),
            cache: Cache::of(count <= WHOLE_LEVEL_CACHE, count, blocks),
            map,
        };
        c.check_index(index_len)?;
        Ok(c)
    }

    /// Offsets ascend from the end of the index, no block is longer than
    /// zstd can make it, and the records end where the trailer begins.
    fn check_index(&self, index_len: usize) -> Result<(), TableError> {
        let end = self.map.len() as u64 - TRAILER_LEN as u64;
        let mut prev = (INDEX_AT + index_len) as u64;
        for i in 0..=self.blocks {
            let (at, _) = self.entry(i);
            let ok = at >= prev
                && at <= end
                && (i == 0 || at - prev <= stored_bound(self.block_len(i - 1)) as u64)
                && (i > 0 || at == prev);
            if !ok {
                return Err(self.block_error(
                    i.min(self.blocks.saturating_sub(1)),
                    format!("index entry {i} points to offset {at}, outside {prev}..={end}"),
                ));
            }
            prev = at;
        }
        let recs = end - prev;
        let want = self.header.exceptions * width(&self.header) as u64;
        if recs != want {
            return Err(corrupted(
                &self.path,
                format!("{recs} bytes of exception records, {want} expected"),
            ));
        }
        Ok(())
    }

    /// Index entry `i` (`i ≤ blocks`).
    fn entry(&self, i: u64) -> (u64, u32) {
        entry(&self.map[INDEX_AT..], i as usize)
    }

    /// Entries of block `i`.
    fn block_len(&self, i: u64) -> usize {
        let b = self.codec.block as u64;
        b.min(self.header.count - i * b) as usize
    }

    /// The error of block `i` of this file.
    fn block_error(&self, i: u64, what: String) -> TableError {
        corrupted(&self.path, format!("block {i}: {what}"))
    }

    /// The exception records (mapped).
    pub(in crate::tables) fn records(&self) -> &[u8] {
        let start = self.entry(self.blocks).0 as usize;
        &self.map[start..self.map.len() - TRAILER_LEN]
    }

    /// The records: their checksum, whole, ascending, within the level,
    /// possible bounds with `lo < hi` or an infinite bound (whether each
    /// is on a marked byte is [`Compressed::check_blocks`]'s).
    fn check_records(&self) -> Result<(), TableError> {
        let recs = self.records();
        if crc32fast::hash(recs) != self.entry(self.blocks).1 {
            return Err(corrupted(
                &self.path,
                "exception records checksum mismatch".into(),
            ));
        }
        let (w, n) = (width(&self.header), self.header.level as i32);
        let mut prev: Option<u64> = None;
        for r in recs.chunks_exact(w) {
            check_record_bounds(&self.path, r, n)?;
            let rank = crate::tables::format::record_rank(r);
            let (lo, hi) = crate::tables::format::record_bounds(r);
            let ok = prev.is_none_or(|p| rank > p)
                && rank < self.header.count
                && crate::tables::format::is_exception(lo, hi)
                && (lo as i8) <= (hi as i8)
                && crate::tables::format::record_padding_zero(r);
            if !ok {
                return Err(corrupted(
                    &self.path,
                    format!("bad exception record for rank {rank}"),
                ));
            }
            prev = Some(rank);
        }
        Ok(())
    }

    /// Decodes block `i` into `out` (its entries' bytes), its checksum
    /// checked first.
    ///
    /// # Errors
    /// [`TableError::Corrupted`] naming the file and the block.
    pub fn decode(&self, i: u64, out: &mut Vec<u8>) -> Result<(), TableError> {
        if i >= self.blocks {
            return Err(self.block_error(i, format!("past the last block {}", self.blocks)));
        }
        let ((a, crc), (z, _)) = (self.entry(i), self.entry(i + 1));
        let stored = &self.map[a as usize..z as usize];
        if crc32fast::hash(stored) != crc {
            return Err(self.block_error(i, "checksum mismatch".into()));
        }
        out.resize(self.block_len(i), 0);
        let place = BlockPlace {
            first: i * self.codec.block as u64,
            level: self.header.level as u32,
            pits: pits_of(self.header.game),
        };
        decode_block(stored, self.codec.transform, place, out)
            .map_err(|what| self.block_error(i, what))
    }

    /// Decodes every block (in parallel) and checks each: its checksum,
    /// its length, its value bytes within the level's range, every
    /// exception record on a marked byte and every marked byte with one,
    /// and the raw file's checksum of the whole.
    ///
    /// # Errors
    /// The first problem, naming the file and block.
    pub fn check_blocks(&self) -> Result<(), TableError> {
        let n = self.header.level as u8;
        let recs = self.records();
        let w = width(&self.header);
        let ranks: Vec<u64> = recs
            .chunks_exact(w)
            .map(crate::tables::format::record_rank)
            .collect();
        let per: Vec<(crc32fast::Hasher, u64)> = (0..self.blocks)
            .into_par_iter()
            .map_init(Vec::new, |buf, i| {
                self.decode(i, buf)?;
                let mut h = crc32fast::Hasher::new();
                h.update(buf);
                let (marked, outside) = count_values(buf, n);
                if outside > marked {
                    let (j, &v) = buf
                        .iter()
                        .enumerate()
                        .find(|&(_, &v)| {
                            v as i8 != EXCEPTION && !possible_value(n as i32, v as i8 as i32)
                        })
                        .unwrap_or((0, &0));
                    return Err(TableError::ImpossibleValue {
                        path: self.path.clone(),
                        rank: i * self.codec.block as u64 + j as u64,
                        what: format!("block {i}: value byte {}, outside ±{n}", v as i8),
                    });
                }
                let first = i * self.codec.block as u64;
                let lo = ranks.partition_point(|&r| r < first);
                let hi = ranks.partition_point(|&r| r < first + buf.len() as u64);
                if (hi - lo) as u64 != marked
                    || ranks[lo..hi]
                        .iter()
                        .any(|&r| buf[(r - first) as usize] as i8 != EXCEPTION)
                {
                    return Err(self.block_error(
                        i,
                        format!(
                            "{marked} entries marked loop-sensitive but {} exception records",
                            hi - lo
                        ),
                    ));
                }
                Ok((h, marked))
            })
            .collect::<Result<_, TableError>>()?;
        let mut values = crc32fast::Hasher::new();
        for (h, _) in &per {
            values.combine(h);
        }
        if self.dont_care() {
            // The raw CRC is met only through the levels below.
            if values.finalize() != self.stored_crc {
                return Err(corrupted(
                    &self.path,
                    "stored value bytes differ from those written (checksum mismatch)".into(),
                ));
            }
            return Ok(());
        }
        let payload = combine_crc(values.finalize(), self.header.count, recs);
        let raw = super::format::raw_file_crc(
            &self.raw_header(),
            payload,
            self.header.count + recs.len() as u64,
        );
        if payload != self.header.payload_crc || raw != self.raw_crc {
            return Err(corrupted(
                &self.path,
                "decoded level differs from the raw file it stands for (checksum mismatch)".into(),
            ));
        }
        Ok(())
    }

    /// The same level with a cache of `slots` slots (tests of the
    /// cache's races, which need more blocks than slots).
    #[cfg(test)]
    pub(super) fn with_cache(mut self, slots: usize) -> Compressed {
        self.cache = Cache::direct(slots);
        self
    }

    /// Gives the level the whole cache (room for every block, each
    /// filled on its first probe and kept) or, with `false`, the
    /// direct-mapped cache of [`CACHE_SLOTS`] slots; the blocks decoded
    /// so far are dropped.
    pub fn set_whole_cache(&mut self, whole: bool) {
        self.cache = Cache::of(whole, self.header.count, self.blocks);
    }

    /// Whether the level has the whole cache.
    pub fn has_whole_cache(&self) -> bool {
        matches!(self.cache, Cache::Whole { .. })
    }

    /// Bytes the cache of decoded blocks may hold, at most: the level's
    /// value bytes for the whole cache, its slots' blocks otherwise.
    pub fn cache_bytes(&self) -> u64 {
        match &self.cache {
            Cache::Whole { .. } => self.whole_cache_bytes(),
            Cache::Direct(s) => (s.len() as u64 * self.codec.block as u64).min(self.header.count),
        }
    }

    /// [`Compressed::cache_bytes`] of the whole cache: a byte an entry
    /// and one a block.
    pub fn whole_cache_bytes(&self) -> u64 {
        self.header.count + self.blocks
    }

    /// Entry `idx` of a don't-care level, read once from the cache: its
    /// value when a probe has kept it ([`Compressed::remember`]), else
    /// its stored byte.
    ///
    /// Race policy: a value is kept only in a block of the whole cache
    /// that is ready (written once by the probe that claimed it, never
    /// again), as one relaxed store over the stored byte; a probe reads
    /// the byte once and sees either, and the stored byte reads through
    /// the levels below as the same value, so no interleaving gives
    /// another answer.
    ///
    /// # Errors
    /// As [`Compressed::byte`].
    #[inline]
    pub fn dc_byte(&self, idx: usize) -> Result<DcByte, TableError> {
        let c = self.byte(idx)?;
        Ok(match self.header.level <= KEEP_VALUES_TO {
            true => classify(c),
            false => DcByte::Stored(c),
        })
    }

    /// Keeps `v`, the value of entry `idx` of a don't-care level read
    /// through the levels below, for [`Compressed::dc_byte`]: only in a
    /// whole cache whose block is ready, of a level to
    /// [`KEEP_VALUES_TO`] (else nothing is kept).
    pub fn remember(&self, idx: usize, v: i32) {
        let Cache::Whole { bytes, state } = &self.cache else {
            return;
        };
        let b = idx / self.codec.block as usize;
        let keep = self.header.level <= KEEP_VALUES_TO && v.unsigned_abs() <= 63;
        if keep && state[b].load(Ordering::Acquire) == READY {
            bytes[idx].store(kept_code(v), Ordering::Relaxed);
        }
    }

    /// [`Compressed::cache_bytes`] of the direct-mapped cache, the least
    /// a compressed level holds: [`CACHE_SLOTS`] blocks, or the level's
    /// value bytes when fewer.
    pub fn direct_cache_bytes(&self) -> u64 {
        (CACHE_SLOTS.min(self.blocks as usize) as u64 * self.codec.block as u64)
            .min(self.header.count)
    }

    /// The raw level file's header, verbatim.
    pub fn raw_header(&self) -> [u8; HEADER_LEN] {
        let mut h = [0u8; HEADER_LEN];
        h.copy_from_slice(&self.map[ZHEADER_LEN..INDEX_AT]);
        h
    }

    /// Whether its blocks hold don't-care entries, read through the
    /// levels below ([`crate::tables::dontcare`]).
    pub fn dont_care(&self) -> bool {
        crate::tables::dontcare::needs_lower(self.codec.transform)
    }

    /// The CRC-32 of the raw level file it stands for.
    pub fn raw_crc(&self) -> u32 {
        self.raw_crc
    }

    /// The codec it was written with.
    pub fn codec(&self) -> Codec {
        self.codec
    }

    /// Number of blocks.
    pub fn blocks(&self) -> u64 {
        self.blocks
    }

    /// Bytes of the file.
    pub fn file_len(&self) -> u64 {
        self.map.len() as u64
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The value byte of entry `idx` (`idx < count`), through the cache.
    ///
    /// # Errors
    /// A block that no longer decodes (only possible for a file opened
    /// with [`OpenCheck::Header`] and damaged), naming the file and
    /// block: never a value ([`crate::tables::Table::bounds`] answers
    /// "no entry" and records the damage).
    #[inline]
    pub fn byte(&self, idx: usize) -> Result<u8, TableError> {
        // Blocks of a power of two entries (every writer's default) are
        // found by a shift, not a division: this is the probe's hot path.
        let (b, off) = match self.shift {
            Some(s) => ((idx >> s) as u64, idx & ((1 << s) - 1)),
            None => (
                idx as u64 / self.codec.block as u64,
                idx % self.codec.block as usize,
            ),
        };
        match &self.cache {
            Cache::Whole { bytes, state, .. } => {
                if state[b as usize].load(Ordering::Acquire) == READY {
                    return Ok(bytes[idx].load(Ordering::Relaxed));
                }
                self.fill(bytes, &state[b as usize], b, off)
            }
            Cache::Direct(slots) => self.byte_direct(slots, b, off),
        }
    }

    /// A whole cache's miss: decodes block `b`; the first probe to claim
    /// it writes it into the cache and marks it ready, a probe that finds
    /// it being written answers from its own decoded copy.
    #[cold]
    fn fill(
        &self,
        bytes: &[AtomicU8],
        state: &AtomicU8,
        b: u64,
        off: usize,
    ) -> Result<u8, TableError> {
        let mut buf = Vec::new();
        self.decode(b, &mut buf)?;
        let claim =
            state.compare_exchange(EMPTY_BLOCK, FILLING, Ordering::Acquire, Ordering::Relaxed);
        if claim.is_ok() {
            let first = (b * self.codec.block as u64) as usize;
            for (dst, &v) in bytes[first..first + buf.len()].iter().zip(&buf) {
                dst.store(v, Ordering::Relaxed);
            }
            state.store(READY, Ordering::Release);
        }
        Ok(buf[off])
    }

    /// A probe through the direct-mapped cache.
    fn byte_direct(&self, slots: &[Mutex<Slot>], b: u64, off: usize) -> Result<u8, TableError> {
        let slot = &slots[(b % slots.len() as u64) as usize];
        let mut s = slot.lock().unwrap_or_else(|p| {
            let mut s = p.into_inner();
            s.block = EMPTY;
            s
        });
        if s.block != b {
            s.block = EMPTY;
            self.decode(b, &mut s.bytes)?;
            s.block = b;
        }
        Ok(s.bytes[off])
    }

    /// Drops this process's mapping of the file's pages, which stay in the
    /// page cache: once a full check or a whole decode has read them, they
    /// would otherwise count in the process's memory until the level is
    /// closed (8.9 GiB after checking Adji-Boto's compressed 0–42 kept by
    /// a build). A hint: failures are ignored.
    fn release_pages(&self) {
        #[cfg(unix)]
        // SAFETY: the map is read-only and never written through; dropping
        // its pages only makes a later read fault them in again from the
        // page cache or the file.
        let _ = unsafe {
            self.map
                .unchecked_advise(memmap2::UncheckedAdvice::DontNeed)
        };
    }

    /// Copies the value bytes of entries `first .. first + out.len()`.
    ///
    /// # Errors
    /// The first block that does not decode, naming the file and block.
    pub fn values_into(&self, first: usize, out: &mut [u8]) -> Result<(), TableError> {
        let bs = self.codec.block as usize;
        let mut buf = Vec::new();
        let mut i = 0;
        while i < out.len() {
            let at = first + i;
            let (b, off) = (at / bs, at % bs);
            let take = (bs - off).min(out.len() - i);
            self.decode(b as u64, &mut buf)?;
            out[i..i + take].copy_from_slice(&buf[off..off + take]);
            i += take;
        }
        Ok(())
    }

    /// The whole raw level file it stands for, into `out` (which must be
    /// of the raw file's length), blocks decoded in parallel and checked.
    ///
    /// # Errors
    /// The first block that does not decode, or a checksum mismatch.
    pub fn raw_into(&self, out: &mut [u8]) -> Result<(), TableError> {
        let n = self.header.count as usize;
        out[..HEADER_LEN].copy_from_slice(&self.raw_header());
        let bs = self.codec.block as usize;
        // A round of blocks at a time, the file's pages read released
        // after each: the process holds the decoded level, not also the
        // compressed file (which the builder's plan does not count).
        let round = (ROUND_BYTES as usize / bs).max(1) * bs;
        for (r, part) in out[HEADER_LEN..HEADER_LEN + n]
            .chunks_mut(round)
            .enumerate()
        {
            let first = r * (round / bs);
            part.par_chunks_mut(bs)
                .enumerate()
                .try_for_each_init(Vec::new, |buf, (i, dst)| {
                    self.decode((first + i) as u64, buf)?;
                    dst.copy_from_slice(buf);
                    Ok::<(), TableError>(())
                })?;
            self.release_pages();
        }
        out[HEADER_LEN + n..].copy_from_slice(self.records());
        if crc32fast::hash(out) != self.raw_crc {
            return Err(corrupted(
                &self.path,
                "decoded level differs from the raw file it stands for (checksum mismatch)".into(),
            ));
        }
        Ok(())
    }
}

impl Form for Compressed {
    #[inline(always)]
    fn value_byte(&self, idx: usize) -> Result<u8, TableError> {
        self.byte(idx)
    }

    fn records_near(&self, _idx: usize) -> &[u8] {
        self.records()
    }

    /// The whole cache's byte of entry `idx` (none for the direct-mapped
    /// cache, whose slot is found under its lock).
    #[inline(always)]
    fn prefetch_entry(&self, idx: usize) {
        if let Cache::Whole { bytes, .. } = &self.cache {
            if let Some(b) = bytes.get(idx) {
                crate::tables::walk::prefetch(b);
            }
        }
    }

    fn mapped(&self) -> u64 {
        self.file_len()
    }

    fn allocated(&self) -> u64 {
        self.cache_bytes()
    }

    fn header_bytes(&self, _header: &Header) -> [u8; HEADER_LEN] {
        self.raw_header()
    }

    fn all_records(&self) -> Vec<u8> {
        self.records().to_vec()
    }

    fn copy_values(&self, first: usize, out: &mut [u8]) -> Result<(), TableError> {
        self.values_into(first, out)
    }
}
