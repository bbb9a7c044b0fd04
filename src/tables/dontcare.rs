//! Don't-care entries of compressed levels (issue 52), after Syzygy's:
//! this module owns the rule `value = max(E, s)` and everything that
//! follows from it.
//!
//! - `E`, the **capture bound** of a position: the best capture's value
//!   (`captured − value(child)`, the child read from the levels below),
//!   or the split when the game is over; no bound when every move is
//!   quiet. A position's value is at least `E`, and equals it wherever a
//!   capture is best (half to two thirds of the positions).
//! - A level compressed with [`Transform::DontCare`] stores for such an
//!   entry any byte `s ≤ E`, chosen by the writer ([`fill`]) so that zstd
//!   codes the block in fewer bytes; every other entry stores its value
//!   (`s = value > E`), and a loop-sensitive entry its mark. Reading
//!   `max(E, s)` gives the value back in every case.
//! - A reader resolves a stored byte ([`resolve`]) with a cut, as
//!   Syzygy's capture search does: it stops as soon as the stored byte or
//!   a capture reaches the bound the caller needs, and a child's own
//!   stored byte, a lower bound of its value, often settles that the
//!   child cannot improve `E` without reading below it. The cascade into
//!   the lower levels ends because every capture removes seeds: it is at
//!   most one level of recursion per capture, and it is counted by the
//!   measurements in `results/compression.md`.
//!
//! [`Lower`] is the same for code that knows the rule set only at run
//! time (`tables compress`, `decompress`, `checksum`): the levels below
//! a level, opened from the directory that holds it.

use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use super::compressed::Transform;
use super::error::TableError;
use super::exits::{child, for_each_batch, quiet_exits, FWD_BATCH};
use super::format::EXCEPTION;
use super::payload::OpenCheck;
use super::set::TableSet;
use super::walk::level_positions;
use crate::game::{for_each_step, Game, Position, Step, MAX_PITS};
use crate::games::packed::{packs, Word};
use crate::index::rank;
use crate::rules::RuleSet;
use crate::value::{capture_value, LoopRule};

/// A value below every value of every level: the stored byte of a
/// position when only its capture bound is asked for.
const NO_BYTE: i32 = -1000;

/// The value of `pos`, whose stored byte `s` (not the loop-sensitive
/// mark) comes from a don't-care level of `set`, with a cut at `below`:
/// returns `r = value` when `value < below`, else some `r` with
/// `below ≤ r ≤ value`. `None` when a level below is damaged or missing.
pub(super) fn resolve<G: Game>(set: &TableSet, pos: &Position, s: i32, below: i32) -> Option<i32> {
    if s >= below {
        return Some(s);
    }
    // The captures first, each child's entry prefetched, then read: the
    // reads' cache misses overlap instead of following each other.
    // Each child is ranked once, for its prefetch and its read.
    let mut caps = [(Position::default(), 0u8, 0usize); MAX_PITS];
    let mut n = 0;
    let any = for_each_step::<G>(pos, |step| {
        if let Step::Capture {
            pos: child,
            captured,
            ..
        } = step
        {
            let idx = rank(&child.pits, G::PITS) as usize;
            if let Some(t) = set.level(child.level()) {
                t.prefetch(idx);
            }
            caps[n] = (child, captured, idx);
            n += 1;
        }
    });
    let mut best = s;
    for &(child, captured, idx) in &caps[..n] {
        if best >= below {
            break;
        }
        if child.in_opening() {
            return None;
        }
        // The child improves `best` only if its value is below `need`.
        let need = capture_value(captured, best);
        match set.value_below_at::<G>(child.level(), idx, || child, need) {
            Some(v) if v < need => best = capture_value(captured, v),
            Some(_) => {}
            None => return None,
        }
    }
    Some(if any { best } else { best.max(G::split(pos)) })
}

/// The capture bound `E` of `pos` (the split when the game is over),
/// read through the levels of `set`: `Some(None)` when every move is
/// quiet, `None` when a level below is damaged or missing.
pub fn capture_bound<G: Game>(set: &TableSet, pos: &Position) -> Option<Option<i32>> {
    resolve::<G>(set, pos, NO_BYTE, i32::MAX).map(|e| (e > NO_BYTE).then_some(e))
}

/// The byte a free entry of `level` may always store: `−level`, the least
/// value of the level (never the loop-sensitive mark).
fn lowest(level: u32) -> i8 {
    -(level.min(127) as i8)
}

