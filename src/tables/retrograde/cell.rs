//! The state of a level under construction: one 2-byte [`Cell`] per
//! position, its fields and flags, the optional plane of `hi` bytes
//! ([`Cells`]), and the atomic operations on them. The lowest module of
//! the builder: it uses no other.
//!
//! # One value byte a position
//!
//! A cell holds one value byte `a` beside the counter and flags. It starts
//! as the exit value `E` (the forward pass), rises in the acyclic pass
//! (where every settled position has `lo = hi`, so one byte carries both
//! bounds), and in the sweep:
//! - a position entering **W first** (at `t`, `lo = t`) overwrites `a`
//!   with `lo`. Its L test stays exact: `lo ≥ E`, and whenever its counter
//!   is 0 outside L, `hi = E` and so `lo = E` (its quiet children are all
//!   in W at a threshold where `E > −t`); when `E ≤ −t`, `lo ≤ hi ≤ −t`.
//!   At its L entry (`hi = −t`), `a == −t` unless the position is
//!   loop-sensitive (`lo < hi`).
//! - a position entering **L first** (`hi = −t`) with `a == −t` keeps `a`
//!   (then `hi = E`, and it enters W at `t = E` by its exit: `lo = hi`).
//!   One with `a < −t` (its best move is quiet) sets [`HP`], "`hi` is
//!   not `a`":
//!   - with a plane (**safe mode**), `hi` goes to the plane and `a` keeps
//!     `E` for the W test;
//!   - without one (**fast mode**), `hi` replaces `a`, and the W seed
//!     skips the position: it must then enter W through a quiet child at
//!     `t = hi` exactly. One that does not is loop-sensitive, and its exit
//!     is lost; the [`Tally`] counts such positions per value (they entered
//!     L, and they entered W at `hi`), and any mismatch, or any other
//!     loop-sensitive position, marks the tally *lost*: the level is then
//!     built again in safe mode ([`super::level`]).
//!
//! So a fast cell is 2 bytes a position, and a safe one 3 with its plane
//! byte. Loop-sensitive positions are few: in the default rule sets only
//! Adjito levels 2–6 hold any.

use std::sync::atomic::{AtomicU16, AtomicU8, Ordering, Ordering::Relaxed};

/// Counter bits of the `b` byte: unsettled quiet moves (at most 6).
pub(super) const CNT: u8 = 0x07;
/// `hi` is not `a`: it is in the plane (safe mode) or replaced `a`'s
/// exit (fast mode).
pub(super) const HP: u8 = 0x08;
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

/// The state of one position, one atomic 16-bit word: `a` (bits 0–7, see
/// the module comment) and `b` (bits 8–15), the count of unsettled quiet
/// moves and the flags. Every change is one atomic operation on the word,
/// so an update that reads a field and writes another sees them together.
#[repr(transparent)]
pub(super) struct Cell(AtomicU16);

const _: () = assert!(std::mem::size_of::<Cell>() == 2);

/// Shift of the `b` byte (counter and flags) in a cell word.
const B_SHIFT: u32 = 8;

/// The word of a cell with these fields (the forward pass writes cells as
/// plain `u16`s before any atomic access).
#[inline]
pub(super) fn cell_word(a: i8, b: u8) -> u16 {
    u16::from_le_bytes([a as u8, b])
}

/// The fields of a cell word.
#[inline]
pub(super) fn cell_fields(w: u16) -> (i8, u8) {
    let [a, b] = w.to_le_bytes();
    (a as i8, b)
}

/// The cells of `words`, for shared atomic access.
pub(super) fn cells(words: &mut [u16]) -> &[Cell] {
    // SAFETY: Cell is a transparent AtomicU16, which has the size and
    // alignment of u16, and the exclusive borrow guarantees no other access
    // for the returned lifetime.
    unsafe { &*(words as *mut [u16] as *const [Cell]) }
}

/// The bytes of `plane`, for shared atomic access.
pub(super) fn plane_cells(plane: &mut [u8]) -> &[AtomicU8] {
    // SAFETY: AtomicU8 has the size and alignment of u8, and the exclusive
    // borrow guarantees no other access for the returned lifetime.
    unsafe { &*(plane as *mut [u8] as *const [AtomicU8]) }
}

