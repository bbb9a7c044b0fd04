//! Quiet predecessors (un-moves) on packed boards, with their ranks: the
//! inner loop of the acyclic pass and the sweep.
//!
//! The same un-moves as [`Game::for_each_quiet_predecessor`] (tests check
//! both give the same predecessors on every position of small levels, and
//! on samples of every level up to the builder's largest, in both words),
//! but on the [`pack`](super::packed::pack) form (64 or 128 bits,
//! [`Word`]) and without a branch per
//! pit or seed: the un-moves allowed from an origin (and lap, for Adjito)
//! are one bit mask (for Adji-Boto, one mask for every origin at once),
//! each parent is the board minus the laps plus a constant from a table,
//! and its rank comes from all prefix sums at once (one multiplication)
//! and a small table.
//! `benches/preds.rs` measures them.

use super::packed::{pit_bits, rot, unpack, Word, SUMS, TERMS};
use crate::adjito::{capture_taken, legal_mask};
use crate::game::{Game, GameId};
use crate::rules::Reach;

/// The rank ([`crate::index::rank`]) of a packed board of a level that
/// packs.
#[inline]
pub(super) fn rank_packed<G: Game, W: Word>(x: W) -> u64 {
    let bits = pit_bits::<G, W>();
    let mask = (W::ONE << bits) - W::ONE;
    // Every field of x · (1 + 2^bits + 2^2·bits + …) holds the prefix sum
    // of the pits up to it: no field overflows, since no sum exceeds the
    // level.
    let ones = (0..G::PITS).fold(W::ZERO, |m, i| m | W::ONE << (bits * i as u32));
    let sums = x.wrapping_mul(ones);
    let mut r = 0;
    for (j, t) in TERMS.iter().enumerate().take(G::PITS - 1) {
        r += t[((sums >> (bits * j as u32)) & mask).low() as usize & (SUMS - 1)];
    }
    r
}

/// Calls `f(rank, parent)` for every quiet predecessor `parent` (packed)
/// of the packed board `x` (of a level that packs), as
/// [`Game::for_each_quiet_predecessor`] gives them.
#[inline]
pub(super) fn for_each_pred<G: Game, W: Word>(x: W, mut f: impl FnMut(u64, W)) {
    let mut g = |p: W| f(rank_packed::<G, W>(p), p);
    match G::ID {
        GameId::Adjito => adjito_preds::<G, W>(rot::<G, W>(x), &mut g),
        GameId::AdjiBoto => adjiboto_preds::<G, W>(rot::<G, W>(x), &mut g),
    }
}

