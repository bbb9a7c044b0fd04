//! The harness of the exhaustive tests that prove each game's packed
//! fast paths equal to play (`adjito/packed/tests.rs`,
//! `adjiboto/packed/tests.rs`): the boards they walk, and the packed
//! capture checked against every legal sowing move of a board.

use crate::game::{Game, Position, MAX_PITS};
use crate::games::packed::{pack, packs, rot, Word};
use crate::index::{boards, level_size};

/// Calls `visit` on every main-phase board of levels `levels`, and on boards
/// with up to `top` seeds in one pit (laps), that pack into `W`.
pub(crate) fn for_each_board<G: Game, W: Word>(
    levels: std::ops::RangeInclusive<u32>,
    top: u8,
    mut visit: impl FnMut([u8; MAX_PITS]),
) {
    for n in levels {
        let size = level_size(n as usize, G::PITS);
        for (_, pits) in boards(0..size, n as usize, G::PITS) {
            visit(pits);
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
                        visit(pits);
                    }
                }
            }
        }
    }
}

/// The packed capture ([`crate::games::packed_capture_checked`], the
/// child's rows swapped) agrees with playing every legal sowing move of
/// `pits`. Returns the moves and, of them, the captures.
fn captures_agree_on<G: Game, W: Word>(pits: [u8; MAX_PITS]) -> (u64, usize) {
    let pos = Position {
        pits,
        side: 0,
        opening: 0,
    };
    let (mut moves, mut captures) = (0, 0);
    for mv in G::legal_moves(&pos).iter().filter(|m| !m.is_pass()) {
        let played = G::play_unchecked(&pos, mv);
        let want = (played.captured > 0).then(|| (played.captured, pack::<G, W>(&played.pos.pits)));
        let got =
            crate::games::packed_capture_checked::<G, W>(pack::<G, W>(&pits), &pits, mv.pit())
                .map(|(v, y)| (v, rot::<G, W>(y)));
        assert_eq!(got, want, "{:?} {pits:?} pit {}", G::ID, mv.pit());
        moves += 1;
        captures += usize::from(want.is_some());
    }
    (moves, captures)
}

/// [`captures_agree_on`] on every board of [`for_each_board`], and
/// `also(board, captures)` for what a game checks besides; the moves.
pub(crate) fn captures_agree_with_sowing<G: Game, W: Word>(
    levels: std::ops::RangeInclusive<u32>,
    top: u8,
    mut also: impl FnMut(&[u8; MAX_PITS], usize),
) -> u64 {
    let mut moves = 0;
    for_each_board::<G, W>(levels, top, |pits| {
        let (m, captures) = captures_agree_on::<G, W>(pits);
        also(&pits, captures);
        moves += m;
    });
    moves
}
