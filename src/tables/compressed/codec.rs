//! The codec of a compressed level's blocks: a reversible transform of
//! the value bytes ([`Transform`]) followed by zstd (the `zstd` crate),
//! one independent zstd frame per block. This module owns turning one
//! block of value bytes into its stored bytes and back; the file layout
//! around the blocks is [`super::format`]'s.
//!
//! Transforms work on one block at a time, so that a probe decodes one
//! block alone: a block of entries `first .. first + len` of level `n`
//! needs only `first`, `n` and the game's pits.

use std::cell::RefCell;

use crate::game::MAX_PITS;
use crate::index::boards;

/// A reversible map of a block's value bytes to the bytes zstd sees, so
/// that the bytes it sees concentrate on few symbols. All arithmetic is
/// wrapping on bytes, so every byte (the loop-sensitive mark −128
/// included) maps back exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transform {
    /// The value bytes as they are.
    None,
    /// Each value minus the previous value of the block (the first as it
    /// is): neighbours in rank order differ by one seed moved.
    Delta,
    /// Each value minus the seed difference of the board (seeds on the
    /// mover's row minus the opponent's row, in the value's units):
    /// needs the boards of the block, stepped in rank order from one
    /// unrank ([`crate::index::boards`]).
    Sides,
    /// [`Transform::Sides`], then [`Transform::Delta`] of the residuals.
    SidesDelta,
    /// Don't-care entries ([`crate::tables::dontcare`]): where a capture
    /// is best, the stored byte is any `s ≤ E` (the capture bound), chosen
    /// by the writer to compress well; the value is `max(E, s)`, so a
    /// block decodes to stored bytes that are read through the levels
    /// below. The bytes themselves are stored as they are.
    DontCare,
}

impl Transform {
    /// Every transform, for measurement.
    pub const ALL: [Transform; 4] = [
        Transform::None,
        Transform::Delta,
        Transform::Sides,
        Transform::SidesDelta,
    ];

    /// Its code in a file header.
    pub const fn code(self) -> u8 {
        match self {
            Transform::None => 0,
            Transform::Delta => 1,
            Transform::Sides => 2,
            Transform::SidesDelta => 3,
            Transform::DontCare => 4,
        }
    }

    /// The transform of a header code.
    pub const fn from_code(c: u8) -> Option<Transform> {
        match c {
            0 => Some(Transform::None),
            1 => Some(Transform::Delta),
            2 => Some(Transform::Sides),
            3 => Some(Transform::SidesDelta),
            4 => Some(Transform::DontCare),
            _ => None,
        }
    }

    /// Its name (for reports).
    pub const fn name(self) -> &'static str {
        match self {
            Transform::None => "none",
            Transform::Delta => "delta",
            Transform::Sides => "sides",
            Transform::SidesDelta => "sides+delta",
            Transform::DontCare => "dontcare",
        }
    }

    /// Whether it reads the boards.
    const fn sides(self) -> bool {
        matches!(self, Transform::Sides | Transform::SidesDelta)
    }

    /// Whether it takes differences of neighbours.
    const fn delta(self) -> bool {
        matches!(self, Transform::Delta | Transform::SidesDelta)
    }
}

/// Where a block lies: its first rank, its level and the game's pits
/// (what a transform that reads the boards needs).
#[derive(Clone, Copy, Debug)]
pub struct BlockPlace {
    /// Rank of its first entry.
    pub first: u64,
    /// Seeds on the board.
    pub level: u32,
    /// Pits of the game's board (the mover's row is the first half).
    pub pits: usize,
}

/// The seed difference of a board: mover's row minus opponent's row.
#[inline]
fn side_difference(b: &[u8; MAX_PITS], pits: usize) -> u8 {
    let half = pits / 2;
    let mine: u32 = b[..half].iter().map(|&x| x as u32).sum();
    let theirs: u32 = b[half..pits].iter().map(|&x| x as u32).sum();
    (mine as u8).wrapping_sub(theirs as u8)
}

/// Applies `t` to the value bytes `v` of the block at `at`, in place.
pub fn forward(t: Transform, at: BlockPlace, v: &mut [u8]) {
    if t.sides() {
        let end = at.first + v.len() as u64;
        for (x, (_, b)) in v
            .iter_mut()
            .zip(boards(at.first..end, at.level as usize, at.pits))
        {
            *x = x.wrapping_sub(side_difference(&b, at.pits));
        }
    }
    if t.delta() {
        for i in (1..v.len()).rev() {
            v[i] = v[i].wrapping_sub(v[i - 1]);
        }
    }
}