/// Adjito (`after`: the board as the previous mover left it, in that
/// mover's terms): the origin `o` is an empty pit of the mover's row; the
/// sowing is undone one seed at a time, the origin skipped, each prefix
/// being a parent whose last seed captured nothing and that fed an empty
/// opponent row.
///
/// Without a branch per seed: the sowing of `s = 11·q + i` seeds passed
/// every other pit `q` times and the first `i` of them once more, so it
/// can be undone while those pits held that many; whether its last seed
/// captured depends on that pit alone, and feeding matters only when the
/// opponent's row is empty after the move and `s` too short to reach it.
/// Per origin and lap the steps allowed are one bit mask (bit `i − 1` for
/// step `i`), and each parent is the board minus the laps plus a constant
/// of the origin and the step ([`Word::adjito_unsow`]).
#[inline]
fn adjito_preds<G: Game, W: Word>(after: W, f: &mut impl FnMut(W)) {
    const N: usize = 12;
    const H: usize = 6;
    let b = pit_bits::<G, W>();
    let ones = W::adjito_runs()[H][N]; // 1 in each of the 12 fields
    let unsow = W::adjito_unsow();
    let a = unpack::<G, W>(after);
    let opp_after: u32 = a[H..N].iter().map(|&x| x as u32).sum();
    let pits_of = |v: u8| (0..N).fold(0u32, |m, j| m | u32::from(a[j] == v) << j);
    // Bit j: a last seed in pit j captured nothing (it lies on the
    // opponent's row, or the game's capture rule takes nothing there).
    let quiet = (0..H).fold(0xFC0u32, |m, j| {
        m | u32::from(capture_taken(G::RULES, a[N - 1 - j] as u32, opp_after) == 0) << j
    });
    // The pits from `o + 1` on, in sowing order (the origin last, dropped).
    let turn = |x: u32, o: usize| ((x >> (o + 1)) | (x << (N - o - 1))) & 0x7FF;
    let empty = pits_of(0);
    let mut origins = empty & 0x3F;
    while origins != 0 {
        let o = origins.trailing_zeros() as usize;
        origins &= origins - 1;
        let ok = turn(quiet, o);
        // Sowings too short to reach the opponent's row ([`reaches`]):
        // never legal when that row is empty (then it is empty after them
        // too), and under must-reach only when no pit of the parent reaches
        // ([`legal_mask`], asked of each such parent below).
        let short = (1u32 << (H - o - 1)) - 1;
        let (barred, ask) = match G::RULES.reach() {
            _ if opp_after == 0 => (short, 0),
            Reach::WhenEmpty => (0, 0),
            Reach::Always => (0, short),
        };
        // Lap q is reached only when no other pit held q − 1 or less, so
        // its first pit holding q is the first the lap cannot pass.
        let (mut q, mut lap) = (0u8, empty);
        let origin = W::ONE << (b * o as u32);
        loop {
            let stop = (turn(lap, o) | 0x800).trailing_zeros();
            let first = q == 0;
            let mut steps = ok & ((1 << stop) - 1) & !if first { barred } else { 0 };
            let base = after.wrapping_sub(W::of(q as u64).wrapping_mul(ones - origin))
                + (W::of(11 * q as u64) << (b * o as u32));
            while steps != 0 {
                let i = steps.trailing_zeros() as usize + 1;
                steps &= steps - 1;
                let parent = base.wrapping_add(unsow[o][i]);
                if first && ask >> (i - 1) & 1 != 0 {
                    let p = unpack::<G, W>(parent);
                    if legal_mask(G::RULES, &p) >> o & 1 == 0 {
                        continue;
                    }
                }
                f(parent);
            }
            if stop < 11 {
                break;
            }
            q += 1;
            lap = pits_of(q);
        }
    }
}

