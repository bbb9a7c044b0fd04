//! Whether a move captures, decided from the counts alone: the forward
//! pass only counts quiet moves, so it sows only the captures.
//!
//! Both games' sowing is arithmetic: `s` seeds from pit `o` make full laps
//! (one seed in every pit the sowing visits) and a remainder sown one seed
//! a pit from `o + 1` on. The landing pit and the count of the pit that
//! decides the capture follow from `o`, `s` and that pit's count before
//! (the README's rules §2 and §3). Tests check this against the sowing
//! code on every move of every position of small levels.

use crate::game::{Game, GameId, MAX_PITS};

/// Whether sowing the legal move from relative pit `o` of `pits` (a
/// main-phase position, the mover's row first) captures.
#[inline]
pub(super) fn captures<G: Game>(pits: &[u8; MAX_PITS], o: usize) -> bool {
    match G::ID {
        GameId::Adjito => adjito_captures(pits, o),
        GameId::AdjiBoto => adjiboto_captures(pits, o),
    }
}

/// Adjito: `s` seeds sown over the 11 pits other than the origin; the
/// last lands on the mover's row and the facing pit then holds `v > 0`
/// seeds, fewer than the opponent's whole row (no capturing everything).
#[inline]
fn adjito_captures(pits: &[u8; MAX_PITS], o: usize) -> bool {
    const N: usize = 12;
    const H: usize = 6;
    let s = pits[o] as usize;
    let (laps, r) = (s / 11, s % 11);
    // The last seed's distance from the origin (1..=11; the origin skipped).
    let d = if r == 0 { 11 } else { r };
    let last = (o + d) % N;
    if last >= H {
        return false;
    }
    // The facing pit is on the opponent's row, after the origin: it got a
    // remainder seed when it is within `o + 1 ..= o + r`.
    let f = N - 1 - last;
    let v = pits[f] as usize + laps + usize::from(f <= o + r);
    let opp: usize = pits[H..N].iter().map(|&x| x as usize).sum();
    // Remainder seeds on the opponent's row: pits 6 ..= min(o + r, 11).
    let opp_after = opp + H * laps + (o + r).saturating_sub(H - 1).min(H);
    v > 0 && opp_after > v
}

/// Adji-Boto: `m = s − 1` seeds sown with laps through the origin, which
/// keeps one seed; the pit after the last one then holds 1, 3 or 5.
#[inline]
fn adjiboto_captures(pits: &[u8; MAX_PITS], o: usize) -> bool {
    const N: usize = 10;
    let m = pits[o] as usize - 1;
    let (laps, r) = (m / N, m % N);
    // The last seed lands in pit o + r (o itself after whole laps), so the
    // deciding pit is o + r + 1: the origin (one seed plus the laps) when
    // r = 9, else a pit the remainder did not reach.
    let q = (o + r + 1) % N;
    let v = if q == o {
        1 + laps
    } else {
        pits[q] as usize + laps
    };
    matches!(v, 1 | 3 | 5)
}

#[cfg(test)]
mod tests {
    use super::captures;
    use crate::game::{Game, Position};
    use crate::index::boards;
    use crate::index::level_size;
    use crate::{AdjiBoto, Adjito};

    /// Every legal sowing move of every main-phase position of levels
    /// `levels`: `captures` agrees with playing the move.
    fn agrees_with_sowing<G: Game>(levels: std::ops::RangeInclusive<u32>) -> u64 {
        let mut moves = 0;
        for n in levels {
            let size = level_size(n as usize, G::PITS);
            for (_, pits) in boards(0..size, n as usize, G::PITS) {
                let pos = Position {
                    pits,
                    side: 0,
                    opening: 0,
                };
                for mv in G::legal_moves(&pos).iter().filter(|m| !m.is_pass()) {
                    let played = G::play_unchecked(&pos, mv);
                    assert_eq!(
                        captures::<G>(&pits, mv.pit()),
                        played.captured > 0,
                        "{:?} level {n} {pits:?} pit {}",
                        G::ID,
                        mv.pit()
                    );
                    moves += 1;
                }
            }
        }
        moves
    }

    #[test]
    fn adjito_capture_test_agrees_with_sowing_on_every_move_to_level_13() {
        // Laps need 11 seeds in a pit; boards with up to 48 in one pit below.
        // 16,162,224 moves.
        assert!(agrees_with_sowing::<Adjito>(0..=13) > 16_000_000);
        for s in 11..=48u8 {
            for o in 0..6 {
                for f in 0..12 {
                    let mut pits = [0u8; crate::game::MAX_PITS];
                    pits[o] = s;
                    pits[f] += 1;
                    pits[(f + 5) % 12] += 2;
                    let pos = Position {
                        pits,
                        side: 0,
                        opening: 0,
                    };
                    for mv in Adjito::legal_moves(&pos).iter() {
                        let played = Adjito::play_unchecked(&pos, mv);
                        assert_eq!(captures::<Adjito>(&pits, mv.pit()), played.captured > 0);
                    }
                }
            }
        }
    }

    #[test]
    fn adjiboto_capture_test_agrees_with_sowing_on_every_move_to_level_16() {
        // Laps need 11 seeds in a pit; boards with up to 100 in one pit below.
        // 9,806,280 moves.
        assert!(agrees_with_sowing::<AdjiBoto>(0..=16) > 9_000_000);
        for s in 2..=100u8 {
            for o in 0..5 {
                for f in 0..10 {
                    let mut pits = [0u8; crate::game::MAX_PITS];
                    pits[o] = s;
                    pits[f] += 1;
                    pits[(f + 3) % 10] += 4;
                    let pos = Position {
                        pits,
                        side: 0,
                        opening: 0,
                    };
                    for mv in AdjiBoto::legal_moves(&pos).iter().filter(|m| !m.is_pass()) {
                        let played = AdjiBoto::play_unchecked(&pos, mv);
                        assert_eq!(captures::<AdjiBoto>(&pits, mv.pit()), played.captured > 0);
                    }
                }
            }
        }
    }
}