/// The cells of a level (or of a part of one) and, in safe mode, its
/// plane of `hi` bytes (same indices).
#[derive(Clone, Copy)]
pub(super) struct Cells<'a> {
    pub(super) cells: &'a [Cell],
    pub(super) plane: Option<&'a [AtomicU8]>,
}

impl<'a> Cells<'a> {
    /// Number of positions.
    #[inline]
    pub(super) fn len(&self) -> usize {
        self.cells.len()
    }

    /// The state of position `i`.
    #[inline]
    pub(super) fn slot(&self, i: usize) -> Slot<'a> {
        Slot {
            cell: &self.cells[i],
            hi: self.plane.map(|p| &p[i]),
        }
    }
}

/// The state of one position: its cell, and its plane byte in safe mode.
#[derive(Clone, Copy)]
pub(super) struct Slot<'a> {
    pub(super) cell: &'a Cell,
    hi: Option<&'a AtomicU8>,
}

/// What a worker saw of the fast mode's positions whose `hi` replaced `a`
/// (by value `v`, index `v + 128`), merged into the level's after each
/// step; *lost* when the build must be done again in safe mode.
#[derive(Clone)]
pub(super) struct Tally {
    /// Positions that entered L first with `hi = v` ([`HP`] set).
    pub(super) entered: Vec<u64>,
    /// Of those, the ones that entered W at `t = v` (`lo = hi`).
    pub(super) closed: Vec<u64>,
    /// A loop-sensitive position lost its exit or its `hi`.
    pub(super) lost: bool,
}

impl Default for Tally {
    fn default() -> Self {
        Tally {
            entered: vec![0; 256],
            closed: vec![0; 256],
            lost: false,
        }
    }
}

impl Tally {
    /// Adds `other` to this tally.
    pub(super) fn merge(&mut self, other: &Tally) {
        for (a, b) in self.entered.iter_mut().zip(&other.entered) {
            *a += b;
        }
        for (a, b) in self.closed.iter_mut().zip(&other.closed) {
            *a += b;
        }
        self.lost |= other.lost;
    }

    /// Whether, after the closure at threshold `t`, every fast position
    /// with `hi ≥ t` entered W at `hi` (else its exit is lost).
    pub(super) fn closed_down_to(&self, t: i32) -> bool {
        let from = (t + 128).clamp(0, 256) as usize;
        !self.lost && self.entered[from..] == self.closed[from..]
    }
}

impl Cell {
    /// The cell's word (fields by [`cell_fields`]).
    #[inline]
    pub(super) fn word(&self) -> u16 {
        self.0.load(Relaxed)
    }

    /// The counter and flags.
    #[inline]
    pub(super) fn flags(&self) -> u8 {
        cell_fields(self.word()).1
    }

    /// `a`: the only bound of a position the acyclic pass settled.
    #[inline]
    pub(super) fn value(&self) -> i8 {
        cell_fields(self.word()).0
    }

    /// Sets flag `bits`; returns the flags before.
    #[inline]
    pub(super) fn set_flags(&self, bits: u8, order: Ordering) -> u8 {
        (self.0.fetch_or((bits as u16) << B_SHIFT, order) >> B_SHIFT) as u8
    }

    /// Clears flag `bits`; returns the flags before.
    #[inline]
    pub(super) fn clear_flags(&self, bits: u8, order: Ordering) -> u8 {
        (self.0.fetch_and(!((bits as u16) << B_SHIFT), order) >> B_SHIFT) as u8
    }

    /// Applies `f` to the fields atomically (a compare-and-swap loop); `f`
    /// returns the new fields, or `None` to leave the cell as it is.
    /// Returns the word before, if `f` changed it.
    #[inline]
    pub(super) fn update(&self, mut f: impl FnMut(i8, u8) -> Option<(i8, u8)>) -> Option<u16> {
        self.0
            .fetch_update(Relaxed, Relaxed, |w| {
                let (a, b) = cell_fields(w);
                f(a, b).map(|(a, b)| cell_word(a, b))
            })
            .ok()
    }

