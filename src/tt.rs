//! Transposition tables for the exact search.
//!
//! [`AtomicTable`] is the production table: a fixed array of 32-byte entries
//! (two per 64-byte cache line, a bucket), sized by `--hash` in MiB, never
//! resized and never locked.
//!
//! # Entry
//!
//! ```text
//! word 0  seq       sequence counter (odd while a writer is inside)
//! word 1  key_lo    full 128-bit key: the packed position (side cleared),
//! word 2  key_hi      the entry kind (see `Kind`) and the search's
//!                     [`Context`] (rule set and loop rule)
//! word 3  data      lower:i16 | upper:i16 | best move:u8 | generation:u8 | work:u16
//! ```
//! `lower`/`upper` bound the value (`lower == upper` is an exact entry; a
//! lower-only or upper-only bound has the other side at ±∞); together they
//! are the bound type and value. `work` (log2 of the nodes spent under the
//! entry) plays the part of a depth or draft.
//!
//! # Race policy
//!
//! Each entry is a seqlock. A writer claims it by CAS of `seq` from even to
//! odd; if another writer holds it, the store is dropped (a table may always
//! forget). It then writes the three words and publishes `seq + 2`.
//! A reader loads `seq`, the words, then `seq` again and accepts the entry
//! only when both loads are equal and even. A torn entry is therefore never
//! read, and because the whole 128-bit key is compared (no hash bits are
//! trusted), a colliding entry is never mistaken for another position.
//!
//! # Replacement
//!
//! A bucket holds two entries. A store updates the entry with the same key;
//! otherwise it replaces the entry with the least `work`, where entries from
//! older generations (earlier searches) count as having none, except that
//! an entry with less work than both goes to the bucket's second slot: the
//! first slot then keeps the bigger subtree, the second takes the churn of
//! small ones. (Measured in `results/search.md`: 5 % fewer nodes than plain
//! least-work with a 16 MiB table, even at 256 MiB; a classic
//! depth-preferred first slot with an always-replace second one was no
//! better than least-work.)
//!
//! # Context
//!
//! A value depends on the rules as much as on the board: the same packed
//! board has other values under another game, rule set or loop rule. Every
//! key therefore carries a [`Context`] (made by the searcher from its game
//! type and options, never by a front end), so a table shared by searches
//! under different rules (one Python `Solver`, a server's pool) never
//! answers one with the bounds of another.
//!
//! The measured baseline, the same interface over a `DashMap`, lives with
//! the benchmark that measures it (`benches/search.rs`).

use std::sync::atomic::{fence, AtomicU64, AtomicU8, Ordering};

use crate::rules::RuleSet;
use crate::value::{LoopRule, Range};

/// What an entry bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Bounds valid for any way of scoring repetitions in the current
    /// stretch (computed without meeting one): they bound both `lo` and `hi`.
    Free = 0,
    /// A stretch start's value under the loop rule.
    Rule = 1,
    /// A stretch start's `lo` (endless play worst for its mover).
    Lo = 2,
    /// A stretch start's `hi` (endless play best for its mover).
    Hi = 3,
}

/// Bit of a key where the entry kind starts (the packed position uses the
/// bits below 96).
const KIND_SHIFT: u32 = 110;
/// Bit of a key where the [`Context`] starts.
const CONTEXT_SHIFT: u32 = 112;

/// What the bounds of an entry depend on besides the board: the rule set
/// (which names the game) and the loop rule. Part of every key, so that
/// searches under different rules can share one table and never read each
/// other's entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Context(u128);

impl Context {
    /// The context of a search of rule set `rules` under loop rule `rule`.
    pub const fn new(rules: RuleSet, rule: LoopRule) -> Context {
        // game: 2 bits (codes 1, 2), rule set: 2 bits (codes 0..=2), loop rule: 1 bit.
        let tag =
            rules.game().code() as u128 | (rules.code() as u128) << 2 | (rule.code() as u128) << 4;
        Context(tag << CONTEXT_SHIFT)
    }
}

