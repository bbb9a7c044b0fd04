//! Properties of the packed boards (`crate::games::packed`) against the
//! unpacked ones, the ranks and the builder's un-moves, on random boards
//! of every level that packs.

use super::frontier::Walker;
use super::preds::for_each_pred;
use crate::game::{Game, MAX_PITS};
use crate::games::packed::rank_packed;
use crate::games::packed::{pack, packs, rot, unpack, Word};
use crate::index::rank;
use crate::{AdjiBoto, Adjito};
use proptest::prelude::*;

/// A board of `G` with `big` seeds in pit `at` and, from `rest`, at
/// most `total − big` more in the others.
fn board<G: Game>(big: u8, at: usize, rest: &[u8], total: u32) -> [u8; MAX_PITS] {
    let mut b = [0u8; MAX_PITS];
    b[at % G::PITS] = big;
    let mut left = total - big as u32;
    for (j, &x) in rest.iter().enumerate().take(G::PITS) {
        if j != at % G::PITS {
            let v = (x as u32).min(left);
            b[j] = v as u8;
            left -= v;
        }
    }
    b
}

/// The board with its two rows swapped.
fn swapped<G: Game>(b: &[u8; MAX_PITS]) -> [u8; MAX_PITS] {
    let mut s = [0u8; MAX_PITS];
    let h = G::PITS / 2;
    for j in 0..G::PITS {
        s[j] = b[(j + h) % G::PITS];
    }
    s
}

/// `b` packed into `W`: round-trips, swaps rows, ranks as the index
/// does, and the walker reaches it by its rank.
fn packed_ok<G: Game, W: Word>(b: &[u8; MAX_PITS]) -> Result<(), TestCaseError> {
    let n: u32 = b.iter().map(|&x| x as u32).sum();
    prop_assert!(packs::<G, W>(n));
    let x = pack::<G, W>(b);
    prop_assert_eq!(&unpack::<G, W>(x), b);
    prop_assert_eq!(unpack::<G, W>(rot::<G, W>(x)), swapped::<G>(b));
    let r = rank(b, G::PITS);
    prop_assert_eq!(rank_packed::<G, W>(x), r);
    prop_assert_eq!(Walker::<G, W>::new(n, r).advance(r), x);
    Ok(())
}

/// `b` (of a level that packs into 64 bits) gives the same boards,
/// rotations, ranks and predecessors in both words.
fn words_agree<G: Game>(b: &[u8; MAX_PITS]) -> Result<(), TestCaseError> {
    packed_ok::<G, u64>(b)?;
    packed_ok::<G, u128>(b)?;
    let (x, y) = (pack::<G, u64>(b), pack::<G, u128>(b));
    let (mut p, mut q) = (Vec::new(), Vec::new());
    for_each_pred::<G, u64>(x, |r, c| p.push((r, unpack::<G, u64>(c))));
    for_each_pred::<G, u128>(y, |r, c| q.push((r, unpack::<G, u128>(c))));
    prop_assert_eq!(p, q);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn adjito_boards_agree_in_both_words(
        big in 0u8..=31, at in 0usize..12, rest in prop::collection::vec(0u8..=31, 12)
    ) {
        words_agree::<Adjito>(&board::<Adjito>(big, at, &rest, 31))?;
    }

    #[test]
    fn adjiboto_boards_agree_in_both_words(
        big in 0u8..=63, at in 0usize..10, rest in prop::collection::vec(0u8..=63, 10)
    ) {
        words_agree::<AdjiBoto>(&board::<AdjiBoto>(big, at, &rest, 63))?;
    }

    /// Boards beyond 64 bits (a pit of 32 to 48 seeds) in 128.
    #[test]
    fn adjito_boards_with_a_pit_of_32_to_48_round_trip_in_128_bits(
        big in 32u8..=48, at in 0usize..12, rest in prop::collection::vec(0u8..=16, 12)
    ) {
        let b = board::<Adjito>(big, at, &rest, 48);
        prop_assert!(!packs::<Adjito, u64>(b.iter().map(|&x| x as u32).sum()));
        packed_ok::<Adjito, u128>(&b)?;
    }

    /// Boards beyond 64 bits (a pit of 64 to 100 seeds) in 128.
    #[test]
    fn adjiboto_boards_with_a_pit_of_64_to_100_round_trip_in_128_bits(
        big in 64u8..=100, at in 0usize..10, rest in prop::collection::vec(0u8..=36, 10)
    ) {
        let b = board::<AdjiBoto>(big, at, &rest, 100);
        prop_assert!(!packs::<AdjiBoto, u64>(b.iter().map(|&x| x as u32).sum()));
        packed_ok::<AdjiBoto, u128>(&b)?;
    }
}