/// Adji-Boto: the pass (the board unchanged) when the parent's mover had
/// no sowing move and the child's mover has one; and for each origin `o`
/// of the mover's row, `k = after[o] − 1` full laps (every pit lost `k`
/// seeds, so `k` is at most the smallest pit) and a remainder `r = 0..9`
/// sown into `o + 1 ..= o + r` (none of them left empty by the laps), whose
/// last seed is not followed by a pit of 1, 3 or 5; `r = 0` needs a lap.
///
/// On the packed board (`B` bits a pit), with two loops only: over the
/// origins that can be undone (`k` at most the smallest pit: few, since
/// most boards have an empty or small pit) and over the predecessors
/// found. Tests that hold per pit are computed for all ten at once (into
/// the top bit, `B − 1`, of each pit's field); per origin the remainders
/// allowed are one mask of such bits, rotated to start after the origin,
/// and the masks of all origins are merged into one (bit `B·r + o`). Each
/// predecessor is the board minus its origin's laps plus a constant of the
/// origin and the remainder ([`Word::adjiboto_unsow`]). One loop over the
/// merged mask, rather than one per origin, took a fifth off the sweep at
/// Adji-Boto 34 (`results/tables.md` §2, seventh round): the loops' exits
/// were mispredicted branches. (Adjito's lap 0 merged the same way made
/// its sweep slower at level 26, probably because most of its boards have
/// a single origin, an empty pit of the mover's row.)
#[inline]
fn adjiboto_preds<G: Game, W: Word>(after: W, f: &mut impl FnMut(W)) {
    let b = pit_bits::<G, W>();
    let ones = W::adjiboto_runs()[5][10]; // 1 in each of the 10 fields
    let top = ones << (b - 1); // the top bit of each field
    let low = ones * W::of((1 << (b - 1)) - 1); // the bits below it
    let row = (W::ONE << (5 * b)) - W::ONE; // the mover's five pits
    let all_bits = (W::ONE << (10 * b)) - W::ONE;
    let field = (W::ONE << b) - W::ONE;
    // The top bit of each field of `x`: set when the field is not 0.
    let nonzero = |x: W| (((x & low) + low) | x) & top;
    // Pits of 2 or more (half the pit is not 0).
    let sows = nonzero((after >> 1) & low);
    let quiet = top & !taken_fields::<G, W>(after);
    if sows & row == W::ZERO && sows & !row != W::ZERO {
        f(after);
    }
    let least = (0..10)
        .map(|j| (after >> (b * j)) & field)
        .min()
        .unwrap_or(W::ZERO);
    // Rotates the fields so that the one after origin `o` comes first.
    let turn = |x: W, o: u32| ((x >> (b * (o + 1))) | (x << (10 * b - b * (o + 1)))) & all_bits;
    // The remainders allowed from every origin, as one mask: bit `B·r + o`
    // for remainder `r` from origin `o` (the top bit of field `r` of the
    // origin's mask, moved down to bit `o`); and each origin's board after
    // undoing its laps.
    let mut all = W::ZERO;
    let mut base = [W::ZERO; 8];
    // The origins that can be undone (an empty origin is not: `k` wraps).
    let mut origins = (0..5u32).fold(0u32, |m, o| {
        let k = ((after >> (b * o)) & field).wrapping_sub(W::ONE);
        m | u32::from(k <= least) << o
    });
    while origins != 0 {
        let o = origins.trailing_zeros();
        origins &= origins - 1;
        let k = ((after >> (b * o)) & field).wrapping_sub(W::ONE);
        // Pits the laps empty: the remainder (sown into fields 0..r of the
        // turned board) cannot take a seed back from one, so r stops at
        // the first. The origin, last after the turn, keeps 1.
        let laps = after.wrapping_sub(k.wrapping_mul(ones));
        let empty = turn(top & !nonzero(laps), o) | W::ONE << (10 * b - 1);
        let reach = (W::of(2) << empty.trailing_zeros()).wrapping_sub(W::ONE);
        let rs = turn(quiet, o) & reach & !(W::of(u64::from(k == W::ZERO)) << (b - 1));
        all |= rs >> (b - 1 - o);
        // The origin (1 seed after the laps) gets back 10·k.
        base[o as usize] = laps.wrapping_add(k.wrapping_mul(W::of(10)) << (b * o));
    }
    let unsow = W::adjiboto_unsow();
    while all != W::ZERO {
        let i = all.trailing_zeros() as usize;
        all = all & (all - W::ONE);
        f(base[i % b as usize].wrapping_add(unsow[i]));
    }
}

/// The top bit of each field of the packed Adji-Boto board `x` whose pit
/// a capture takes: [`crate::adjiboto::takes`] for every pit at once
/// (pits of 0–5, below the top bit with low bits at most 5, that are also
/// odd: 1, 3 or 5). A test checks it against `takes` on every count.
#[inline]
fn taken_fields<G: Game, W: Word>(x: W) -> W {
    let b = pit_bits::<G, W>();
    let ones = W::adjiboto_runs()[5][10];
    let top = ones << (b - 1);
    let low = ones * W::of((1 << (b - 1)) - 1);
    let small = !(((x & low) + ones * W::of((1 << (b - 1)) - 6)) | x) & top;
    small & (x & ones) << (b - 1)
}

#[cfg(test)]
mod tests {
    use super::{for_each_pred, rank_packed};
    use crate::adjito::{AdjitoMustReach, AdjitoSlamForbidden};
    use crate::game::{Game, Position, MAX_PITS};
    use crate::index::{boards, level_size, rank, unrank};
    use crate::tables::retrograde::packed::{pack, packs, pit_bits, unpack, Word};
    use crate::tables::retrograde::{max_build_level, max_sharded_level};
    use crate::{AdjiBoto, Adjito};

