//! Adjito's packed fast paths ([`super`]) proven equal to play on every
//! move of every position of small levels, and of boards with laps,
//! under every reading of its rule set; and the closed form of its
//! sowing ([`crate::adjito::landing`]) proven equal to the board sown.

use crate::adjito::{AdjitoMustReach, AdjitoSlamForbidden};
use crate::game::MAX_PITS;
use crate::games::packed::tests::captures_agree_with_sowing;
use crate::Adjito;

#[test]
fn adjito_captures_agree_with_sowing_on_every_move_to_level_13() {
    // 16,162,224 moves of levels 0-13, and laps (11 seeds in a pit or
    // more, up to the 31 of the largest level built).
    assert!(captures_agree_with_sowing::<Adjito, u64>(0..=13, 31, |_, _| {}) > 16_000_000);
}

#[test]
fn adjito_captures_agree_with_sowing_under_every_reading() {
    let default = captures_agree_with_sowing::<Adjito, u64>(0..=11, 31, |_, _| {});
    let reach = captures_agree_with_sowing::<AdjitoMustReach, u64>(0..=11, 31, |_, _| {});
    let slam = captures_agree_with_sowing::<AdjitoSlamForbidden, u64>(0..=11, 31, |_, _| {});
    assert!(reach > 1_000_000 && reach < default, "{reach} {default}");
    assert!(slam > 1_000_000 && slam < default, "{slam} {default}");
}

/// In 128 bits: every move of small levels, and boards with a pit of
/// up to the game's every seed (48; beyond 64 bits from 32), under each
/// reading.
#[test]
fn adjito_wide_captures_agree_with_sowing_up_to_every_seed() {
    assert!(captures_agree_with_sowing::<Adjito, u128>(0..=9, 48, |_, _| {}) > 100_000);
    assert!(captures_agree_with_sowing::<AdjitoMustReach, u128>(0..=8, 48, |_, _| {}) > 10_000);
    assert!(captures_agree_with_sowing::<AdjitoSlamForbidden, u128>(0..=8, 48, |_, _| {}) > 10_000);
}

/// The closed form of the sowing ([`crate::adjito::landing`]) is the
/// game's sowing: the last pit, and the counts that decide the capture.
#[test]
fn adjito_closed_form_sowing_is_the_board_sown() {
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
}
