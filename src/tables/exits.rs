//! The capture bound `E` of boards, a batch at a time: each board's
//! sowing moves decided from its counts alone ([`exits`]: the quiet moves
//! counted, the captures played on the packed board), the captures'
//! children located in the levels below, and their values folded into
//! `E` ([`quiet_exits`], [`fold_captures`]). What the builder's forward
//! pass and the don't-care writer ([`super::dontcare`]) share; imports
//! only the games and the index.
//!
//! Both games' sowing is arithmetic: `s` seeds from pit `o` make full laps
//! (one seed in every pit the sowing visits) and a remainder sown one seed
//! a pit from `o + 1` on. The landing pit and the count of the pit that
//! decides the capture follow from `o`, `s` and that pit's count before
//! (docs/RULES.md §2 and §3); on a packed board the laps and the
//! remainder are two additions. The games' packed captures are proven
//! equal to play beside them (`games/adjito/packed/tests.rs`,
//! `games/adjiboto/packed/tests.rs`); the tests here check [`exits`]
//! against the game's legal moves and plays on the same boards: every
//! move of every position of small levels and of boards with laps.

use crate::game::{Game, Position, MAX_PITS};
use crate::games;
use crate::games::packed::{pack, rank_packed, rot, unpack, Word};
use crate::index::boards;
use crate::value::capture_value;

/// The forward pass's moves of the main-phase board `pits` (packed: `x`):
/// calls `on_capture(seeds taken, child)` for each legal sowing move that
/// captures (the child packed, its two rows swapped: the opponent moves
/// next) and
/// returns the number of the others, the quiet sowing moves; `None` when
/// no sowing move is legal (the game then passes or ends: the caller asks
/// it).
///
/// Which moves are legal, and for Adji-Boto which capture, is decided for
/// every origin at once from the counts ([`games::packed_moves`]), without a move list, so that the only loop is
/// over the moves that may capture (for Adjito, every legal move), instead
/// of a branch per move that the processor mispredicts. Adjito's
/// candidates are then decided one by one; Adji-Boto's mask is exact, so
/// its captures are only played ([`games::packed_capture`]). The tests check them against the game's moves.
#[inline]
pub(super) fn exits<G: Game, W: Word>(
    x: W,
    pits: &[u8; MAX_PITS],
    mut on_capture: impl FnMut(u8, W),
) -> Option<u8> {
    let (legal, mut caps) = games::packed_moves::<G>(pits);
    if legal == 0 {
        return None;
    }
    let mut quiet = legal.count_ones() as u8;
    while caps != 0 {
        let o = caps.trailing_zeros() as usize;
        caps &= caps - 1;
        let taken = games::packed_capture::<G, W>(x, pits, o);
        if let Some((v, c)) = taken {
            on_capture(v, rot::<G, W>(c));
            quiet -= 1;
        }
    }
    Some(quiet)
}

/// Positions a batch: the capture lookups of a whole batch are located
/// and prefetched before any is read.
pub(super) const FWD_BATCH: usize = 32;

/// Calls `f(k, batch)` for the boards of ranks `first..first + len` of
/// level `n`, [`FWD_BATCH`] at a time, `k` the batch's offset from `first`.
pub(super) fn for_each_batch<G: Game>(
    first: u64,
    len: usize,
    n: u32,
    mut f: impl FnMut(usize, &[[u8; MAX_PITS]]),
) {
    let mut it = boards(first..first + len as u64, n as usize, G::PITS);
    let mut batch = [[0u8; MAX_PITS]; FWD_BATCH];
    for k in (0..len).step_by(FWD_BATCH) {
        let m = FWD_BATCH.min(len - k);
        for slot in batch.iter_mut().take(m) {
            *slot = it.next().expect("ranks within the level").1;
        }
        f(k, &batch[..m]);
    }
}

/// A capture found in a batch: the batch slot, seeds taken,
/// the child's level and rank, and the child's packed board (for its `w`,
/// if needed).
pub(super) type Capture<W> = (usize, u8, u32, usize, W);

/// The first half of a batch's capture bounds: appends to `out` each
/// board's `(E, quiet-move count)` without its captures, and to `caps`
/// every capture child, `seen(level, rank)` told of each as it is found
/// (a caller prefetches the child's entry there). `E` is the split when
/// the board has no move at all, else `i32::MIN` until
/// [`fold_captures`] folds the captures in (a pass counts as a quiet
/// move).
pub(super) fn quiet_exits<G: Game, W: Word>(
    n: u32,
    batch: &[[u8; MAX_PITS]],
    caps: &mut Vec<Capture<W>>,
    out: &mut Vec<(i32, u8)>,
    mut seen: impl FnMut(u32, usize),
) {
    let j0 = out.len();
    for (j, b) in batch.iter().enumerate() {
        let x = pack::<G, W>(b);
        // Only captures are sown: quiet moves are only counted.
        let quiet = exits::<G, W>(x, b, |captured, c| {
            let level = n - captured as u32;
            let idx = rank_packed::<G, W>(c) as usize;
            seen(level, idx);
            caps.push((j0 + j, captured, level, idx, c));
        });
        out.push(match quiet {
            Some(cnt) => (i32::MIN, cnt),
            None => {
                // No sowing move: a pass (a quiet move) or the end.
                let pos = Position {
                    pits: *b,
                    side: 0,
                    opening: 0,
                };
                match G::legal_moves(&pos).len() {
                    0 => (G::split(&pos), 0),
                    k => (i32::MIN, k as u8),
                }
            }
        });
    }
}

