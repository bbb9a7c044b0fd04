//! Endgame tables: one file per level (seeds on the board), every position
//! of the level stored, values exactly as the README's rules §4 defines them.
//!
//! - [`TableError`]: everything that can go wrong with tables;
//! - [`format`]: the file format and atomic writes;
//! - [`lock`]: the build locks of a directory and its stale temporary files;
//! - [`retrograde`]: the parallel retrograde builder (named for its algorithm, not build output);
//! - [`verify`]: header, checksum and successor checks;
//! - [`stats`]: per-level statistics;
//! - [`bench`]: probe speed.
//!
//! Boards are indexed relative to the mover with one colex rank per level
//! ([`crate::index`]); Adji-Boto tables cover main-phase positions only.

pub mod bench;
mod error;
pub mod format;
pub mod lock;
pub mod retrograde;
pub mod stats;
pub mod verify;

use std::path::Path;

use memmap2::Mmap;
use rayon::prelude::*;

use crate::fsutil::open_regular;
use crate::game::{Game, GameId, Position};
use crate::index::rank;
use crate::rules::RuleSet;
use crate::value::{
    capture_value, decode_bound, possible_hi, possible_lo, possible_value, quiet_value, Bounds,
    LoopRule,
};

pub use format::{level_path, Header};

pub use error::TableError;

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

/// One level's table, memory-mapped and checked.
pub struct Table {
    map: Data,
    count: usize,
    /// The header.
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
            .field("mapped_bytes", &self.map.len())
            .finish()
    }
}

