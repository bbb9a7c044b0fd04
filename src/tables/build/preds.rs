//! Quiet predecessors (un-moves) on packed boards, with their ranks: the
//! inner loop of the acyclic pass and the sweep.
//!
//! The same un-moves as [`Game::for_each_quiet_predecessor`] (tests check
//! both give the same predecessors on every position of small levels), but
//! on the 64-bit [`pack`](super::frontier::pack) form: undoing a seed is
//! one subtraction, and the rank comes from all prefix sums at once (one
//! multiplication) and a small table.

use super::frontier::{pit_bits, rot, unpack};
use crate::game::{Game, GameId, MAX_PITS};

/// Largest prefix sum of a packed board plus one (pit fields are at most 6
/// bits wide, and a level that packs keeps every prefix sum below that).
const SUMS: usize = 64;

/// `TERMS[j][c] = C(c + j, j + 1)`: the rank term of pit `j` when pits
/// `0..=j` hold `c` seeds.
pub(super) static TERMS: [[u64; SUMS]; MAX_PITS] = terms();

const fn terms() -> [[u64; SUMS]; MAX_PITS] {
    let mut t = [[0u64; SUMS]; MAX_PITS];
    let mut j = 0;
    while j < MAX_PITS {
        let mut c = 0;
        while c < SUMS {
            // C(c + j, j + 1) as the product of (c − 1 + i) / i for
            // i = 1 ..= j + 1 (exact at every step; 0 when c = 0).
            let mut x: u128 = 1;
            let mut i = 1;
            while i <= j + 1 {
                x = x * (c + i - 1) as u128 / i as u128;
                i += 1;
            }
            t[j][c] = x as u64;
            c += 1;
        }
        j += 1;
    }
    t
}

/// The rank ([`crate::index::rank`]) of a packed board of a level that
/// packs.
#[inline]
pub(super) fn rank_packed<G: Game>(x: u64) -> u64 {
    let bits = pit_bits::<G>();
    let mask = (1u64 << bits) - 1;
    // Every field of x · (1 + 2^bits + 2^2·bits + …) holds the prefix sum
    // of the pits up to it: no field overflows, since no sum exceeds the
    // level.
    let ones = (0..G::PITS).fold(0u64, |m, i| m | 1 << (bits * i as u32));
    let sums = x.wrapping_mul(ones);
    let mut r = 0;
    for (j, t) in TERMS.iter().enumerate().take(G::PITS - 1) {
        r += t[((sums >> (bits * j as u32)) & mask) as usize & (SUMS - 1)];
    }
    r
}

/// Calls `f(rank, parent)` for every quiet predecessor `parent` (packed)
/// of the packed board `x` of level `n`, as
/// [`Game::for_each_quiet_predecessor`] gives them.
#[inline]
pub(super) fn for_each_pred<G: Game>(x: u64, n: u32, mut f: impl FnMut(u64, u64)) {
    let mut g = |p: u64| f(rank_packed::<G>(p), p);
    match G::ID {
        GameId::Adjito => adjito_preds(rot::<G>(x), n, &mut g),
        GameId::AdjiBoto => adjiboto_preds(rot::<G>(x), &mut g),
    }
}

/// Adjito (`after`: the board as the previous mover left it, in that
/// mover's terms): the origin `o` is an empty pit of the mover's row; the
/// sowing is undone one seed at a time, the origin skipped, each prefix
/// being a parent whose last seed captured nothing and that fed an empty
/// opponent row.
#[inline]
fn adjito_preds(after: u64, n: u32, f: &mut impl FnMut(u64)) {
    const N: usize = 12;
    const H: usize = 6;
    const B: usize = 5;
    let a = unpack::<crate::Adjito>(after);
    let opp_after: u32 = a[H..N].iter().map(|&x| x as u32).sum();
    for o in (0..H).filter(|&o| a[o] == 0) {
        let (mut y, mut opp, mut j) = (after, opp_after, o);
        for s in 1..=n as usize {
            j = if j + 1 == N { 0 } else { j + 1 };
            j += usize::from(j == o);
            if (y >> (B * j)) & 31 == 0 {
                break;
            }
            y -= 1 << (B * j);
            opp -= u32::from(j >= H);
            // Must-feed: with the opponent's row empty, the sowing must
            // reach it.
            if opp == 0 && s < H - o {
                continue;
            }
            // Quiet: a last seed on the mover's row captured nothing.
            if j < H {
                let v = a[N - 1 - j] as u32;
                if v > 0 && opp_after > v {
                    continue;
                }
            }
            f(y + ((s as u64) << (B * o)));
        }
    }
}