/// A table key: the packed position (side cleared), the kind and the
/// search's context.
#[inline]
pub fn key(packed: u128, kind: Kind, ctx: Context) -> u128 {
    debug_assert!(packed >> 96 == 0, "a packed position uses 96 bits");
    packed | ((kind as u128) << KIND_SHIFT) | ctx.0
}

/// What a probe returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Lower bound of the value.
    pub lower: i16,
    /// Upper bound of the value.
    pub upper: i16,
    /// Best move found (0xFE: none).
    pub best: u8,
    /// log2 of the nodes spent.
    pub work: u16,
}

/// No best move.
pub const NO_MOVE: u8 = 0xFE;

impl Entry {
    /// An entry bounding the value by `r`, with the best move found and the
    /// `nodes` spent on it (kept as their log2).
    #[inline]
    pub fn new(r: Range, best: u8, nodes: u64) -> Entry {
        Entry {
            lower: r.lower as i16,
            upper: r.upper as i16,
            best,
            work: (64 - nodes.leading_zeros()) as u16,
        }
    }

    /// The bounds it holds.
    #[inline]
    pub fn range(&self) -> Range {
        Range {
            lower: self.lower as i32,
            upper: self.upper as i32,
        }
    }
}

/// The interface the search needs.
pub trait TransTable: Sync + Send {
    /// Looks a key up.
    fn probe(&self, key: u128) -> Option<Entry>;
    /// Stores an entry (it may be dropped). Returns whether it took the
    /// place of another key's entry stored in this generation (counted by
    /// the search's profile; a table that never evicts says `false`).
    fn store(&self, key: u128, e: Entry) -> bool;
    /// Hints that `key` will be probed soon (no effect on results).
    fn prefetch(&self, _key: u128) {}
    /// Starts a new search generation.
    fn new_generation(&self);
    /// Entries in use, per mille of capacity (sampled).
    fn hashfull(&self) -> u32;
}

#[inline]
fn pack(e: &Entry, gen: u8) -> u64 {
    (e.lower as u16 as u64)
        | ((e.upper as u16 as u64) << 16)
        | ((e.best as u64) << 32)
        | ((gen as u64) << 40)
        | ((e.work as u64) << 48)
}

#[inline]
fn unpack(d: u64) -> (Entry, u8) {
    (
        Entry {
            lower: d as u16 as i16,
            upper: (d >> 16) as u16 as i16,
            best: (d >> 32) as u8,
            work: (d >> 48) as u16,
        },
        (d >> 40) as u8,
    )
}

#[repr(C, align(32))]
#[derive(Default)]
struct Slot {
    seq: AtomicU64,
    k0: AtomicU64,
    k1: AtomicU64,
    data: AtomicU64,
}

/// The fixed-size lock-free table.
pub struct AtomicTable {
    /// The entries: a view of `_mem`, which lives as long as the table
    /// (the `'static` never leaves this struct).
    slots: &'static [Slot],
    /// Anonymous memory holding the slots, asked for in huge pages (fewer
    /// TLB misses on random probes).
    _mem: memmap2::MmapMut,
    mask: usize,
    gen: AtomicU8,
}

/// Bytes of one entry (slot) of an [`AtomicTable`].
pub const SLOT_BYTES: usize = std::mem::size_of::<Slot>();

/// The largest hash size accepted, in MiB (1 TiB).
pub const MAX_MIB: usize = 1 << 20;

/// A transposition table that cannot be made.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TtError {
    /// The size is 0 or above [`MAX_MIB`].
    #[error("hash size {0} MiB is out of range (1 to {MAX_MIB} MiB)")]
    Size(usize),
    /// The allocator refused the memory.
    #[error("cannot allocate {0} bytes for the hash table")]
    Alloc(usize),
}

impl AtomicTable {
    /// Entries of a table of `mib` MiB: the largest power of two of
    /// two-slot buckets that fits. `None` when `mib` is out of range.
    pub fn entries_for(mib: usize) -> Option<usize> {
        if !(1..=MAX_MIB).contains(&mib) {
            return None;
        }
        let b = (mib << 20) / (2 * SLOT_BYTES);
        Some(2 << (usize::BITS - 1 - b.leading_zeros()))
    }

