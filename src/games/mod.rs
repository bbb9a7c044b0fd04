//! Each game in one home: everything that knows a game's rules.
//!
//! - [`adjito`], [`adjiboto`]: the board, the rule sets' knobs, play (sowing
//!   written once, in closed form beside it), the end of the game, the
//!   un-moves; and in `packed` beside each, the fast paths that the table
//!   builder runs on packed boards (legal and capturing moves of every
//!   origin at once, captures, un-moves), built on the same rule functions
//!   and proven equal to play by exhaustive tests beside them
//!   (`adjito/packed/tests.rs`, `adjiboto/packed/tests.rs`) on every
//!   position of small levels under every rule set (the un-moves, with
//!   the builder's ranks, in `tables/retrograde/preds.rs`);
//! - [`packed`]: the packed board word ([`packed::Word`]) that the fast
//!   paths and the builder share, and (in its tests) the harness of those
//!   exhaustive tests;
//! - the functions below: where a generic caller's `G` becomes one game's
//!   fast path. Outside this folder, code asks the [`Game`] trait or these,
//!   never `G::ID`.

pub mod adjiboto;
pub mod adjito;
pub(crate) mod packed;

use crate::game::{Game, GameId, MAX_PITS};
use packed::Word;

/// Pits of `game`'s board, as its home says ([`Game::PITS`]): for code
/// that holds a run-time game (a table header, a file name).
pub const fn pits(game: GameId) -> usize {
    match game {
        GameId::Adjito => adjito::Adjito::PITS,
        GameId::AdjiBoto => adjiboto::AdjiBoto::PITS,
    }
}

/// Seeds of a whole `game` ([`Game::TOTAL`]): no level is larger.
pub const fn total(game: GameId) -> u32 {
    match game {
        GameId::Adjito => adjito::Adjito::TOTAL,
        GameId::AdjiBoto => adjiboto::AdjiBoto::TOTAL,
    }
}

/// The legal sowing moves of the main-phase board `pits` (bit `o` for
/// origin `o`) and, among them, those that may capture (for Adjito every
/// legal move, decided by [`packed_capture`]; for Adji-Boto exactly the
/// captures).
#[inline]
pub(crate) fn packed_moves<G: Game>(pits: &[u8; MAX_PITS]) -> (u32, u32) {
    match G::ID {
        GameId::Adjito => adjito::packed::moves::<G>(pits),
        GameId::AdjiBoto => adjiboto::packed::moves(pits),
    }
}

/// The capture of the move from `o`, one of the candidates of
/// [`packed_moves`], played on the packed board `x`: the seeds taken and
/// the board after the move (rows not yet swapped), or `None` when it
/// captures nothing.
#[inline]
pub(crate) fn packed_capture<G: Game, W: Word>(
    x: W,
    pits: &[u8; MAX_PITS],
    o: usize,
) -> Option<(u8, W)> {
    match G::ID {
        GameId::Adjito => adjito::packed::capture::<G, W>(x, pits, o),
        GameId::AdjiBoto => Some(adjiboto::packed::take::<G, W>(
            x,
            &adjiboto::sowing(pits, o),
        )),
    }
}

/// [`packed_capture`] for any legal move `o`, not only a candidate (the
/// tests' form): `None` for a move that [`packed_moves`] does not name.
#[cfg(test)]
pub(crate) fn packed_capture_checked<G: Game, W: Word>(
    x: W,
    pits: &[u8; MAX_PITS],
    o: usize,
) -> Option<(u8, W)> {
    let (_, candidates) = packed_moves::<G>(pits);
    (candidates >> o & 1 != 0)
        .then(|| packed_capture::<G, W>(x, pits, o))
        .flatten()
}

/// Calls `f(parent)` for every quiet predecessor of the packed board
/// `after` (in the terms of the mover who left it), as
/// [`Game::for_each_quiet_predecessor`] gives them.
#[inline]
pub(crate) fn packed_preds<G: Game, W: Word>(after: W, f: &mut impl FnMut(W)) {
    match G::ID {
        GameId::Adjito => adjito::packed::preds::<G, W>(after, f),
        GameId::AdjiBoto => adjiboto::packed::preds::<G, W>(after, f),
    }
}