/// Adji-Boto: the pass (the board unchanged) when the parent's mover had
/// no sowing move and the child's mover has one; and for each origin `o`
/// of the mover's row, `k = after[o] − 1` full laps (every pit lost `k`
/// seeds) and a remainder `r = 0..9` sown into `o + 1 ..= o + r`, whose
/// last seed is not followed by a pit of 1, 3 or 5.
#[inline]
fn adjiboto_preds(after: u64, f: &mut impl FnMut(u64)) {
    const N: usize = 10;
    const H: usize = 5;
    const B: usize = 6;
    const ONES: u64 = 0x0041_0410_4104_1041; // 1 in each of the 10 fields
    let a = unpack::<crate::AdjiBoto>(after);
    if a[..H].iter().all(|&x| x < 2) && a[H..N].iter().any(|&x| x >= 2) {
        f(after);
    }
    let least = a[..N].iter().copied().min().unwrap_or(0);
    for o in 0..H {
        if a[o] == 0 || a[o] - 1 > least {
            continue;
        }
        let k = (a[o] - 1) as usize;
        let mut y = after - k as u64 * ONES;
        for r in 0..N {
            if r > 0 {
                let j = (o + r) % N;
                if (y >> (B * j)) & 63 == 0 {
                    break;
                }
                y -= 1 << (B * j);
            }
            let m = k * N + r;
            if m == 0 || m + 1 > 127 {
                continue;
            }
            let last = (o + ((m - 1) % N) + 1) % N;
            if matches!(a[(last + 1) % N], 1 | 3 | 5) {
                continue;
            }
            // The origin holds 1 in `y`: the parent's holds all m + 1.
            f(y + ((m as u64) << (B * o)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{for_each_pred, rank_packed};
    use crate::game::{Game, Position};
    use crate::index::{boards, level_size, rank};
    use crate::tables::build::frontier::pack;
    use crate::{AdjiBoto, Adjito};

    /// On every board of levels `levels`: the packed rank is the rank, and
    /// the packed predecessors (with their ranks) are the game's.
    fn agrees<G: Game>(levels: std::ops::RangeInclusive<u32>) -> u64 {
        let mut preds = 0;
        for n in levels {
            let size = level_size(n as usize, G::PITS);
            for (r, pits) in boards(0..size, n as usize, G::PITS) {
                let x = pack::<G>(&pits);
                assert_eq!(rank_packed::<G>(x), r);
                let mut want = Vec::new();
                let pos = Position {
                    pits,
                    side: 0,
                    opening: 0,
                };
                G::for_each_quiet_predecessor(&pos, |q| {
                    want.push((rank(&q.pits, G::PITS), pack::<G>(&q.pits)))
                });
                let mut got = Vec::new();
                for_each_pred::<G>(x, n, |r, p| got.push((r, p)));
                want.sort_unstable();
                got.sort_unstable();
                assert_eq!(got, want, "{:?} level {n} {pits:?}", G::ID);
                preds += got.len() as u64;
            }
        }
        preds
    }

    #[test]
    fn adjito_packed_predecessors_are_the_games_to_level_13() {
        assert!(agrees::<Adjito>(0..=13) > 5_000_000);
    }

    #[test]
    fn adjiboto_packed_predecessors_are_the_games_to_level_17() {
        assert!(agrees::<AdjiBoto>(0..=17) > 5_000_000);
    }
}
