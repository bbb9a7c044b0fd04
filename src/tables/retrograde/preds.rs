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

use crate::game::Game;
use crate::games;
use crate::games::packed::{rank_packed, rot, Word};

/// Calls `f(rank, parent)` for every quiet predecessor `parent` (packed)
/// of the packed board `x` (of a level that packs), as
/// [`Game::for_each_quiet_predecessor`] gives them.
#[inline]
pub(super) fn for_each_pred<G: Game, W: Word>(x: W, mut f: impl FnMut(u64, W)) {
    let mut g = |p: W| f(rank_packed::<G, W>(p), p);
    games::packed_preds::<G, W>(rot::<G, W>(x), &mut g);
}

#[cfg(test)]
mod tests {
    use super::for_each_pred;
    use crate::adjito::{AdjitoMustReach, AdjitoSlamForbidden};
    use crate::game::{Game, Position, MAX_PITS};
    use crate::games::packed::rank_packed;
    use crate::index::{boards, level_size, rank, unrank};
    use crate::tables::retrograde::packed::{pack, packs, unpack, Word};
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
