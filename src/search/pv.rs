//! The principal variation: the line of best moves from the root, each
//! position re-analysed (from the tables where they cover it) until the
//! line ends, leaves the search's reach or repeats.

use crate::game::{Game, Move, Position};
use crate::tt::TransTable;
use crate::value::Range;

use super::{MoveResult, PvEnd, Searcher};

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
        let mut pos = *root;
        let mut w = w;
        let mut moves = moves.to_vec();
        let mut value = value;
        let mut stretch = vec![root.key()];
        loop {
            if !value.exact() {
                return (pv, PvEnd::Unresolved);
            }
            let Some(best) = moves
                .iter()
                .find(|m| m.value.exact() && m.value.lower == value.lower)
            else {
                return (pv, PvEnd::Unresolved);
            };
            pv.push(best.mv);
            let p = G::play_unchecked(&pos, best.mv);
            pos = p.pos;
            if p.captured > 0 {
                w = self.opts.rule.w::<G>(&pos);
                stretch.clear();
            } else {
                w = -w;
            }
            if stretch.contains(&pos.key()) {
                return (pv, PvEnd::Loop);
            }
            stretch.push(pos.key());
            if G::legal_moves(&pos).is_empty() {
                return (pv, PvEnd::GameOver);
            }
            if self
                .tables
                .is_some_and(|t| t.covers(pos.level()) && !pos.in_opening())
                && p.captured > 0
            {
                return (pv, PvEnd::TableHit);
            }
            if pv.len() >= self.opts.pv_max || self.shared.stopped() {
                return (pv, PvEnd::Length);
            }
            moves = match self.table_moves(&pos, w) {
                Some(m) => m,
                None => self.move_results(&pos, w),
            };
            value = MoveResult::join(&moves).value;
        }
    }
}
