//! A level's payload: the bytes of a level file or shard, mapped or in
//! memory ([`Data`]), the stretches of entries they hold ([`Segment`]),
//! and what they must satisfy before they are probed ([`OpenCheck`] says
//! how much is read at open): the file's length against its header, the
//! value bytes within the level's range, well-formed exception records,
//! and the checksum of the whole, scanned in parallel. Each storage form
//! (level file, shards, compressed) calls these as it opens a level.

use std::path::Path;

use memmap2::Mmap;
use rayon::prelude::*;

use super::error::TableError;
use super::format;
use crate::value::{decode_bound, possible_hi, possible_lo, possible_value};

/// How much of a level file [`crate::tables::Table::open_checked`] reads
/// before trusting it.
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

/// Bytes copied at a time by [`Data::into_memory`] (a multiple of every
/// page size).
const COPY_SLAB: usize = 8 << 20;

/// The bytes of a table file: the file mapped, or a copy in anonymous
/// memory on transparent huge pages
/// ([`crate::tables::Table::into_memory`]).
pub(super) enum Data {
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

impl Data {
    /// Bytes mapped from the file (none for a copy in memory).
    pub(super) fn mapped_len(&self) -> u64 {
        match self {
            Data::Mapped(m) => m.len() as u64,
            Data::Loaded(_) => 0,
        }
    }

    /// The bytes copied into anonymous memory on transparent huge pages
    /// (see [`crate::tables::Table::into_memory`]).
    pub(super) fn into_memory(self) -> std::io::Result<Data> {
        if let Data::Loaded(_) = self {
            return Ok(self);
        }
        let mut m = memmap2::MmapMut::map_anon(self.len().max(1))?;
        #[cfg(target_os = "linux")]
        let _ = m.advise(memmap2::Advice::HugePage);
        // Slab by slab, each slab of the file's map released once copied:
        // the process then holds the level once, not its copy and its
        // file's pages (which the plan would not count).
        for at in (0..self.len()).step_by(COPY_SLAB) {
            let end = (at + COPY_SLAB).min(self.len());
            m[at..end].copy_from_slice(&self[at..end]);
            if let Data::Mapped(f) = &self {
                // SAFETY: the map is a read-only map of the file, which this
                // process never writes through; dropping its pages only makes
                // a later read (there is none: the map is dropped below)
                // fetch them from the file again. `at` is a multiple of the
                // page size, and the range within the map.
                #[cfg(unix)]
                let _ = unsafe {
                    f.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, at, end - at)
                };
            }
        }
        Ok(Data::Loaded(m))
    }
}

/// One contiguous stretch of a level's entries: ranks `first ..
/// first + values.len()`, their value bytes and their exception records.
pub(super) struct Segment<'a> {
    pub(super) first: u64,
    pub(super) values: &'a [u8],
    pub(super) records: &'a [u8],
    pub(super) path: &'a Path,
    /// A shard's CRC-32s of its value bytes and of its records; `None`
    /// for a level file (its header has the payload's).
    pub(super) crcs: Option<(u32, u32)>,
}

