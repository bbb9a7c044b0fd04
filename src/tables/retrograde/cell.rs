//! The state of a level under construction: one 4-byte [`Cell`] per
//! position, its fields and flags, and the atomic operations on it. The
//! lowest module of the builder: it uses no other.

use std::sync::atomic::{AtomicU32, Ordering, Ordering::Relaxed};

/// Counter bits of the `b` byte: unsettled quiet moves.
pub(super) const CNT: u8 = 0x0F;
/// In W (`lo` known at the current threshold or above).
pub(super) const IN_W: u8 = 0x10;
/// In L (`hi` known).
pub(super) const IN_L: u8 = 0x20;
/// Pending W event (a frontier spilled into the cells).
pub(super) const PEND_W: u8 = 0x40;
/// Pending L event.
pub(super) const PEND_L: u8 = 0x80;
/// No exit (`E` of a position whose every move is quiet).
pub(super) const NONE: i8 = i8::MIN;

/// The state of one position, one atomic word of three bytes:
///
/// `a` (bits 0–7) holds `E_lo` (the best exit, raised by settled quiet
/// children's `−hi`), later `lo`; `c` (bits 16–23) holds `E_hi` (raised by
/// their `−lo`), later `hi`; `b` (bits 8–15) the count of unsettled quiet
/// moves and the flags. Every change is one atomic operation on the word,
/// so an update that reads a field and writes another sees them together.
#[repr(transparent)]
pub(super) struct Cell(AtomicU32);

const _: () = assert!(std::mem::size_of::<Cell>() == 4);

/// Shift of the `b` byte (counter and flags) in a cell word.
const B_SHIFT: u32 = 8;

/// The word of a cell with these fields (the forward pass writes cells as
/// plain `u32`s before any atomic access).
#[inline]
pub(super) fn cell_word(a: i8, b: u8, c: i8) -> u32 {
    u32::from_le_bytes([a as u8, b, c as u8, 0])
}

/// The fields of a cell word.
#[inline]
pub(super) fn cell_fields(w: u32) -> (i8, u8, i8) {
    let [a, b, c, _] = w.to_le_bytes();
    (a as i8, b, c as i8)
}

/// The cells of `words`, for shared atomic access.
pub(super) fn cells(words: &mut [u32]) -> &[Cell] {
    // SAFETY: Cell is a transparent AtomicU32, which has the size and
    // alignment of u32, and the exclusive borrow guarantees no other access
    // for the returned lifetime.
    unsafe { &*(words as *mut [u32] as *const [Cell]) }
}

impl Cell {
    /// The cell's word (fields by [`cell_fields`]).
    #[inline]
    pub(super) fn word(&self) -> u32 {
        self.0.load(Relaxed)
    }

    /// The counter and flags.
    #[inline]
    pub(super) fn flags(&self) -> u8 {
        cell_fields(self.word()).1
    }

    /// `a` (`E_lo`, later `lo`) and `c` (`E_hi`, later `hi`).
    #[inline]
    pub(super) fn bounds(&self) -> (i8, i8) {
        let (a, _, c) = cell_fields(self.word());
        (a, c)
    }

    /// Sets flag `bits`; returns the flags before.
    #[inline]
    pub(super) fn set_flags(&self, bits: u8, order: Ordering) -> u8 {
        (self.0.fetch_or((bits as u32) << B_SHIFT, order) >> B_SHIFT) as u8
    }

    /// Clears flag `bits`; returns the flags before.
    #[inline]
    pub(super) fn clear_flags(&self, bits: u8, order: Ordering) -> u8 {
        (self.0.fetch_and(!((bits as u32) << B_SHIFT), order) >> B_SHIFT) as u8
    }

    /// Applies `f` to the fields atomically (a compare-and-swap loop); `f`
    /// returns the new fields, or `None` to leave the cell as it is.
    /// Returns the fields before, if `f` changed them.
    #[inline]
    pub(super) fn update(
        &self,
        mut f: impl FnMut(i8, u8, i8) -> Option<(i8, u8, i8)>,
    ) -> Option<u32> {
        self.0
            .fetch_update(Relaxed, Relaxed, |w| {
                let (a, b, c) = cell_fields(w);
                f(a, b, c).map(|(a, b, c)| cell_word(a, b, c))
            })
            .ok()
    }

    /// Takes one from the counter; returns the word before.
    #[inline]
    pub(super) fn decrement(&self) -> u32 {
        self.0.fetch_sub(1 << B_SHIFT, Relaxed)
    }

    /// Puts the position in W at threshold `t` (`lo = t`); false if it
    /// already was.
    #[inline]
    pub(super) fn w_trans(&self, t: i32) -> bool {
        self.update(|_, b, c| (b & IN_W == 0).then_some((t as i8, b | IN_W, c)))
            .is_some()
    }

    /// Puts the position in L at threshold `t` (`hi = −t`); false if it
    /// already was.
    #[inline]
    pub(super) fn l_trans(&self, t: i32) -> bool {
        self.update(|a, b, _| (b & IN_L == 0).then_some((a, b | IN_L, (-t) as i8)))
            .is_some()
    }
}
