//! The one level loop of every builder.
//!
//! A level is built by the same passes wherever its cells live (the module
//! comment of [`super`]): the forward pass, the acyclic pass, then the
//! threshold sweep `t = n … −n` over the thresholds that some unsettled
//! position's exit values call for. [`run_level`] runs them in that order
//! over a [`LevelPasses`] backend, which says where the cells are and how
//! updates travel:
//! - in memory ([`super::level::LevelBuild`]): one process, every cell;
//! - out of core ([`super::outofcore`]): shards in turn, the idle ones'
//!   cells in files, updates between them in inboxes;
//! - distributed ([`super::dist`]): one part a rank, updates between ranks
//!   in all-to-all rounds.
//!
//! The backend owns its cells and its measurements; the loop owns the order
//! of the passes, which thresholds are swept and the wall time of each
//! phase.

use std::time::Instant;

use super::masks::{needs_scan, ValueMask};
use crate::progress::Progress;
use crate::tables::error::TableError;

/// A phase of a level's build, for [`LevelPasses::took`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Phase {
    /// The forward pass.
    Forward,
    /// The acyclic pass.
    Kahn,
    /// The threshold sweep (its masks included).
    Sweep,
}

/// Where a level's cells live and how its updates travel: the passes of
/// [`run_level`] on one backend.
pub(super) trait LevelPasses {
    /// The level (seeds on the board).
    fn level(&self) -> u32;

    /// The forward pass: every position's best exit and quiet-move count;
    /// positions without quiet moves settled (when the acyclic pass runs).
    fn forward(&mut self, bar: &dyn Progress) -> Result<(), TableError>;

    /// The acyclic pass, from what the forward pass settled, until no
    /// update is left anywhere.
    fn kahn(&mut self, bar: &dyn Progress) -> Result<(), TableError>;

    /// The exit values (`E_lo`, `E_hi`) of the unsettled positions of the
    /// whole level, as masks (see [`needs_scan`]). Called once, after the
    /// acyclic pass.
    fn masks(&mut self) -> (ValueMask, ValueMask);

    /// One threshold of the sweep: its scan, then rounds until no update is
    /// left anywhere.
    fn threshold(&mut self, t: i32, bar: &dyn Progress) -> Result<(), TableError>;

    /// Told the wall time of each phase once it ends.
    fn took(&mut self, phase: Phase, secs: f64);
}

/// Runs the passes of one level over `b`: forward, acyclic, and the sweep
/// over every threshold that [`LevelPasses::masks`] calls for, in
/// descending order. The cells are then ready to finish (positions never
/// in W get `lo = −∞`, never in L `hi = +∞`), which the backend does as it
/// writes them.
///
/// # Errors
/// The first error of a pass (I/O of an out-of-core or distributed
/// backend); the passes after it do not run.
pub(super) fn run_level<B: LevelPasses>(b: &mut B, bar: &dyn Progress) -> Result<(), TableError> {
    let n = b.level();
    let t = Instant::now();
    b.forward(bar)?;
    b.took(Phase::Forward, t.elapsed().as_secs_f64());
    let t = Instant::now();
    b.kahn(bar)?;
    b.took(Phase::Kahn, t.elapsed().as_secs_f64());
    let t = Instant::now();
    let (lo, hi) = b.masks();
    let ni = n as i32;
    for th in (-ni..=ni).rev() {
        if needs_scan(&lo, &hi, th, n) {
            b.threshold(th, bar)?;
        }
    }
    b.took(Phase::Sweep, t.elapsed().as_secs_f64());
    Ok(())
}