    /// A table of about `mib` MiB (rounded down to a power of two of buckets).
    ///
    /// # Errors
    /// [`TtError::Size`] for 0 or more than [`MAX_MIB`]; [`TtError::Alloc`]
    /// when the memory cannot be had (never an abort).
    pub fn try_new(mib: usize) -> Result<Self, TtError> {
        let n = Self::entries_for(mib).ok_or(TtError::Size(mib))?;
        let mut mem = memmap2::MmapOptions::new()
            .len(n * SLOT_BYTES)
            .map_anon()
            .map_err(|_| TtError::Alloc(n * SLOT_BYTES))?;
        #[cfg(target_os = "linux")]
        let _ = mem.advise(memmap2::Advice::HugePage);
        // Commit the memory now, as an allocation would, rather than in
        // the middle of a search.
        for page in mem.chunks_mut(4096) {
            page[0] = 0;
        }
        // SAFETY: the map is page-aligned, `n * SLOT_BYTES` long and zeroed,
        // and a zeroed `Slot` is valid (four atomics at 0); only atomics
        // ever write to it. The slice is private and `_mem` outlives it.
        let slots = unsafe { std::slice::from_raw_parts(mem.as_ptr() as *const Slot, n) };
        Ok(AtomicTable {
            slots,
            _mem: mem,
            mask: n / 2 - 1,
            gen: AtomicU8::new(1),
        })
    }

    /// [`AtomicTable::try_new`] for sizes known to be sane (tests, benches).
    ///
    /// # Panics
    /// When `try_new` fails.
    pub fn new(mib: usize) -> Self {
        Self::try_new(mib).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Empties the table without reallocating: afterwards it behaves
    /// exactly as a new table of its size (no entries, first generation).
    pub fn clear(&mut self) {
        // `&mut self`: no other reference to the slots exists, and a zeroed
        // slot is a default one (four atomics at 0).
        self._mem.fill(0);
        *self.gen.get_mut() = 1;
    }

    /// Capacity in entries.
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// Memory held by the entries, in bytes.
    pub fn bytes(&self) -> usize {
        self.slots.len() * SLOT_BYTES
    }

    /// The bucket of `key`, by its board and kind only: a search's
    /// buckets are the same under every context (the context only tells
    /// entries apart, by the full-key compare), so the search of one rule
    /// set behaves exactly as before contexts existed.
    #[inline]
    fn bucket(&self, key: u128) -> usize {
        let key = key & ((1u128 << CONTEXT_SHIFT) - 1);
        let h = crate::game::mix64((key as u64) ^ crate::game::mix64((key >> 64) as u64));
        (h as usize & self.mask) * 2
    }

    /// Reads a slot consistently, or `None` if a writer is inside.
    #[inline]
    fn read(&self, s: &Slot) -> Option<(u128, u64)> {
        let s1 = s.seq.load(Ordering::Acquire);
        if s1 & 1 == 1 {
            return None;
        }
        let k0 = s.k0.load(Ordering::Relaxed);
        let k1 = s.k1.load(Ordering::Relaxed);
        let d = s.data.load(Ordering::Relaxed);
        fence(Ordering::Acquire);
        if s.seq.load(Ordering::Relaxed) != s1 {
            return None;
        }
        Some((k0 as u128 | ((k1 as u128) << 64), d))
    }
}

impl TransTable for AtomicTable {
    fn probe(&self, key: u128) -> Option<Entry> {
        let b = self.bucket(key);
        for s in &self.slots[b..b + 2] {
            if let Some((k, d)) = self.read(s) {
                if k == key && d != 0 {
                    return Some(unpack(d).0);
                }
            }
        }
        None
    }

