//! Adji-Boto's fast paths for the table builder, on packed boards
//! ([`crate::games::packed`]): the legal and capturing moves of every
//! origin at once, a capture played on the packed board, and the quiet
//! un-moves. They use the rules of this game's home ([`super::sowing`],
//! [`super::takes`], [`super::playable_mask`]); exhaustive tests check
//! them against play beside them (`packed/tests.rs`), and the un-moves in
//! the builder (`tables/retrograde/preds.rs`), on every position of small
//! levels under every rule set.

use super::{sowing, takes, Sowing};
use crate::game::{Game, MAX_PITS};
use crate::games::packed::{pit_bits, Word};

/// Adji-Boto's legal sowing moves after the opening
/// ([`crate::adjiboto::playable_mask`]) and, among them, those that
/// capture ([`sowing`], [`takes`]).
#[inline]
pub(crate) fn moves(pits: &[u8; MAX_PITS]) -> (u32, u32) {
    let legal = super::playable_mask(pits, 0, 0);
    let caps = (0..5).fold(0, |caps, o| {
        caps | u32::from(takes(sowing(pits, o).v as u64)) << o
    });
    (legal, legal & caps)
}

/// Plays sowing `s`, a capture, on the packed board `x`: the seeds taken
/// and the board after the move, not yet swapped.
#[inline]
pub(crate) fn take<G: Game, W: Word>(x: W, s: &Sowing) -> (u8, W) {
    const N: usize = 10;
    const H: usize = 5;
    let runs = W::adjiboto_runs();
    let bits = pit_bits::<G, W>();
    let mut y = x - (W::of(s.m as u64) << (bits * s.o as u32))
        + W::of(s.laps as u64) * runs[H][N]
        + runs[s.o][s.r];
    let mut taken = 0u64;
    let mut j = s.q;
    while j != s.last {
        let c = ((y >> (bits * j as u32)) & ((W::ONE << bits) - W::ONE)).low();
        if !takes(c) {
            break;
        }
        taken += c;
        y = y - (W::of(c) << (bits * j as u32));
        j = (j + 1) % N;
    }
    (taken as u8, y)
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
pub(crate) fn preds<G: Game, W: Word>(after: W, f: &mut impl FnMut(W)) {
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
pub(crate) fn taken_fields<G: Game, W: Word>(x: W) -> W {
    let b = pit_bits::<G, W>();
    let ones = W::adjiboto_runs()[5][10];
    let top = ones << (b - 1);
    let low = ones * W::of((1 << (b - 1)) - 1);
    let small = !(((x & low) + ones * W::of((1 << (b - 1)) - 6)) | x) & top;
    small & (x & ones) << (b - 1)
}

#[cfg(test)]
mod tests;
