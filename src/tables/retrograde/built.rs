//! What a build tells after each level ([`BuildEvent`]): kept, replaced
//! or built, with the measurements of the backend that built it.

use super::level::LevelReport;
use super::outofcore;

/// What [`super::build_tables`] did for one level.
#[derive(Clone, Debug, serde::Serialize)]
pub struct BuildEvent {
    /// Level.
    pub level: u32,
    /// True when an existing file was kept. It was opened and its header
    /// and payload checksum checked; its entries were not recomputed
    /// (that is `tables verify`).
    pub skipped: bool,
    /// Why an existing file was replaced (corrupt, truncated, old format…).
    pub replaced: Option<String>,
    /// Measurements when built in memory.
    pub report: Option<LevelReport>,
    /// Measurements when built out of core.
    pub ooc: Option<outofcore::OocReport>,
    /// With compression as built ([`super::build_tables_compressed`]): the raw
    /// and compressed bytes of the level, once its raw form was replaced.
    pub compressed: Option<(u64, u64)>,
}