    #[inline]
    fn prefetch(&self, key: u128) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: prefetching is a hint; the address is inside `slots`.
        unsafe {
            std::arch::x86_64::_mm_prefetch(
                self.slots.as_ptr().add(self.bucket(key)) as *const i8,
                std::arch::x86_64::_MM_HINT_T0,
            )
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    fn store(&self, key: u128, e: Entry) -> bool {
        let b = self.bucket(key);
        let gen = self.gen.load(Ordering::Relaxed);
        // Choose the slot: same key, else least work (old generations count as 0).
        let mut pick = b;
        let mut pick_score = u32::MAX;
        // Per slot: whether it holds another key's entry of this generation.
        let mut live = [false; 2];
        for i in b..b + 2 {
            match self.read(&self.slots[i]) {
                Some((k, _)) if k == key => {
                    pick = i;
                    pick_score = 0;
                    live = [false; 2];
                    break;
                }
                Some((_, d)) => {
                    let (old, g) = unpack(d);
                    let score = if d == 0 || g != gen {
                        0
                    } else {
                        old.work as u32 + 1
                    };
                    live[i - b] = score > 0;
                    if score < pick_score {
                        pick_score = score;
                        pick = i;
                    }
                }
                None => {}
            }
        }
        // Both entries hold more work than this one: keep the first.
        if pick_score != u32::MAX && pick_score > e.work as u32 + 1 {
            pick = b + 1;
        }
        let s = &self.slots[pick];
        let cur = s.seq.load(Ordering::Relaxed);
        if cur & 1 == 1
            || s.seq
                .compare_exchange(cur, cur + 1, Ordering::Acquire, Ordering::Relaxed)
                .is_err()
        {
            return false; // another writer is in this slot: drop the store
        }
        fence(Ordering::Release);
        s.k0.store(key as u64, Ordering::Relaxed);
        s.k1.store((key >> 64) as u64, Ordering::Relaxed);
        s.data.store(pack(&e, gen), Ordering::Relaxed);
        s.seq.store(cur + 2, Ordering::Release);
        live[pick - b]
    }

    fn new_generation(&self) {
        let g = self.gen.load(Ordering::Relaxed);
        self.gen
            .store(if g == 255 { 1 } else { g + 1 }, Ordering::Relaxed);
    }

    fn hashfull(&self) -> u32 {
        let n = self.slots.len().min(2000);
        let used = self.slots[..n]
            .iter()
            .filter(|s| s.data.load(Ordering::Relaxed) != 0)
            .count();
        (used * 1000 / n.max(1)) as u32
    }
}

#[cfg(test)]
mod sizing_tests {
    use super::*;

    /// Every game, rule set and loop rule has its own context, and an
    /// entry stored under one is not found under another (same board).
    #[test]
    fn contexts_keep_the_rules_apart() {
        let all: Vec<Context> = RuleSet::ALL
            .into_iter()
            .flat_map(|r| {
                [
                    Context::new(r, LoopRule::Start),
                    Context::new(r, LoopRule::Even),
                ]
            })
            .collect();
        let t = AtomicTable::new(1);
        let board = crate::game::Position::default().pack_board().0 | 5;
        let e = Entry::new(Range { lower: 3, upper: 3 }, NO_MOVE, 100);
        t.store(key(board, Kind::Rule, all[0]), e);
        assert_eq!(t.probe(key(board, Kind::Rule, all[0])), Some(e));
        for (i, a) in all.iter().enumerate() {
            for b in &all[i + 1..] {
                assert_ne!(a, b);
            }
            if i > 0 {
                assert_eq!(t.probe(key(board, Kind::Rule, *a)), None, "{a:?}");
            }
        }
    }

    #[test]
    fn sizes_are_checked_not_wrapped() {
        assert_eq!(SLOT_BYTES, 32);
        assert_eq!(AtomicTable::entries_for(1), Some((1 << 20) / 32));
        assert_eq!(AtomicTable::entries_for(3), Some((2 << 20) / 32));
        assert_eq!(AtomicTable::entries_for(0), None);
        // Used to shift to a 64-byte table (2^44 MiB << 20 wraps to 0).
        assert_eq!(AtomicTable::entries_for(17_592_186_044_416), None);
        assert_eq!(AtomicTable::entries_for(usize::MAX), None);
        assert!(matches!(
            AtomicTable::try_new(usize::MAX),
            Err(TtError::Size(_))
        ));
        let t = AtomicTable::try_new(2).unwrap();
        assert_eq!(t.bytes(), 2 << 20);
    }
}