    /// Takes one from the counter; returns the word before.
    #[inline]
    pub(super) fn decrement(&self) -> u16 {
        self.0.fetch_sub(1 << B_SHIFT, Relaxed)
    }
}

impl Slot<'_> {
    /// Puts the position in W at threshold `t` (`lo = t`); false if it
    /// already was.
    #[inline]
    pub(super) fn w_trans(&self, t: i32, tally: &mut Tally) -> bool {
        let Some(prev) = self
            .cell
            .update(|_, b| (b & IN_W == 0).then_some((t as i8, b | IN_W)))
        else {
            return false;
        };
        let (a, b) = cell_fields(prev);
        if b & HP != 0 && self.hi.is_none() {
            // Fast mode: `a` is `hi`; W at `hi` closes the position, W below
            // it means a loop-sensitive one (whose exit may be lost).
            if a as i32 == t {
                tally.closed[(t + 128) as usize] += 1;
            } else {
                tally.lost = true;
            }
        }
        true
    }

    /// Puts the position in L at threshold `t` (`hi = −t`); false if it
    /// already was. The caller has checked `a ≤ −t` (or no exit).
    #[inline]
    pub(super) fn l_trans(&self, t: i32, tally: &mut Tally) -> bool {
        let hi = (-t) as i8;
        let fast = self.hi.is_none();
        let Some(prev) = self.cell.update(|a, b| {
            if b & IN_L != 0 {
                return None;
            }
            if a == hi {
                return Some((a, b | IN_L));
            }
            let a = if fast && b & IN_W == 0 { hi } else { a };
            Some((a, b | IN_L | HP))
        }) else {
            return false;
        };
        let (a, b) = cell_fields(prev);
        if a != hi {
            match self.hi {
                Some(p) => p.store(hi as u8, Relaxed),
                None if b & IN_W != 0 => tally.lost = true,
                None => tally.entered[(hi as i32 + 128) as usize] += 1,
            }
        }
        true
    }
}

/// The bound bytes `(lo, hi)` of a finished cell word `w` and its plane
/// byte `plane` (ignored unless [`HP`] is set in safe mode): `lo = −∞`
/// outside W, `hi = +∞` outside L.
#[inline]
pub(super) fn finished_bounds(w: u16, plane: Option<u8>) -> (u8, u8) {
    use crate::value::{NEG_INF_BYTE, POS_INF_BYTE};
    let (a, b) = cell_fields(w);
    let lo = if b & IN_W != 0 { a } else { NEG_INF_BYTE };
    let hi = match (b & IN_L != 0, b & HP != 0, plane) {
        (false, _, _) => POS_INF_BYTE,
        (true, true, Some(p)) => p as i8,
        (true, _, _) => a,
    };
    (lo as u8, hi as u8)
}

/// The forward pass's cells from the boards' `(E, quiet-move count)`
/// ([`exits_batch`]); with `settle`, a board without quiet moves is
/// settled at once (and pending for the acyclic pass).
pub(super) fn exit_words(words: &mut [u16], exits: &[(i32, u8)], settle: bool) {
    for (w, &(e, cnt)) in words.iter_mut().zip(exits) {
        let e = if e == i32::MIN { NONE } else { e as i8 };
        debug_assert!(cnt <= CNT, "at most {CNT} quiet moves");
        let b = if cnt == 0 && settle {
            IN_W | IN_L | PEND_W
        } else {
            cnt
        };
        *w = cell_word(e, b);
    }
}

/// Raises the forward-pass cells `words` (unsettled, of one group of
/// lower levels: [`super::plan::LevelPlan::lower_groups`]) to the exits
/// `before` holds for the same positions (of the groups before), the
/// better exit of each; with `settle`, a position without quiet moves is
/// then settled as [`exit_words`] settles it.
pub(super) fn merge_exits(words: &mut [u16], before: &[u16], settle: bool) {
    for (w, &b) in words.iter_mut().zip(before) {
        let ((e, cnt), (eb, _)) = (cell_fields(*w), cell_fields(b));
        let e = e.max(eb);
        let e = if e == NONE { i32::MIN } else { e as i32 };
        exit_words(std::slice::from_mut(w), &[(e, cnt)], settle);
    }
}