impl Table {
    /// Opens and checks a level file: header, game, rule, level, size and
    /// payload checksum ([`OpenCheck::Full`]).
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
        let p = || path.to_path_buf();
        let (rules, game) = (rules.tables(), rules.game());
        format::check_level(path, game, level)?;
        let file = open_regular(path).map_err(|e| TableError::from_open(path, level, e))?;
        // SAFETY: table files are written once by rename and never modified
        // in place; a concurrent truncation by another program could still
        // fault, as with any mapped file.
        let map = unsafe { Mmap::map(&file) }.map_err(|e| TableError::Io {
            path: p(),
            source: e,
        })?;
        let header = Header::decode(path, &map)?;
        header.expect(path, rules, rule, level)?;
        debug_assert_eq!(pits, format::pits_of(game));
        let need = header.file_len();
        if (map.len() as u64) < need {
            return Err(TableError::Truncated {
                path: p(),
                expected: need,
                found: map.len() as u64,
            });
        }
        if (map.len() as u64) > need {
            return Err(TableError::Corrupted {
                path: p(),
                what: format!("{} trailing bytes", map.len() as u64 - need),
            });
        }
        let t = Table {
            map: Data::Mapped(map),
            count: header.count as usize,
            header,
        };
        if check == OpenCheck::Full {
            t.check_payload(path)?;
        }
        t.check_exceptions(path)?;
        Ok(t)
    }

    /// One parallel pass over the payload: its checksum, one exception
    /// record per value byte marked loop-sensitive, and no value byte
    /// outside ±(seeds on the board).
    fn check_payload(&self, path: &Path) -> Result<(), TableError> {
        let n = self.header.level as u8;
        let scan = scan_payload(&self.map[format::HEADER_LEN..], self.count, n, 1 << 24);
        let corrupted = |what: String| TableError::Corrupted {
            path: path.to_path_buf(),
            what,
        };
        if scan.crc != self.header.payload_crc {
            return Err(corrupted("payload checksum mismatch".into()));
        }
        if scan.outside > scan.marked {
            return Err(self.first_impossible(path));
        }
        if scan.marked != self.header.exceptions {
            return Err(corrupted(format!(
                "{} entries marked loop-sensitive but {} exception records",
                scan.marked, self.header.exceptions
            )));
        }
        Ok(())
    }

    /// The error for the first value byte outside ±(seeds on the board)
    /// (one is known to exist).
    fn first_impossible(&self, path: &Path) -> TableError {
        let n = self.header.level as i32;
        let bad = |&(_, &b): &(usize, &u8)| {
            let v = b as i8;
            v != format::EXCEPTION && !possible_value(n, v as i32)
        };
        let (rank, v) = self
            .values()
            .iter()
            .enumerate()
            .find(bad)
            .map_or((0, 0), |(i, &b)| (i as u64, b as i8));
        TableError::ImpossibleValue {
            path: path.to_path_buf(),
            rank,
            what: format!("value byte {v}, outside ±{n} (the seeds on the board)"),
        }
    }

    /// The bounds of exception record `r` must be possible values of the
    /// level (or −∞ for `lo`, +∞ for `hi`, which the builder gives
    /// positions that never leave a quiet cycle) with `lo ≤ hi`.
    fn check_record_bounds(&self, path: &Path, r: &[u8]) -> Result<(), TableError> {
        let n = self.header.level as i32;
        let rank = u32::from_le_bytes([r[0], r[1], r[2], r[3]]) as u64;
        let (lo, hi) = (r[4] as i8, r[5] as i8);
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

    /// The exception list must be strictly ascending, in range, with
    /// possible bounds ([`Table::check_record_bounds`]) and `lo < hi` (or
    /// an infinite bound), each record on a marked value byte,
    /// so that a probe never misreads it ([`Table::check_payload`] checks
    /// that no marked byte lacks its record).
    fn check_exceptions(&self, path: &Path) -> Result<(), TableError> {
        let mut prev: Option<u32> = None;
        for r in self.exception_records().chunks_exact(format::EXCEPTION_LEN) {
            self.check_record_bounds(path, r)?;
            let rank = u32::from_le_bytes([r[0], r[1], r[2], r[3]]);
            let ok = prev.is_none_or(|p| rank > p)
                && (rank as usize) < self.count
                && format::is_exception(r[4], r[5])
                && (r[4] as i8) <= (r[5] as i8)
                && r[6..8] == [0, 0]
                && self.values()[rank as usize] as i8 == format::EXCEPTION;
            if !ok {
                return Err(TableError::Corrupted {
                    path: path.to_path_buf(),
                    what: format!("bad exception record for rank {rank}"),
                });
            }
            prev = Some(rank);
        }
        Ok(())
    }

    /// The value bytes.
    fn values(&self) -> &[u8] {
        &self.map[format::HEADER_LEN..format::HEADER_LEN + self.count]
    }

    /// The exception records.
    fn exception_records(&self) -> &[u8] {
        &self.map[format::HEADER_LEN + self.count..]
    }

    /// The exact bounds of an exception entry (binary search).
    fn exception(&self, idx: usize) -> Option<Bounds> {
        let recs = self.exception_records();
        let n = recs.len() / format::EXCEPTION_LEN;
        let rank_at = |i: usize| {
            let o = i * format::EXCEPTION_LEN;
            u32::from_le_bytes([recs[o], recs[o + 1], recs[o + 2], recs[o + 3]]) as usize
        };
        let (mut a, mut b) = (0, n);
        while a < b {
            let m = (a + b) / 2;
            match rank_at(m).cmp(&idx) {
                std::cmp::Ordering::Less => a = m + 1,
                std::cmp::Ordering::Greater => b = m,
                std::cmp::Ordering::Equal => {
                    let o = m * format::EXCEPTION_LEN;
                    return Some(Bounds {
                        lo: decode_bound(recs[o + 4] as i8),
                        hi: decode_bound(recs[o + 5] as i8),
                    });
                }
            }
        }
        None
    }

    /// The same table copied into anonymous memory, asked for on
    /// transparent huge pages: the builder's random lookups into lower
    /// levels then miss the TLB far less than through the file's 4 KiB
    /// pages. Costs the table's size in memory (the page cache of the file
    /// can be reclaimed).
    ///
    /// # Errors
    /// When the memory cannot be had.
    pub fn into_memory(self) -> std::io::Result<Table> {
        if let Data::Loaded(_) = self.map {
            return Ok(self);
        }
        let mut m = memmap2::MmapMut::map_anon(self.map.len().max(1))?;
        #[cfg(target_os = "linux")]
        let _ = m.advise(memmap2::Advice::HugePage);
        m[..self.map.len()].copy_from_slice(&self.map);
        Ok(Table {
            map: Data::Loaded(m),
            count: self.count,
            header: self.header,
        })
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
        let mut l = self.values().to_vec();
        let mut h = l.clone();
        for r in self.exception_records().chunks_exact(format::EXCEPTION_LEN) {
            let i = u32::from_le_bytes([r[0], r[1], r[2], r[3]]) as usize;
            (l[i], h[i]) = (r[4], r[5]);
        }
        (l, h)
    }

    /// Hints the processor to fetch entry `idx` (no effect on results).
    #[inline(always)]
    pub fn prefetch(&self, idx: usize) {
        if let Some(b) = self.map.get(format::HEADER_LEN + idx) {
            prefetch(b);
        }
    }

    /// Bounds of entry `idx` (`idx < len()`).
    #[inline]
    pub fn bounds(&self, idx: usize) -> Bounds {
        let v = self.values()[idx] as i8;
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
        let v = self.values()[idx] as i8;
        if v != format::EXCEPTION {
            return v as i32;
        }
        self.bounds(idx).value(w())
    }
}

