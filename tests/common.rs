//! Helpers shared by the integration tests.
#![allow(dead_code)]

use adji::game::{Game, State};

/// A deterministic LCG.
pub fn lcg(s: &mut u64) -> u64 {
    *s = s
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    *s >> 33
}

/// Plays `choices` (each taken modulo the number of legal moves) from the
/// start, stopping early when the game is over; captures go to the stores.
pub fn playout<G: Game>(choices: &[u8]) -> State {
    let mut st = State {
        pos: G::start(),
        stores: [0, 0],
    };
    for &c in choices {
        let ml = G::legal_moves(&st.pos);
        if ml.is_empty() {
            break;
        }
        st = st.play::<G>(ml.get(c as usize % ml.len())).0;
    }
    st
}
