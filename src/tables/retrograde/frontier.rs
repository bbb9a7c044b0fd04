//! Frontier lists of the builder: boards packed into a word
//! ([`super::packed`], so that no frontier entry is ever unranked), capped lists that spill into pending
//! bits beyond their budget, and the walk from sorted ranks to boards.

use std::sync::atomic::{
    AtomicBool, AtomicUsize,
    Ordering::{AcqRel, Relaxed},
};

use super::cell::Cell;
use crate::game::{Game, MAX_PITS};
use crate::games::packed::{pit_bits, Word, TERMS};

/// Calls `f(rank, packed board)` for the ranks `base + o` of level `n`,
/// `o` over the ascending `offsets` (see [`Walker`]). Offsets from a
/// chunk's first rank keep the lists at 4 bytes an entry on levels of
/// 2^32 positions and more.
pub(super) fn for_each_board<G: Game, W: Word>(
    base: u64,
    offsets: &[u32],
    n: u32,
    mut f: impl FnMut(u64, W),
) {
    let Some(&first) = offsets.first() else {
        return;
    };
    let mut w = Walker::<G, W>::new(n, base + first as u64);
    for &o in offsets {
        let r = base + o as u64;
        f(r, w.advance(r));
    }
}

/// The boards of ascending ranks of one level, each found from the one
/// before.
///
/// A board's rank is `Σ_{i < k−1} T_i(c_i)` over its prefix sums `c_i`
/// (`T_i(c) = C(c + i, i + 1)`). The boards sharing `c_j … c_{k−2}` (pits
/// `j + 1 …` fixed) form the block of ranks `base_j ..= end_j`, and these
/// blocks nest. For a larger rank `r`, only the prefix sums below the
/// smallest block still holding `r` change; they are found from there
/// down, each by a short search in a small table (the lowest, `c_0`, is
/// the remainder itself).
pub(super) struct Walker<G: Game, W: Word> {
    c: [usize; MAX_PITS],
    base: [u64; MAX_PITS],
    end: [u64; MAX_PITS],
    board: W,
    game: std::marker::PhantomData<G>,
}

impl<G: Game, W: Word> Walker<G, W> {
    /// A walker of level `n` at rank `r`.
    pub(super) fn new(n: u32, r: u64) -> Self {
        let k = G::PITS;
        let mut w = Walker {
            c: [0; MAX_PITS],
            base: [0; MAX_PITS],
            end: [0; MAX_PITS],
            board: W::ZERO,
            game: std::marker::PhantomData,
        };
        w.c[k - 1] = n as usize;
        w.end[k - 1] = crate::index::level_size(n as usize, k) - 1;
        w.descend(k - 1, r);
        w
    }

    /// The packed board of rank `r`, which is at least the last one asked.
    #[inline]
    pub(super) fn advance(&mut self, r: u64) -> W {
        // The current rank is base_0 (block 0 is one board).
        if r != self.base[0] {
            let mut j = 1;
            while r > self.end[j] {
                j += 1;
            }
            self.descend(j, r - self.base[j]);
        }
        self.board
    }

    /// With `c_j …` fixed, the prefix sums below `j` for the rank `rem`
    /// within block `j`, and pits `0 ..= j` of the board.
    #[inline]
    fn descend(&mut self, j: usize, mut rem: u64) {
        for i in (0..j).rev() {
            let t = &TERMS[i];
            // The largest c with t[c] ≤ rem: for the lowest pit, where
            // every walk ends, rem itself (T_0(c) = c); above it by a short
            // search down from c_{i+1}.
            let c = if i == 0 {
                rem as usize
            } else {
                let mut c = self.c[i + 1];
                while t[c] > rem {
                    c -= 1;
                }
                c
            };
            debug_assert!(
                c <= self.c[i + 1] && t[c] <= rem && t.get(c + 1).is_none_or(|&x| x > rem)
            );
            rem -= t[c];
            self.c[i] = c;
            self.base[i] = self.base[i + 1] + t[c];
            let size = if i == 0 { 1 } else { TERMS[i - 1][c + 1] };
            self.end[i] = self.base[i] + size - 1;
        }
        let bits = pit_bits::<G, W>();
        let keep = if (j + 1) as u32 * bits >= W::BITS {
            W::ZERO
        } else {
            !W::ZERO << ((j + 1) as u32 * bits)
        };
        let mut x = self.board & keep;
        for i in 0..=j {
            let below = if i == 0 { 0 } else { self.c[i - 1] };
            x |= W::of((self.c[i] - below) as u64) << (bits * i as u32);
        }
        self.board = x;
    }
}

/// Chunk size of the dirty marks (positions).
pub(super) const DIRTY_CHUNK: usize = 1 << 14;

/// A frontier: lists of packed boards of the two kinds of event (W and L
/// in the sweep; the acyclic pass uses the first only), and whether more
/// positions of each kind wait behind pending bits.
pub(super) struct Frontier<W: Word> {
    pub(super) lists: [Vec<Vec<W>>; 2],
    pub(super) spilled: [bool; 2],
}

impl<W: Word> Default for Frontier<W> {
    fn default() -> Self {
        Frontier {
            lists: [Vec::new(), Vec::new()],
            spilled: [false; 2],
        }
    }
}

impl<W: Word> Frontier<W> {
    /// Entries in the lists.
    pub(super) fn len(&self) -> usize {
        self.lists.iter().flatten().map(Vec::len).sum()
    }

    /// Nothing to process.
    pub(super) fn is_empty(&self) -> bool {
        !self.spilled.iter().any(|&s| s) && self.len() == 0
    }

