//! What a level's payload must satisfy before it is probed: the file's
//! length against its header, the value bytes within the level's range,
//! well-formed exception records, and the checksum of the whole, scanned
//! in parallel. [`super::Table`] calls these when it opens or checks a
//! level file or shard.

use std::path::Path;

use memmap2::Mmap;
use rayon::prelude::*;

use super::{format, Segment, TableError};
use crate::value::{decode_bound, possible_hi, possible_lo, possible_value};

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
