//! Adji-Boto's packed fast paths ([`super`]) proven equal to play on
//! every move of every position of small levels, and of boards with
//! laps: the packed captures, the mask of captures exact, and the packed
//! capture test ([`super::taken_fields`]) the game's on every count; and
//! the closed form of its sowing ([`crate::adjiboto::sowing`]) proven
//! equal to the board sown.

use crate::game::MAX_PITS;
use crate::games::packed::tests::captures_agree_with_sowing;
use crate::games::packed::{pit_bits, Word};
use crate::AdjiBoto;

/// The mask of captures of `pits` ([`super::moves`]) is exact: it names
/// as many moves as play finds captures (a superset would be only
/// slower, but the mask is meant to be the test itself).
fn mask_is_exact(pits: &[u8; MAX_PITS], captures: usize) {
    let caps = super::moves(pits).1.count_ones() as usize;
    assert_eq!(caps, captures, "capture mask of {pits:?}");
}

#[test]
fn adjiboto_captures_agree_with_sowing_on_every_move_to_level_16() {
    // 9,806,280 moves of levels 0-16, and laps (11 seeds in a pit or more).
    assert!(captures_agree_with_sowing::<AdjiBoto, u64>(0..=16, 43, mask_is_exact) > 9_000_000);
}

/// In 128 bits: every move of small levels, and boards with a pit of up
/// to the game's every seed (100; beyond 64 bits from 64).
#[test]
fn adjiboto_wide_captures_agree_with_sowing_up_to_every_seed() {
    assert!(captures_agree_with_sowing::<AdjiBoto, u128>(0..=11, 100, mask_is_exact) > 100_000);
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

/// The closed form of the sowing ([`crate::adjiboto::sowing`]) is the
/// game's sowing: the last pit, and the count that decides the capture.
#[test]
fn adjiboto_closed_form_sowing_is_the_board_sown() {
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