/// Checks the segments of a level whose header is `header` and whose
/// exception records are `width` bytes each ([`OpenCheck::Full`]:
/// checksums, value bytes and records; [`OpenCheck::Header`]: the records
/// only): for a level file, its payload checksum and exception count
/// against the header; for a shard, its checksums against its own.
pub(super) fn check_segments(
    segs: &[Segment<'_>],
    header: &format::Header,
    width: usize,
    check: OpenCheck,
) -> Result<(), TableError> {
    let n = header.level as u8;
    for seg in segs {
        let path = seg.path;
        if check == OpenCheck::Full {
            let scan = scan_payload(seg.values, seg.values.len(), n, 1 << 24);
            let good = match seg.crcs {
                None => {
                    combine_crc(scan.crc, seg.values.len() as u64, seg.records)
                        == header.payload_crc
                }
                Some(c) => c == (scan.crc, crc32fast::hash(seg.records)),
            };
            if !good {
                return Err(corrupted(path, "payload checksum mismatch".into()));
            }
            // No value byte outside ±(seeds on the board).
            if scan.outside > scan.marked {
                return Err(first_impossible(seg, header.level as i32));
            }
            let marked = scan.marked;
            let records = (seg.records.len() / width) as u64;
            if marked != records {
                return Err(corrupted(
                    path,
                    format!(
                        "{marked} entries marked loop-sensitive but {records} exception records"
                    ),
                ));
            }
        }
        check_records(seg, path, width, n as i32)?;
    }
    Ok(())
}

/// Maps a table file read-only.
pub(super) fn map_file(path: &Path, file: &std::fs::File) -> Result<Mmap, TableError> {
    // SAFETY: table files are written once by rename and never modified
    // in place; a concurrent truncation by another program could still
    // fault, as with any mapped file.
    unsafe { Mmap::map(file) }.map_err(|e| TableError::Io {
        path: path.to_path_buf(),
        source: e,
    })
}

/// Refuses a file of `found` bytes where its header says `need`.
pub(super) fn check_len(path: &Path, found: u64, need: u64) -> Result<(), TableError> {
    if found < need {
        return Err(TableError::Truncated {
            path: path.to_path_buf(),
            expected: need,
            found,
        });
    }
    if found > need {
        return Err(corrupted(path, format!("{} trailing bytes", found - need)));
    }
    Ok(())
}

/// [`TableError::Corrupted`] of `path`.
pub(super) fn corrupted(path: &Path, what: String) -> TableError {
    TableError::Corrupted {
        path: path.to_path_buf(),
        what,
    }
}

/// The CRC-32 of `a ‖ records` from `crc(a)` and `a`'s length.
pub(super) fn combine_crc(a: u32, a_len: u64, records: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new_with_initial_len(a, a_len);
    h.combine(&crc32fast::Hasher::new_with_initial_len(
        crc32fast::hash(records),
        records.len() as u64,
    ));
    h.finalize()
}

/// The error for the first value byte of `seg` outside ±`n` (one is
/// known to exist).
pub(super) fn first_impossible(seg: &Segment<'_>, n: i32) -> TableError {
    let bad = |&(_, &b): &(usize, &u8)| {
        let v = b as i8;
        v != format::EXCEPTION && !possible_value(n, v as i32)
    };
    let (rank, v) = seg
        .values
        .iter()
        .enumerate()
        .find(bad)
        .map_or((0, 0), |(i, &b)| (seg.first + i as u64, b as i8));
    TableError::ImpossibleValue {
        path: seg.path.to_path_buf(),
        rank,
        what: format!("value byte {v}, outside ±{n} (the seeds on the board)"),
    }
}

/// The bounds of an exception record must be possible values of the
/// level (or −∞ for `lo`, +∞ for `hi`, which the builder gives positions
/// that never leave a quiet cycle) with `lo ≤ hi`.
pub(super) fn check_record_bounds(path: &Path, r: &[u8], n: i32) -> Result<(), TableError> {
    let rank = format::record_rank(r);
    let (lo, hi) = format::record_bounds(r);
    let (lo, hi) = (lo as i8, hi as i8);
    let possible = possible_lo(n, decode_bound(lo)) && possible_hi(n, decode_bound(hi));
    let what = if !possible {
        format!("exception bounds lo {lo}, hi {hi}, outside ±{n} (the seeds on the board)")
    } else if lo > hi {
        format!("exception bounds lo {lo} > hi {hi}")
    } else {
        return Ok(());
    };
    Err(TableError::ImpossibleValue {
        path: path.to_path_buf(),
        rank,
        what,
    })
}

/// The exception records of a segment must be whole records, strictly
/// ascending, within the segment's ranks, with possible bounds
/// ([`check_record_bounds`]) and `lo < hi` (or an infinite bound), zero
/// padding, each on a marked value byte, so that a probe never misreads
/// one (the full check counts the marked bytes against the records).
pub(super) fn check_records(
    seg: &Segment<'_>,
    path: &Path,
    width: usize,
    n: i32,
) -> Result<(), TableError> {
    if !seg.records.len().is_multiple_of(width) {
        return Err(corrupted(
            path,
            format!(
                "exception list of {} bytes, not whole {width}-byte records",
                seg.records.len()
            ),
        ));
    }
    let end = seg.first + seg.values.len() as u64;
    let mut prev: Option<u64> = None;
    for r in seg.records.chunks_exact(width) {
        check_record_bounds(path, r, n)?;
        let rank = format::record_rank(r);
        let (lo, hi) = format::record_bounds(r);
        let ok = prev.is_none_or(|p| rank > p)
            && (seg.first..end).contains(&rank)
            && format::is_exception(lo, hi)
            && (lo as i8) <= (hi as i8)
            && format::record_padding_zero(r)
            && seg.values[(rank - seg.first) as usize] as i8 == format::EXCEPTION;
        if !ok {
            return Err(corrupted(
                path,
                format!("bad exception record for rank {rank}"),
            ));
        }
        prev = Some(rank);
    }
    Ok(())
}

/// What [`scan_payload`] finds.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct PayloadScan {
    /// CRC-32 of the payload.
    pub(super) crc: u32,
    /// Value bytes marking a loop-sensitive entry.
    pub(super) marked: u64,
    /// Value bytes outside `−n ..= n`, the marks included (−128 is never
    /// a value: `n ≤ 100`).
    pub(super) outside: u64,
}

