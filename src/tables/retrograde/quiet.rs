//! The moves of the forward pass: which sowing moves are legal and which
//! may capture, for every origin at once ([`exits`]), whether a move
//! captures, decided from the counts alone, and a capture played on the
//! packed board. The forward pass only counts quiet moves, so it sows
//! nothing for them.
//!
//! Both games' sowing is arithmetic: `s` seeds from pit `o` make full laps
//! (one seed in every pit the sowing visits) and a remainder sown one seed
//! a pit from `o + 1` on. The landing pit and the count of the pit that
//! decides the capture follow from `o`, `s` and that pit's count before
//! (docs/RULES.md §2 and §3); on a packed board the laps and the
//! remainder are two additions. Tests check both, and the legal moves,
//! against the game's code on every move of every position of small
//! levels and of boards with laps.

use super::packed::{rot, Word};
use crate::game::{Game, MAX_PITS};
use crate::games;

/// The capture made by the legal sowing move from relative pit `o` of the
/// main-phase board `pits` (packed: `x`): the seeds captured and the
/// child's packed board (the two rows swapped: the opponent moves next),
/// or `None` when the move is quiet. (The forward pass takes its captures
/// from [`exits`]; the tests check this against the game's moves.)
#[cfg(test)]
pub(super) fn capture<G: Game, W: Word>(x: W, pits: &[u8; MAX_PITS], o: usize) -> Option<(u8, W)> {
    games::packed_capture_checked::<G, W>(x, pits, o).map(|(v, y)| (v, rot::<G, W>(y)))
}

/// The forward pass's moves of the main-phase board `pits` (packed: `x`):
/// calls `on_capture(seeds taken, child)` for each legal sowing move that
/// captures (the child packed, rows swapped, as [`capture`] gives it) and
/// returns the number of the others, the quiet sowing moves; `None` when
/// no sowing move is legal (the game then passes or ends: the caller asks
/// it).
///
/// Which moves are legal, and for Adji-Boto which capture, is decided for
/// every origin at once from the counts ([`games::packed_moves`]), without a move list, so that the only loop is
/// over the moves that may capture (for Adjito, every legal move), instead
/// of a branch per move that the processor mispredicts. Adjito's
/// candidates are then decided one by one; Adji-Boto's mask is exact, so
/// its captures are only played ([`games::packed_capture`]). The tests check both against the game's moves.
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

#[cfg(test)]
mod tests {
    use super::{capture, exits};
    use crate::adjito::{AdjitoMustReach, AdjitoSlamForbidden};
    use crate::game::{Game, Position, MAX_PITS};
    use crate::index::{boards, level_size};
    use crate::tables::retrograde::packed::{pack, packs, Word};
    use crate::{AdjiBoto, Adjito};

    /// `capture` agrees with playing every legal sowing move of `pits`,
    /// and `exits` with the legal moves and those plays
    /// ([`exits_agree_on`]).
    fn agrees_on<G: Game, W: Word>(pits: [u8; MAX_PITS]) -> u64 {
        exits_agree_on::<G, W>(pits);
        let pos = Position {
            pits,
            side: 0,
            opening: 0,
        };
        let mut moves = 0;
        for mv in G::legal_moves(&pos).iter().filter(|m| !m.is_pass()) {
            let played = G::play_unchecked(&pos, mv);
            let want =
                (played.captured > 0).then(|| (played.captured, pack::<G, W>(&played.pos.pits)));
            assert_eq!(
                capture::<G, W>(pack::<G, W>(&pits), &pits, mv.pit()),
                want,
                "{:?} {pits:?} pit {}",
                G::ID,
                mv.pit()
            );
            moves += 1;
        }
        moves
    }

    /// Every move of every main-phase position of levels `levels`, and of
    /// boards with up to `top` seeds in one pit (laps), that pack into `W`.
    fn agrees_with_sowing<G: Game, W: Word>(levels: std::ops::RangeInclusive<u32>, top: u8) -> u64 {
        let mut moves = 0;
        for n in levels {
            let size = level_size(n as usize, G::PITS);
            for (_, pits) in boards(0..size, n as usize, G::PITS) {
                moves += agrees_on::<G, W>(pits);
            }
        }
        for s in 2..=top {
            for o in 0..G::HALF {
                for f in 0..G::PITS {
                    for (g, k) in [(1, 2), (3, 1), (5, 4), (7, 3)] {
                        let mut pits = [0u8; MAX_PITS];
                        pits[o] = s;
                        pits[f] += 1;
                        pits[(f + g) % G::PITS] += k;
                        if packs::<G, W>(pits.iter().map(|&x| x as u32).sum::<u32>()) {
                            moves += agrees_on::<G, W>(pits);
                        }
                    }
                }
            }
        }
        moves
    }

