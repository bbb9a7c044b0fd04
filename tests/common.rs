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

/// Overwrites payload bytes of a table file (`(offset from the payload's
/// start, byte)` pairs) and recomputes both checksums (format 3: payload
/// CRC at bytes 48..52, header CRC of 0..60 at 60..64), so that only the
/// checks of the values themselves can find the damage.
pub fn forge(path: &std::path::Path, edits: &[(usize, u8)]) {
    let mut b = std::fs::read(path).unwrap();
    for &(i, v) in edits {
        b[64 + i] = v;
    }
    let payload = crc32fast::hash(&b[64..]);
    b[48..52].copy_from_slice(&payload.to_le_bytes());
    let header = crc32fast::hash(&b[0..60]);
    b[60..64].copy_from_slice(&header.to_le_bytes());
    std::fs::write(path, b).unwrap();
}