    /// The board `pits` (rank `r`) of level `n`: its packed rank is the
    /// rank, and its packed predecessors (with their ranks) are the
    /// game's. Returns the predecessors' packed boards.
    fn check<G: Game, W: Word>(n: u32, r: u64, pits: [u8; MAX_PITS]) -> Vec<W> {
        let x = pack::<G, W>(&pits);
        assert_eq!(rank_packed::<G, W>(x), r);
        let mut want = Vec::new();
        let pos = Position {
            pits,
            side: 0,
            opening: 0,
        };
        G::for_each_quiet_predecessor(&pos, |q| {
            want.push((rank(&q.pits, G::PITS), pack::<G, W>(&q.pits)))
        });
        let mut got = Vec::new();
        for_each_pred::<G, W>(x, |r, p| got.push((r, p)));
        want.sort_unstable();
        got.sort_unstable();
        assert_eq!(got, want, "{:?} level {n} {pits:?}", G::ID);
        got.into_iter().map(|(_, p)| p).collect()
    }

    /// [`check`] on every board of levels `levels`; the number of
    /// predecessors.
    fn agrees<G: Game>(levels: std::ops::RangeInclusive<u32>) -> u64 {
        let mut preds = 0;
        for n in levels {
            let size = level_size(n as usize, G::PITS);
            for (r, pits) in boards(0..size, n as usize, G::PITS) {
                preds += check::<G, u64>(n, r, pits).len() as u64;
            }
        }
        preds
    }

    /// [`check`] on `count` random boards of each level from `from` to
    /// `max` (the largest that packs into `W` at most: the
    /// one-process builder's, [`max_build_level`], or the game's, for
    /// 128 bits), and on each of them made to allow sowings
    /// of `laps` laps: an origin is picked on the row of the player who
    /// just moved (the second half of a board, which is in the terms of
    /// the player to move), its seeds moved to pit 0, every other pit
    /// raised by `laps` and the origin set to `origin` seeds (where the
    /// level stays within the builder). Returns how many predecessors of
    /// those boards sowed `long` seeds or more from that origin.
    fn agrees_on_samples<G: Game, W: Word>(
        (from, max): (u32, u32),
        count: usize,
        laps: u8,
        origin: u8,
        long: u8,
    ) -> u64 {
        let within = |n: u32| n <= max && packs::<G, W>(n);
        let mut s = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        let half = G::PITS / 2;
        let mut found = 0;
        for n in (from..).take_while(|&n| within(n)) {
            let size = level_size(n as usize, G::PITS);
            for _ in 0..count {
                let r = next() % size;
                let mut pits = unrank(r, n as usize, G::PITS);
                check::<G, W>(n, r, pits);
                // The origin, in the predecessor's terms `o`.
                let o = (next() % half as u64) as usize;
                pits[0] += pits[half + o];
                pits[..G::PITS].iter_mut().for_each(|x| *x += laps);
                pits[half + o] = origin;
                let m: u32 = pits.iter().map(|&x| x as u32).sum();
                if within(m) {
                    let r = rank(&pits, G::PITS);
                    for p in check::<G, W>(m, r, pits) {
                        found += u64::from(unpack::<G, W>(p)[o] >= long);
                    }
                }
            }
        }
        found
    }

    /// The packed capture test of `W` against the game's on every count a
    /// field holds, in every pit.
    fn capture_test_agrees<W: Word>() {
        let b = pit_bits::<AdjiBoto, W>();
        for c in 0..1u64 << b {
            for j in 0..10 {
                let x = W::of(c) << (b * j) | W::of(7) << (b * ((j + 1) % 10));
                let want = W::of(u64::from(crate::adjiboto::takes(c))) << (b * j + b - 1);
                let field = ((W::ONE << b) - W::ONE) << (b * j);
                assert_eq!(
                    super::taken_fields::<AdjiBoto, W>(x) & field,
                    want,
                    "{c} in pit {j}, {} bits",
                    W::BITS
                );
            }
        }
    }

    #[test]
    fn the_packed_capture_test_is_the_games_on_every_count_and_pit() {
        capture_test_agrees::<u64>();
        capture_test_agrees::<u128>();
    }