    /// Appends what the producers of `sinks` pushed into `lists`.
    pub(super) fn add(&mut self, k: usize, lists: Vec<Vec<W>>, sink: &Sink) {
        self.lists[k].extend(lists.into_iter().filter(|l| !l.is_empty()));
        self.spilled[k] |= sink.spilled();
    }
}

/// Budgets frontier lists: up to a shared cap of entries; past it, the
/// producer marks the position with a pending bit and its chunk as dirty
/// instead, so frontiers never outgrow the budget.
pub(super) struct Sink<'a> {
    cap: usize,
    len: AtomicUsize,
    spilled: AtomicBool,
    dirty: &'a [AtomicBool],
    /// The pending bit this sink's overflow carries.
    pub(super) bit: u8,
}

impl<'a> Sink<'a> {
    pub(super) fn new(cap: usize, dirty: &'a [AtomicBool], bit: u8) -> Self {
        Sink {
            cap,
            len: AtomicUsize::new(0),
            spilled: AtomicBool::new(false),
            dirty,
            bit,
        }
    }

    /// A producer's handle: pushes are counted against the cap through it.
    pub(super) fn producer(&self) -> Producer<'_, 'a> {
        Producer {
            sink: self,
            left: 0,
        }
    }

    /// The cap (entries).
    pub(super) fn cap(&self) -> usize {
        self.cap
    }

    /// Whether a push went to a pending bit.
    pub(super) fn spilled(&self) -> bool {
        self.spilled.load(Relaxed)
    }
}

/// Entries a producer reserves from its sink's shared count at a time.
const RESERVE: usize = 256;

/// One producer's reservation from a [`Sink`]: taken [`RESERVE`] entries at
/// a time so that the shared counter's cache line is not fought over on
/// every push; what is left is handed back on drop.
pub(super) struct Producer<'s, 'a> {
    sink: &'s Sink<'a>,
    left: usize,
}

impl Producer<'_, '_> {
    /// Whether one more entry may be pushed. When false, the caller marks
    /// the position pending ([`Producer::mark`]).
    #[inline]
    pub(super) fn room(&mut self) -> bool {
        let s = self.sink;
        // Once full, the shared words are only read, never written again.
        if self.left == 0 && !s.spilled.load(Relaxed) {
            if s.len.fetch_add(RESERVE, Relaxed) < s.cap {
                self.left = RESERVE;
            } else {
                s.len.fetch_sub(RESERVE, Relaxed);
                s.spilled.store(true, Relaxed);
            }
        }
        if self.left > 0 {
            self.left -= 1;
            true
        } else {
            false
        }
    }

    /// Pushes board `x` of rank `i`, or sets the pending bit in its `flag`.
    #[inline]
    pub(super) fn push<W: Word>(&mut self, out: &mut Vec<W>, cell: &Cell, i: usize, x: W) {
        if self.room() {
            out.push(x);
        } else {
            // Release: whoever takes the bit also sees this producer's writes.
            cell.set_flags(self.sink.bit, AcqRel);
            self.mark(i);
        }
    }

    /// Marks the chunk of rank `i` as holding pending positions.
    #[inline]
    pub(super) fn mark(&self, i: usize) {
        self.sink.dirty[i / DIRTY_CHUNK].store(true, Relaxed);
    }
}

impl Drop for Producer<'_, '_> {
    fn drop(&mut self) {
        self.sink.len.fetch_sub(self.left, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::for_each_board;
    use crate::game::Game;
    use crate::index::{level_size, unrank};
    use crate::tables::retrograde::packed::{pack, Word};
    use crate::{AdjiBoto, Adjito};

    /// Ascending ranks with gaps of every size (repeats included) give
    /// the boards `unrank` gives.
    fn walks<G: Game, W: Word>(n: u32) {
        let size = level_size(n as usize, G::PITS);
        let mut ranks = Vec::new();
        let (mut r, mut step) = (0u64, 0u64);
        while r < size {
            ranks.push(r as u32);
            step = (step * 7 + 3) % 200;
            r += if step < 100 { step % 4 } else { step * step };
        }
        ranks.push(size as u32 - 1);
        let mut seen = 0;
        for_each_board::<G, W>(0, &ranks, n, |r, b| {
            assert_eq!(b, pack::<G, W>(&unrank(r, n as usize, G::PITS)), "rank {r}");
            seen += 1;
        });
        assert_eq!(seen, ranks.len());
    }

    /// Offsets from a base beyond 2^32 (Adji-Boto 44 has 4.43·10^9
    /// positions) walk to the boards of base + offset.
    #[test]
    fn offsets_walk_from_a_base_beyond_32_bits() {
        let n = 44;
        let size = level_size(n as usize, AdjiBoto::PITS);
        let base = size - (1 << 20);
        assert!(base > u32::MAX as u64);
        let offsets: Vec<u32> = (0..1u32 << 20).step_by(4099).collect();
        let mut seen = 0;
        for_each_board::<AdjiBoto, u64>(base, &offsets, n, |r, b| {
            assert_eq!(r, base + offsets[seen] as u64);
            let want = unrank(r, n as usize, AdjiBoto::PITS);
            assert_eq!(b, pack::<AdjiBoto, u64>(&want), "rank {r}");
            seen += 1;
        });
        assert_eq!(seen, offsets.len());
    }

    #[test]
    fn walked_boards_are_the_unranked_ones() {
        for n in [0, 1, 2, 7, 16, 24] {
            walks::<Adjito, u64>(n);
            walks::<Adjito, u128>(n);
        }
        for n in [0, 1, 3, 20, 33] {
            walks::<AdjiBoto, u64>(n);
            walks::<AdjiBoto, u128>(n);
        }
    }
}
