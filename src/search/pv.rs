//! The principal variation: from the root's exact value, each step plays a
//! move that reaches the position's value, found with one null-window test
//! per move tried (or read from the tables where they cover the position),
//! until the line ends, leaves the search's reach or repeats.

use crate::game::{Game, Move, Position};
use crate::tt::{Kind, TransTable};
use crate::value::{capture_value, Range};

use super::{Abort, MoveResult, PvEnd, Searcher};

impl<G: Game, T: TransTable> Searcher<'_, G, T> {
    /// The line from `root`, whose moves are `moves` and value `value`, in a
    /// stretch whose repeat score seen by `root`'s mover is `w`.
    pub(super) fn principal_variation(
        &self,
        root: &Position,
        w: i32,
        moves: &[MoveResult],
        value: Range,
    ) -> (Vec<Move>, PvEnd) {
        let mut pv = Vec::new();
        let (mut pos, mut w, mut v) = (*root, w, value.lower);
        let mut next = moves
            .iter()
            .find(|m| value.exact() && m.value == value)
            .map(|m| m.mv);
        let mut stretch = vec![root.key()];
        loop {
            let Some(mv) = next else {
                return (pv, PvEnd::Unresolved);
            };
            pv.push(mv);
            let p = G::play_unchecked(&pos, mv);
            pos = p.pos;
            // The child's value follows from the move's, which is `v`.
            if p.captured > 0 {
                (w, v) = (self.opts.rule.w::<G>(&pos), capture_value(p.captured, v));
                stretch.clear();
            } else {
                (w, v) = (-w, -v);
            }
            if stretch.contains(&pos.key()) {
                return (pv, PvEnd::Loop);
            }
            stretch.push(pos.key());
            if G::legal_moves(&pos).is_empty() {
                return (pv, PvEnd::GameOver);
            }
            if p.captured > 0
                && !pos.in_opening()
                && self.tables.is_some_and(|t| t.covers(pos.level()))
            {
                return (pv, PvEnd::TableHit);
            }
            if pv.len() >= self.opts.pv_max {
                return (pv, PvEnd::Length);
            }
            if self.shared.stopped() {
                // A limit ended the line: the root's value can now be
                // exact while the search was stopped.
                return (pv, PvEnd::Unresolved);
            }
            next = match self.table_moves(&pos, w) {
                Some(m) => m.iter().find(|m| m.value.lower == v).map(|m| m.mv),
                None => self.move_reaching(&pos, w, v).unwrap_or(None),
            };
        }
    }

    /// The first legal move of `pos` (in generation order) worth at least
    /// `v`, in a stretch whose repeat score is `w`: the move of a line of
    /// best play when `v` is `pos`'s value.
    ///
    /// # Errors
    /// [`Abort`] when a limit stopped a test.
    fn move_reaching(&self, pos: &Position, w: i32, v: i32) -> Result<Option<Move>, Abort> {
        for mv in G::legal_moves(pos).iter() {
            if self.reaches(pos, w, mv, v)? {
                return Ok(Some(mv));
            }
        }
        Ok(None)
    }

    /// Whether move `mv` of `pos`, in a stretch whose repeat score is `w`,
    /// is worth at least `v`: one null-window test of its child as a
    /// stretch start.
    ///
    /// # Errors
    /// [`Abort`] when a limit stopped the test.
    pub(super) fn reaches(&self, pos: &Position, w: i32, mv: Move, v: i32) -> Result<bool, Abort> {
        let p = G::play_unchecked(pos, mv);
        // A capture is worth `captured − value(child)`; a quiet move
        // `clamp(w, −hi(c), −lo(c))`, at least `v` exactly when
        // `lo(c) ≤ −v` (if `w ≥ v`) or `hi(c) ≤ −v` (if not).
        if p.captured > 0 {
            self.at_most(&p.pos, Kind::Rule, capture_value(p.captured, v))
        } else {
            let kind = if w >= v { Kind::Lo } else { Kind::Hi };
            self.at_most(&p.pos, kind, -v)
        }
    }
}
