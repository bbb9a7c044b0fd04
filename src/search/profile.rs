//! Where a search's nodes go: counters per ply, kept only when
//! [`super::Options::profile`] is on (measured in `results/search.md`).
//!
//! A ply is counted from the root of the job that searched the node (a
//! stretch start the analysis solves: the root, or a child of it), so a
//! capture's stretch goes on counting plies from there. Plies from
//! [`PLIES`]` − 1` on share the last row. Off, each hook costs one
//! predictable branch; the node counts are the same either way. On one
//! thread the rows' nodes add up to the search's node count (tested);
//! with several, they were seen to miss a few (2 of 288 thousand), not
//! yet explained.

use serde::Serialize;

/// Rows of a profile: plies `0..PLIES − 1`, then one row for the rest.
pub const PLIES: usize = 64;

/// The counters of one ply.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PlyCounts {
    /// Nodes visited.
    pub nodes: u64,
    /// Transposition-table probes, and those that found an entry.
    pub tt_probes: u64,
    /// Probes that found an entry.
    pub tt_hits: u64,
    /// Nodes decided by the transposition table before any move was
    /// searched (its bounds, or the seed count, cut the window).
    pub tt_cuts: u64,
    /// Endgame-table lookups: stretch starts of a covered level, and the
    /// capture children valued while ordering a node's moves.
    pub table_probes: u64,
    /// Lookups that gave a value.
    pub table_hits: u64,
    /// Nodes whose moves were searched.
    pub expanded: u64,
    /// Expanded nodes that reached `beta` (a cutoff).
    pub cuts: u64,
    /// Cutoffs made by the first move tried (an exact capture counts as
    /// tried).
    pub first_cuts: u64,
    /// Cutoffs made by enhanced transposition cutoffs, before any move.
    pub etc_cuts: u64,
    /// Children decided in their parent by the hash entries that its
    /// enhanced transposition cutoffs read, and so never visited (counted
    /// at the parent's ply; not nodes).
    pub known_children: u64,
    /// Entries stored.
    pub stores: u64,
    /// Stores that overwrote another position's entry of this search.
    pub overwrites: u64,
}

impl PlyCounts {
    fn add(&mut self, o: &PlyCounts) {
        self.nodes += o.nodes;
        self.tt_probes += o.tt_probes;
        self.tt_hits += o.tt_hits;
        self.tt_cuts += o.tt_cuts;
        self.table_probes += o.table_probes;
        self.table_hits += o.table_hits;
        self.expanded += o.expanded;
        self.cuts += o.cuts;
        self.first_cuts += o.first_cuts;
        self.etc_cuts += o.etc_cuts;
        self.known_children += o.known_children;
        self.stores += o.stores;
        self.overwrites += o.overwrites;
    }
}

/// A search's counters per ply ([`PLIES`] rows).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Profile {
    /// Nodes searched until the root's value was exact or bounded, before
    /// the moves' own values were solved (an analysis's first phase).
    pub value_nodes: u64,
    /// Row `i`: the nodes at ply `i` (the last row: that ply and deeper).
    pub plies: Vec<PlyCounts>,
}

impl Default for Profile {
    fn default() -> Self {
        Profile {
            value_nodes: 0,
            plies: vec![PlyCounts::default(); PLIES],
        }
    }
}

impl Profile {
    /// The row of ply `ply`.
    #[inline]
    pub fn at(&mut self, ply: usize) -> &mut PlyCounts {
        &mut self.plies[ply.min(PLIES - 1)]
    }

    /// Adds `other`'s counters to these.
    pub fn merge(&mut self, other: &Profile) {
        for (a, b) in self.plies.iter_mut().zip(&other.plies) {
            a.add(b);
        }
    }

    /// All plies together.
    pub fn total(&self) -> PlyCounts {
        let mut t = PlyCounts::default();
        for p in &self.plies {
            t.add(p);
        }
        t
    }
}
