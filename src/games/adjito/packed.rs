//! Adjito's fast paths for the table builder, on packed boards
//! ([`crate::games::packed`]): the legal moves of every origin at once,
//! a capture played on the packed board, and the quiet un-moves. They use
//! the rules of this game's home ([`super::landing`],
//! [`super::capture_taken`], [`super::legal_mask`]); exhaustive tests
//! check them against play ([`Game::play_unchecked`]) beside them
//! (`packed/tests.rs`), and the un-moves against
//! [`Game::for_each_quiet_predecessor`] in the builder
//! (`tables/retrograde/preds.rs`), on every position of small levels under
//! every rule set.

use super::{capture_taken, landing, legal_mask};
use crate::game::{Game, MAX_PITS};
use crate::games::packed::{pit_bits, unpack, Word};
use crate::rules::Reach;

/// Adjito's legal sowing moves (bit `o`: the pit is not empty and, when
/// the opponent's row is empty, its seeds reach it: `s ≥ 6 − o`), each a
/// capture to try: the capture test computed here for every origin at
/// once (as for Adji-Boto) made the forward pass slower at Adjito 26
/// (`results/tables.md` §2, seventh round), so [`capture`]
/// decides each move.
#[inline]
pub(crate) fn moves<G: Game>(pits: &[u8; MAX_PITS]) -> (u32, u32) {
    let legal = legal_mask(G::RULES, pits);
    (legal, legal)
}

/// Adjito: the capture of the legal move from `o` ([`landing`] and
/// [`capture_taken`], the game's rules), played on the packed board. Returns the
/// seeds taken and the board after the move, not yet swapped.
#[inline]
pub(crate) fn capture<G: Game, W: Word>(x: W, pits: &[u8; MAX_PITS], o: usize) -> Option<(u8, W)> {
    const N: usize = 12;
    const H: usize = 6;
    let l = landing(pits, o);
    let (f, v) = l.facing?;
    if capture_taken(G::RULES, v, l.opp_after) == 0 {
        return None;
    }
    let runs = W::adjito_runs();
    let bits = pit_bits::<G, W>();
    let origin = W::ONE << (bits * o as u32);
    let y = x - W::of(l.s as u64) * origin
        + W::of(l.laps as u64) * (runs[H][N] - origin)
        + runs[o][l.r]
        - (W::of(v as u64) << (bits * f as u32));
    Some((v as u8, y))
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
pub(crate) fn preds<G: Game, W: Word>(after: W, f: &mut impl FnMut(W)) {
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

#[cfg(test)]
mod tests;