    #[test]
    fn adjito_packed_predecessors_are_the_games_to_level_13() {
        assert!(agrees::<Adjito>(0..=13) > 5_000_000);
    }

    /// The other readings change which un-moves are legal (must-reach) or
    /// quiet (a capture of everything): the packed un-moves follow.
    #[test]
    fn adjito_packed_predecessors_are_the_games_under_every_reading() {
        let default = agrees::<Adjito>(0..=12);
        let reach = agrees::<AdjitoMustReach>(0..=12);
        let slam = agrees::<AdjitoSlamForbidden>(0..=12);
        assert!(reach > 1_000_000 && reach < default, "{reach} {default}");
        assert!(slam > 1_000_000 && slam < default, "{slam} {default}");
        let top = max_build_level::<Adjito>();
        assert!(agrees_on_samples::<AdjitoMustReach, u64>((4, top), 500, 1, 0, 12) > 100);
        assert!(agrees_on_samples::<AdjitoSlamForbidden, u64>((4, top), 500, 1, 0, 12) > 100);
        let all = max_sharded_level::<Adjito>();
        assert!(agrees_on_samples::<AdjitoMustReach, u128>((4, all), 200, 1, 0, 12) > 100);
        assert!(agrees_on_samples::<AdjitoSlamForbidden, u128>((4, all), 200, 1, 0, 12) > 100);
    }

    #[test]
    fn adjiboto_packed_predecessors_are_the_games_to_level_17() {
        assert!(agrees::<AdjiBoto>(0..=17) > 5_000_000);
    }

    /// Above the levels checked in full, on samples, with sowings of one
    /// and two laps: Adjito's lap is the 11 pits other than the origin,
    /// which must be empty, so two laps need 23 seeds or more; Adji-Boto's
    /// lap is all 10 pits and leaves one seed in the origin each time, so
    /// two laps leave 3 there and need 21 seeds or more (none at levels
    /// 0–17, where every pit would need 2 seeds).
    #[test]
    fn packed_predecessors_are_the_games_on_samples_up_to_the_largest_level() {
        let (a, b) = (max_build_level::<Adjito>(), max_build_level::<AdjiBoto>());
        assert!(agrees_on_samples::<Adjito, u64>((4, a), 2000, 1, 0, 12) > 1000);
        assert!(agrees_on_samples::<Adjito, u64>((4, a), 2000, 2, 0, 23) > 100);
        assert!(agrees_on_samples::<AdjiBoto, u64>((4, b), 2000, 1, 2, 11) > 1000);
        assert!(agrees_on_samples::<AdjiBoto, u64>((4, b), 2000, 2, 3, 21) > 1000);
    }

    /// In 128 bits, on samples of every level of both games (Adjito to
    /// 48, Adji-Boto to 100: beyond 64 bits from 32 and 64), with sowings
    /// of one, two and (Adji-Boto, a lap being 10 pits) up to nine laps.
    #[test]
    fn wide_packed_predecessors_are_the_games_on_samples_of_every_level() {
        let (a, b) = (
            max_sharded_level::<Adjito>(),
            max_sharded_level::<AdjiBoto>(),
        );
        assert_eq!((a, b), (48, 100));
        assert!(agrees_on_samples::<Adjito, u128>((4, a), 400, 1, 0, 12) > 1000);
        assert!(agrees_on_samples::<Adjito, u128>((4, a), 400, 2, 0, 23) > 100);
        assert!(agrees_on_samples::<Adjito, u128>((4, a), 400, 3, 0, 34) > 10);
        assert!(agrees_on_samples::<AdjiBoto, u128>((4, b), 400, 1, 2, 11) > 1000);
        assert!(agrees_on_samples::<AdjiBoto, u128>((4, b), 400, 2, 3, 21) > 1000);
        assert!(agrees_on_samples::<AdjiBoto, u128>((4, b), 400, 5, 6, 51) > 100);
        assert!(agrees_on_samples::<AdjiBoto, u128>((4, b), 400, 9, 10, 91) > 10);
    }
}