/// The CRC-32 of `payload`, and among its first `values` bytes those that
/// mark a loop-sensitive entry and those outside ±`n`, in parallel over
/// pieces of `piece` bytes (checksums joined with `crc32fast`'s combine).
pub(super) fn scan_payload(payload: &[u8], values: usize, n: u8, piece: usize) -> PayloadScan {
    let pieces: Vec<(crc32fast::Hasher, u64, u64)> = payload
        .par_chunks(piece)
        .enumerate()
        .map(|(i, c)| {
            let mut h = crc32fast::Hasher::new();
            let (mut marked, mut outside) = (0, 0);
            let mut left = values.saturating_sub(i * piece);
            // Blocks small enough to stay in cache between the checksum
            // and the counts: one pass over memory.
            for b in c.chunks(1 << 15) {
                h.update(b);
                let vals = &b[..left.min(b.len())];
                left -= vals.len();
                let (m, o) = count_values(vals, n);
                (marked, outside) = (marked + m, outside + o);
            }
            (h, marked, outside)
        })
        .collect();
    let mut crc = crc32fast::Hasher::new();
    let (mut marked, mut outside) = (0, 0);
    for (h, m, o) in &pieces {
        crc.combine(h);
        marked += m;
        outside += o;
    }
    PayloadScan {
        crc: crc.finalize(),
        marked,
        outside,
    }
}

/// The bytes of `vals` that mark a loop-sensitive entry, and those
/// outside `−n ..= n` (`n ≤ 100`, so the marks among them). Counted in
/// byte-wide sums of up to 255 bytes, which vectorize fully.
#[inline]
pub(super) fn count_values(vals: &[u8], n: u8) -> (u64, u64) {
    let count = |c: &[u8], f: &dyn Fn(u8) -> bool| {
        c.iter().fold(0u8, |a, &b| a.wrapping_add(f(b) as u8)) as u64
    };
    let (mut marked, mut outside) = (0, 0);
    for c in vals.chunks(255) {
        marked += count(c, &|b| b == format::EXCEPTION as u8);
        // b + n (mod 256) ≤ 2n exactly for the bytes of −n ..= n.
        outside += count(c, &|b| b.wrapping_add(n) > 2 * n);
    }
    (marked, outside)
}