/// Undoes [`forward`] in place.
pub fn inverse(t: Transform, at: BlockPlace, v: &mut [u8]) {
    if t.delta() {
        for i in 1..v.len() {
            v[i] = v[i].wrapping_add(v[i - 1]);
        }
    }
    if t.sides() {
        let end = at.first + v.len() as u64;
        for (x, (_, b)) in v
            .iter_mut()
            .zip(boards(at.first..end, at.level as usize, at.pits))
        {
            *x = x.wrapping_add(side_difference(&b, at.pits));
        }
    }
}

/// The stored bytes of one block: `values` transformed, then one zstd
/// frame at `level` (with its content size).
///
/// # Errors
/// zstd's error (never seen in practice: the input is in memory).
pub fn encode_block(
    values: &[u8],
    t: Transform,
    at: BlockPlace,
    level: i32,
) -> std::io::Result<Vec<u8>> {
    let mut v = values.to_vec();
    forward(t, at, &mut v);
    thread_local! {
        static CCTX: RefCell<Option<(i32, zstd::bulk::Compressor<'static>)>> =
            const { RefCell::new(None) };
    }
    CCTX.with(|c| {
        let mut c = c.borrow_mut();
        if c.as_ref().is_none_or(|(l, _)| *l != level) {
            *c = Some((level, zstd::bulk::Compressor::new(level)?));
        }
        match c.as_mut() {
            Some((_, z)) => z.compress(&v),
            None => unreachable!("set above"),
        }
    })
}

/// Decodes one block's stored bytes into `out` (exactly its entries'
/// count of bytes): zstd, then the inverse transform. Returns a short
/// description of what is wrong on failure (the caller names the file
/// and block).
pub fn decode_block(
    stored: &[u8],
    t: Transform,
    at: BlockPlace,
    out: &mut [u8],
) -> Result<(), String> {
    thread_local! {
        static DCTX: RefCell<Option<zstd::bulk::Decompressor<'static>>> =
            const { RefCell::new(None) };
    }
    let n = DCTX.with(|d| {
        let mut d = d.borrow_mut();
        if d.is_none() {
            *d = Some(zstd::bulk::Decompressor::new().map_err(|e| e.to_string())?);
        }
        match d.as_mut() {
            Some(z) => z
                .decompress_to_buffer(stored, out)
                .map_err(|e| format!("zstd: {e}")),
            None => unreachable!("set above"),
        }
    })?;
    if n != out.len() {
        return Err(format!("decoded to {n} bytes, not {}", out.len()));
    }
    inverse(t, at, out);
    Ok(())
}

/// The most bytes zstd may need for a block of `len` bytes (a stored
/// block longer than this is corrupt).
pub fn stored_bound(len: usize) -> usize {
    zstd::zstd_safe::compress_bound(len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_transform_maps_back_every_byte() {
        let at = BlockPlace {
            first: 17,
            level: 9,
            pits: 10,
        };
        let orig: Vec<u8> = (0..3000u32).map(|i| (i * 37 % 256) as u8).collect();
        for t in Transform::ALL {
            let mut v = orig.clone();
            forward(t, at, &mut v);
            if t != Transform::None {
                assert_ne!(v, orig, "{t:?} changed nothing");
            }
            inverse(t, at, &mut v);
            assert_eq!(v, orig, "{t:?}");
            let stored = encode_block(&orig, t, at, 3).unwrap();
            let mut back = vec![0; orig.len()];
            decode_block(&stored, t, at, &mut back).unwrap();
            assert_eq!(back, orig, "{t:?} through zstd");
            assert_eq!(Transform::from_code(t.code()), Some(t));
        }
    }

    #[test]
    fn a_bad_frame_is_an_error_not_a_panic() {
        let at = BlockPlace {
            first: 0,
            level: 4,
            pits: 12,
        };
        let mut out = vec![0; 100];
        assert!(decode_block(b"not zstd", Transform::None, at, &mut out).is_err());
        let stored = encode_block(&[1; 50], Transform::None, at, 3).unwrap();
        assert!(decode_block(&stored, Transform::None, at, &mut out).is_err());
    }
}