    /// `exits` agrees with the game's legal moves and with playing each:
    /// `None` when no sowing move is legal, else the captures (seeds taken
    /// and child) and the number of quiet sowing moves; Adji-Boto's mask of
    /// captures is exact (a superset would be only slower, but the mask is
    /// meant to be the test itself).
    fn exits_agree_on<G: Game, W: Word>(pits: [u8; MAX_PITS]) {
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
        if G::ID == crate::game::GameId::AdjiBoto {
            let caps = crate::games::adjiboto::packed::moves(&pits).1.count_ones() as usize;
            assert_eq!(caps, want.len(), "capture mask of {pits:?}");
        }
    }

    #[test]
    fn adjito_captures_and_moves_agree_with_sowing_on_every_move_to_level_13() {
        // 16,162,224 moves of levels 0-13, and laps (11 seeds in a pit or
        // more, up to the 31 of the largest level built).
        assert!(agrees_with_sowing::<Adjito, u64>(0..=13, 31) > 16_000_000);
    }

    #[test]
    fn adjito_captures_and_moves_agree_with_sowing_under_every_reading() {
        let default = agrees_with_sowing::<Adjito, u64>(0..=11, 31);
        let reach = agrees_with_sowing::<AdjitoMustReach, u64>(0..=11, 31);
        let slam = agrees_with_sowing::<AdjitoSlamForbidden, u64>(0..=11, 31);
        assert!(reach > 1_000_000 && reach < default, "{reach} {default}");
        assert!(slam > 1_000_000 && slam < default, "{slam} {default}");
    }

    /// In 128 bits: every move of small levels, and boards with a pit of
    /// up to the game's every seed (48, 100; beyond 64 bits from 32 and
    /// 64), under each Adjito reading.
    #[test]
    fn wide_captures_and_moves_agree_with_sowing_up_to_every_seed() {
        assert!(agrees_with_sowing::<Adjito, u128>(0..=9, 48) > 100_000);
        assert!(agrees_with_sowing::<AdjitoMustReach, u128>(0..=8, 48) > 10_000);
        assert!(agrees_with_sowing::<AdjitoSlamForbidden, u128>(0..=8, 48) > 10_000);
        assert!(agrees_with_sowing::<AdjiBoto, u128>(0..=11, 100) > 100_000);
    }

    /// The closed forms of the sowings ([`landing`], [`sowing`]) are the
    /// games' sowing: the last pit, and the count that decides the capture.
    #[test]
    fn closed_form_sowings_are_the_boards_sown() {
        for s in 1..=47u8 {
            for o in 0..6 {
                let mut pits = [0u8; MAX_PITS];
                pits[o] = s;
                pits[(o + 5) % 12] += 2;
                let l = crate::adjito::landing(&pits, o);
                let mut b = pits;
                b[o] = 0;
                // Sow by hand: one seed a pit, the origin skipped.
                let (mut j, mut left) = (o, s);
                while left > 0 {
                    j = (j + 1) % 12;
                    if j != o {
                        b[j] += 1;
                        left -= 1;
                    }
                }
                assert_eq!(l.last, j, "{pits:?} {o}");
                let opp: u32 = b[6..12].iter().map(|&x| x as u32).sum();
                assert_eq!(l.opp_after, opp);
                assert_eq!(l.facing, (j < 6).then(|| (11 - j, b[11 - j] as u32)));
            }
        }
        for s in 2..=99u8 {
            for o in 0..5 {
                let mut pits = [0u8; MAX_PITS];
                pits[o] = s;
                pits[(o + 3) % 10] += 1;
                let w = crate::adjiboto::sowing(&pits, o);
                let mut b = pits;
                b[o] = 1;
                let (mut j, mut left) = (o, s - 1);
                while left > 0 {
                    j = (j + 1) % 10;
                    b[j] += 1;
                    left -= 1;
                }
                assert_eq!(
                    (w.last, w.q, w.v),
                    (j, (j + 1) % 10, b[(j + 1) % 10] as usize)
                );
            }
        }
    }

    #[test]
    fn adjiboto_captures_and_moves_agree_with_sowing_on_every_move_to_level_16() {
        // 9,806,280 moves of levels 0-16, and laps (11 seeds in a pit or more).
        assert!(agrees_with_sowing::<AdjiBoto, u64>(0..=16, 43) > 9_000_000);
    }
}