/// The second half of a batch's capture bounds: folds into `out` the value of every
/// capture of `caps`, its child's value from `value` (the mover's exit is
/// the best capture, [`capture_value`]).
pub(super) fn fold_captures<W: Word>(
    caps: &[Capture<W>],
    out: &mut [(i32, u8)],
    mut value: impl FnMut(&Capture<W>) -> i32,
) {
    for cap in caps {
        let v = value(cap);
        let e = &mut out[cap.0].0;
        *e = (*e).max(capture_value(cap.1, v));
    }
}

/// The position of a packed child board, South to move, out of the opening.
pub(super) fn child<G: Game, W: Word>(c: W) -> Position {
    Position {
        pits: unpack::<G, W>(c),
        side: 0,
        opening: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::exits;
    use crate::adjito::{AdjitoMustReach, AdjitoSlamForbidden};
    use crate::game::{Game, Position, MAX_PITS};
    use crate::games::packed::tests::for_each_board;
    use crate::games::packed::{pack, Word};
    use crate::{AdjiBoto, Adjito};

    /// `exits` agrees with the game's legal moves and with playing each:
    /// `None` when no sowing move is legal, else the captures (seeds taken
    /// and child) and the number of quiet sowing moves. Returns the
    /// sowing moves. (The games' own packed captures, and Adji-Boto's
    /// exact mask of captures, are proven beside them:
    /// `games/adjito/packed/tests.rs`, `games/adjiboto/packed/tests.rs`.)
    fn exits_agree_on<G: Game, W: Word>(pits: [u8; MAX_PITS]) -> u64 {
        let pos = Position {
            pits,
            side: 0,
            opening: 0,
        };
        let sowings: Vec<_> = G::legal_moves(&pos)
            .iter()
            .filter(|m| !m.is_pass())
            .collect();
        let mut want: Vec<(u8, W)> = sowings
            .iter()
            .map(|&mv| G::play_unchecked(&pos, mv))
            .filter(|p| p.captured > 0)
            .map(|p| (p.captured, pack::<G, W>(&p.pos.pits)))
            .collect();
        let mut got = Vec::new();
        let quiet = exits::<G, W>(pack::<G, W>(&pits), &pits, |v, c| got.push((v, c)));
        want.sort_unstable();
        got.sort_unstable();
        let expect = (!sowings.is_empty()).then(|| (sowings.len() - want.len()) as u8);
        assert_eq!((quiet, &got), (expect, &want), "{:?} {pits:?}", G::ID);
        sowings.len() as u64
    }

    /// [`exits_agree_on`] on every main-phase position of levels
    /// `levels`, and on boards with up to `top` seeds in one pit (laps),
    /// that pack into `W`; the sowing moves.
    fn exits_agree_with_sowing<G: Game, W: Word>(
        levels: std::ops::RangeInclusive<u32>,
        top: u8,
    ) -> u64 {
        let mut moves = 0;
        for_each_board::<G, W>(levels, top, |pits| moves += exits_agree_on::<G, W>(pits));
        moves
    }

    #[test]
    fn adjito_exits_agree_with_sowing_on_every_move_to_level_13() {
        // 16,162,224 moves of levels 0-13, and laps (11 seeds in a pit or
        // more, up to the 31 of the largest level built).
        assert!(exits_agree_with_sowing::<Adjito, u64>(0..=13, 31) > 16_000_000);
    }

    #[test]
    fn adjito_exits_agree_with_sowing_under_every_reading() {
        let default = exits_agree_with_sowing::<Adjito, u64>(0..=11, 31);
        let reach = exits_agree_with_sowing::<AdjitoMustReach, u64>(0..=11, 31);
        let slam = exits_agree_with_sowing::<AdjitoSlamForbidden, u64>(0..=11, 31);
        assert!(reach > 1_000_000 && reach < default, "{reach} {default}");
        assert!(slam > 1_000_000 && slam < default, "{slam} {default}");
    }

    /// In 128 bits: every move of small levels, and boards with a pit of
    /// up to the game's every seed (48, 100; beyond 64 bits from 32 and
    /// 64), under each Adjito reading.
    #[test]
    fn wide_exits_agree_with_sowing_up_to_every_seed() {
        assert!(exits_agree_with_sowing::<Adjito, u128>(0..=9, 48) > 100_000);
        assert!(exits_agree_with_sowing::<AdjitoMustReach, u128>(0..=8, 48) > 10_000);
        assert!(exits_agree_with_sowing::<AdjitoSlamForbidden, u128>(0..=8, 48) > 10_000);
        assert!(exits_agree_with_sowing::<AdjiBoto, u128>(0..=11, 100) > 100_000);
    }

    #[test]
    fn adjiboto_exits_agree_with_sowing_on_every_move_to_level_16() {
        // 9,806,280 moves of levels 0-16, and laps (11 seeds in a pit or more).
        assert!(exits_agree_with_sowing::<AdjiBoto, u64>(0..=16, 43) > 9_000_000);
    }
}