/// What [`scan_payload`] finds.
#[derive(Debug, PartialEq, Eq)]
struct PayloadScan {
    /// CRC-32 of the payload.
    crc: u32,
    /// Value bytes marking a loop-sensitive entry.
    marked: u64,
    /// Value bytes outside `−n ..= n`, the marks included (−128 is never
    /// a value: `n ≤ 100`).
    outside: u64,
}

/// The CRC-32 of `payload`, and among its first `values` bytes those that
/// mark a loop-sensitive entry and those outside ±`n`, in parallel over
/// pieces of `piece` bytes (checksums joined with `crc32fast`'s combine).
fn scan_payload(payload: &[u8], values: usize, n: u8, piece: usize) -> PayloadScan {
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
fn count_values(vals: &[u8], n: u8) -> (u64, u64) {
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

    /// Which loop rules have at least level 0 in `dir` for `rules`.
    pub fn rules_present(dir: &Path, rules: RuleSet) -> Vec<LoopRule> {
        [LoopRule::Start, LoopRule::Even]
            .into_iter()
            .filter(|&r| level_path(dir, rules.tables(), r, 0).exists())
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
        self.levels.iter().map(|t| t.map.len() as u64).sum()
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

/// The value of one legal move from a probe of the tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveValue {
    /// The move.
    pub mv: crate::game::Move,
    /// Its value for the mover, under the stretch that starts at the probed position.
    pub value: i32,
}

/// Values of every legal move of `pos`, from the tables: a capture is worth
/// `captured − value(child)`; a quiet move `clamp(w(pos), −hi(child), −lo(child))`.
/// Returns `None` when a needed level is not covered.
pub fn move_values<G: Game>(set: &TableSet, pos: &Position) -> Option<Vec<MoveValue>> {
    let w = set.rule.w::<G>(pos);
    let mut out = Vec::new();
    for mv in G::legal_moves(pos).iter() {
        let p = G::play_unchecked(pos, mv);
        let value = if p.captured > 0 {
            capture_value(p.captured, set.value::<G>(&p.pos)?)
        } else {
            quiet_value(w, set.bounds::<G>(&p.pos)?)
        };
        out.push(MoveValue { mv, value });
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pieced, parallel scan equals one sequential CRC and count, for
    /// pieces that split the values, the exception list, or neither.
    #[test]
    fn pieced_payload_scan_equals_the_sequential_one() {
        let mut payload: Vec<u8> = (0..10_007u32).map(|i| (i * 7919 % 251) as u8).collect();
        for i in (0..payload.len()).step_by(97) {
            payload[i] = format::EXCEPTION as u8;
        }
        for values in [0, 1, 5_000, 9_999, 10_007] {
            for n in [0u8, 3, 48, 100] {
                let vals = &payload[..values];
                let count = |f: &dyn Fn(i8) -> bool| vals.iter().filter(|&&b| f(b as i8)).count();
                let want = PayloadScan {
                    crc: crc32fast::hash(&payload),
                    marked: count(&|v| v == format::EXCEPTION) as u64,
                    outside: count(&|v| (v as i32).abs() > n as i32) as u64,
                };
                for piece in [1, 7, 64, 4096, 1 << 20] {
                    assert_eq!(
                        scan_payload(&payload, values, n, piece),
                        want,
                        "values {values} n {n} piece {piece}"
                    );
                }
            }
        }
    }
}
