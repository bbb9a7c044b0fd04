//! Move ordering: captures whose value the endgame tables give (best
//! first, and never searched), the table's best move, other captures by
//! size, then quiet moves by a static guess (the split the opponent is left
//! with).

use crate::game::{mix64, Game, Move, MoveList, Position};
use crate::index::rank;
use crate::tables::TableSet;
use crate::value::capture_value;

/// One move with its child, ready to search.
#[derive(Clone, Copy, Debug)]
pub(super) struct Child {
    /// The move.
    pub mv: Move,
    /// The position after it.
    pub pos: Position,
    /// Seeds it captures.
    pub captured: u8,
    /// The move's exact value when the tables give it (a capture into a
    /// covered level).
    pub exact: Option<i32>,
}

/// How to order a node's moves.
pub(super) struct Order<'t> {
    /// Order at all (off: generation order, to measure).
    pub on: bool,
    /// The best move of an earlier search, or `NO_MOVE`.
    pub hint: u8,
    /// Non-zero for Lazy-SMP helpers: breaks near-ties their own way.
    pub perturb: u64,
    /// Tables that value captures into covered levels.
    pub tables: Option<&'t TableSet>,
}

/// A node's moves with their children, best guess first.
pub(super) struct MoveSorter {
    children: [Child; 6],
    len: usize,
    /// Children at the front whose value is exact.
    exact: usize,
}

impl MoveSorter {
    /// Plays every move of `moves` and orders them as the module says.
    pub fn new<G: Game>(pos: &Position, moves: &MoveList, order: &Order) -> Self {
        let mut children = [Child {
            mv: Move(0),
            pos: Position::default(),
            captured: 0,
            exact: None,
        }; 6];
        // Play every move and prefetch the table entries of the captures
        // first, so that their cache misses overlap.
        for (i, mv) in moves.iter().enumerate() {
            let p = G::play_unchecked(pos, mv);
            children[i] = Child {
                mv,
                pos: p.pos,
                captured: p.captured,
                exact: None,
            };
            if let (true, Some(t)) = (p.captured > 0, order.tables) {
                if let Some(level) = t.level(p.pos.level()) {
                    level.prefetch(rank(&p.pos.pits, G::PITS) as usize);
                }
            }
        }
        let mut keys = [0i32; 6];
        let mut exact = 0;
        for (c, key) in children.iter_mut().zip(keys.iter_mut()).take(moves.len()) {
            let (mv, p) = (c.mv, c);
            if let (true, Some(t)) = (p.captured > 0, order.tables) {
                p.exact = t.value::<G>(&p.pos).map(|v| capture_value(p.captured, v));
            }
            let value = p.exact;
            exact += value.is_some() as usize;
            *key = if let Some(v) = value {
                100_000 + v
            } else if !order.on {
                0
            } else if mv.0 == order.hint {
                10_000
            } else if p.captured > 0 {
                1000 + p.captured as i32
            } else {
                let noise = if order.perturb == 0 {
                    0
                } else {
                    (mix64(order.perturb ^ p.pos.key()) & 3) as i32
                };
                -G::split(&p.pos) * 4 + noise
            };
        }
        let len = moves.len();
        // Insertion sort, stable, descending.
        for i in 1..len {
            let mut j = i;
            while j > 0 && keys[j - 1] < keys[j] {
                keys.swap(j - 1, j);
                children.swap(j - 1, j);
                j -= 1;
            }
        }
        MoveSorter {
            children,
            len,
            exact,
        }
    }

    /// The moves, best guess first.
    pub fn children(&self) -> &[Child] {
        &self.children[..self.len]
    }

    /// How many children at the front have an exact value.
    pub fn exact(&self) -> usize {
        self.exact
    }
}