/// How a writer fills the free entries of a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fill {
    /// The fewest runs: each run of bytes the highest its entries allow
    /// (best on Adjito, `results/compression.md`).
    Runs,
    /// Every free entry at the level's lowest value, one symbol (best on
    /// Adji-Boto).
    Lowest,
}

impl Fill {
    /// Both, for a writer to try.
    pub const ALL: [Fill; 2] = [Fill::Runs, Fill::Lowest];
}

/// The stored bytes of a block of `level` whose values are `values` and
/// whose free entries are `Some(v)` in `free` (any byte `≤ v` allowed),
/// filled as `how` says.
pub fn fill(values: &[u8], free: &[Option<i8>], level: u32, how: Fill) -> Vec<u8> {
    let low = lowest(level);
    if how == Fill::Lowest {
        return values
            .iter()
            .zip(free)
            .map(|(&v, f)| if f.is_some() { low as u8 } else { v })
            .collect();
    }
    let mut runs = Vec::with_capacity(values.len());
    let mut i = 0;
    while i < values.len() {
        let (mut lo, mut hi) = (i8::MIN, i8::MAX);
        let mut j = i;
        while j < values.len() {
            let (a, b) = match free[j] {
                Some(v) => (low, v),
                None => (values[j] as i8, values[j] as i8),
            };
            if lo.max(a) > hi.min(b) {
                break;
            }
            (lo, hi) = (lo.max(a), hi.min(b));
            j += 1;
        }
        runs.extend(std::iter::repeat_n(hi as u8, j - i));
        i = j;
    }
    runs
}

/// Whether `stored` keeps every value of `values` under `free`: a free
/// entry's byte at most its value (and not the loop-sensitive mark),
/// every other byte its value. The writer's check of each block.
pub fn keeps(values: &[u8], free: &[Option<i8>], stored: &[u8]) -> bool {
    values.len() == stored.len()
        && (0..values.len()).all(|i| match free[i] {
            Some(v) => (stored[i] as i8) <= v && stored[i] as i8 != EXCEPTION,
            None => stored[i] == values[i],
        })
}

/// A byte of a don't-care level's whole cache ([`super::compressed::Compressed::dc_byte`]):
/// the byte stored in the file, or the entry's value once a probe has
/// read it through the levels below ([`super::compressed::Compressed::remember`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DcByte {
    /// The stored byte (a value's lower bound, or the loop-sensitive mark).
    Stored(u8),
    /// The value.
    Value(i32),
}

/// The largest level whose values the whole cache keeps in place
/// ([`super::compressed::Compressed::remember`]): values of −63..=63 have codes no stored
/// byte of such a level uses (stored bytes are −63..=63 and the mark
/// −128; a value `v ≥ 0` is kept as the byte `64 + v`, `v < 0` as
/// `192 + v`, that is 64..=127 and 129..=191).
pub const KEEP_VALUES_TO: u16 = 63;

/// The byte that keeps value `v` ([`KEEP_VALUES_TO`]).
#[inline]
pub(in crate::tables) fn kept_code(v: i32) -> u8 {
    if v >= 0 {
        (64 + v) as u8
    } else {
        (192 + v) as u8
    }
}

/// What byte `c` of a don't-care level's whole cache holds.
#[inline]
pub(in crate::tables) fn classify(c: u8) -> DcByte {
    match c {
        64..=127 => DcByte::Value(c as i32 - 64),
        129..=191 => DcByte::Value(c as i32 - 192),
        _ => DcByte::Stored(c),
    }
}

/// The levels below the levels of a directory, for code that knows the
/// rule set only at run time: what writing, reading whole and checking a
/// don't-care level needs.
pub trait Lower: Sync {
    /// The free entries of the block of `level` at rank `first` whose
    /// values are `values`: `Some(v)` where the value `v` is the capture
    /// bound (any stored byte `≤ v` reads back as `v`).
    ///
    /// # Errors
    /// A level below that is damaged or missing.
    fn free(&self, level: u32, first: u64, values: &[u8]) -> Result<Vec<Option<i8>>, TableError>;

    /// Resolves in place the stored bytes of the block of `level` at rank
    /// `first` into its value bytes.
    ///
    /// # Errors
    /// A level below that is damaged or missing.
    fn resolve(&self, level: u32, first: u64, stored: &mut [u8]) -> Result<(), TableError>;
}

/// [`Lower`] for the game type `G`.
struct Below<G> {
    set: TableSet,
    /// The directory the levels are read from.
    dir: PathBuf,
    game: PhantomData<fn() -> G>,
}

impl<G: Game> Below<G> {
    /// The error of a level below that a probe could not read: its
    /// damage, or the first level missing from the directory.
    fn failed(&self) -> TableError {
        self.set.check_damage().err().unwrap_or_else(|| {
            let n = self.set.covered();
            TableError::Missing {
                level: n,
                path: super::format::level_path(&self.dir, G::RULES.tables(), self.set.rule, n),
            }
        })
    }

    /// [`Lower::free`] a batch of boards at a time, packed into `W`
    /// ([`super::exits`]): each batch's capture children are located and
    /// their entries prefetched, then each is read with a cut at what
    /// would make the entry free (a capture worth its value). `None`
    /// when a level below is damaged or missing.
    fn free_packed<W: Word>(
        &self,
        level: u32,
        first: u64,
        values: &[u8],
        free: &mut [Option<i8>],
    ) -> Option<()> {
        let (set, mut read) = (&self.set, Some(()));
        let (mut caps, mut bounds) = (Vec::new(), Vec::new());
        for_each_batch::<G>(first, values.len(), level, |k, batch| {
            caps.clear();
            bounds.clear();
            quiet_exits::<G, W>(level, batch, &mut caps, &mut bounds, |l, idx| {
                if let Some(t) = set.level(l) {
                    t.prefetch(idx);
                }
            });
            let vals = &values[k..k + batch.len()];
            let mut reached = [false; FWD_BATCH];
            for (j, &(e, _)) in bounds.iter().enumerate() {
                // The end of the game: `E` is the split.
                reached[j] = e >= vals[j] as i8 as i32;
            }
            for &(j, captured, l, idx, c) in &caps {
                let v = vals[j] as i8;
                if reached[j] || v == EXCEPTION || read.is_none() {
                    continue;
                }
                // The capture is worth `v` or more when its child's value
                // is below `need`.
                let need = capture_value(captured, v as i32 - 1);
                match set.value_below_at::<G>(l, idx, || child::<G, W>(c), need) {
                    Some(r) => reached[j] = r < need,
                    None => read = None,
                }
            }
            for (j, &b) in vals.iter().enumerate() {
                let v = b as i8;
                free[k + j] = (reached[j] && v != EXCEPTION).then_some(v);
            }
        });
        read
    }
}

impl<G: Game> Lower for Below<G> {
    fn free(&self, level: u32, first: u64, values: &[u8]) -> Result<Vec<Option<i8>>, TableError> {
        let mut free = vec![None; values.len()];
        let read = if packs::<G, u64>(level) {
            self.free_packed::<u64>(level, first, values, &mut free)
        } else {
            self.free_packed::<u128>(level, first, values, &mut free)
        };
        read.map(|()| free).ok_or_else(|| self.failed())
    }

    fn resolve(&self, level: u32, first: u64, stored: &mut [u8]) -> Result<(), TableError> {
        let end = first + stored.len() as u64;
        for ((_, pos), b) in level_positions::<G>(level, first..end).zip(stored) {
            let s = *b as i8;
            if s != EXCEPTION {
                let v = resolve::<G>(&self.set, &pos, s as i32, i32::MAX)
                    .ok_or_else(|| self.failed())?;
                *b = v as i8 as u8;
            }
        }
        Ok(())
    }
}

/// The levels of `rules`/`rule` present in `dir`, as the [`Lower`] of its
/// levels: opened with their headers checked, the compressed ones given
/// caches of `cache_bytes` in all ([`TableSet::fit_caches`]).
///
/// # Errors
/// A level that is present but does not open.
pub fn lower(
    dir: &Path,
    rules: RuleSet,
    rule: LoopRule,
    cache_bytes: u64,
) -> Result<Box<dyn Lower>, TableError> {
    crate::with_rules!(rules.tables(), G => {
        let mut set = TableSet::open_available_checked::<G>(dir, rule, OpenCheck::Header)?;
        set.fit_caches(cache_bytes);
        let dir = dir.to_path_buf();
        Ok(Box::new(Below::<G> { set, dir, game: PhantomData }) as Box<dyn Lower>)
    })
}

/// Whether a level compressed with `t` is read through the levels below.
pub fn needs_lower(t: Transform) -> bool {
    t == Transform::DontCare
}

#[cfg(test)]
mod tests;
