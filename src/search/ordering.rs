//! Move ordering: captures whose value the endgame tables give (best
//! first, and never searched), the table's best move, other captures by
//! size, then quiet moves: those whose sowing reaches the opponent's row
//! first, then by pit (see [`quiet_key`]).

use crate::game::{Game, Move, MoveList, Position};
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
    /// Tables that value captures into covered levels.
    pub tables: Option<&'t TableSet>,
}

/// A node's moves with their children, best guess first.
pub(super) struct MoveSorter {
    children: [Child; 6],
    len: usize,
    /// Children at the front whose value is exact.
    exact: usize,
    /// Captures looked up in the tables (their level covered).
    probed: usize,
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
        let (mut exact, mut probed) = (0, 0);
        for (c, key) in children.iter_mut().zip(keys.iter_mut()).take(moves.len()) {
            if let (true, Some(t)) = (c.captured > 0, order.tables) {
                c.exact = t.value::<G>(&c.pos).map(|v| capture_value(c.captured, v));
                probed += t.covers(c.pos.level()) as usize;
            }
            exact += c.exact.is_some() as usize;
            *key = sort_key::<G>(order, pos, c);
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
            probed,
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

    /// How many captures were looked up in the tables.
    pub fn probed(&self) -> usize {
        self.probed
    }
}

/// The sort key of child `c` of `pos`, highest first.
fn sort_key<G: Game>(order: &Order, pos: &Position, c: &Child) -> i32 {
    if let Some(v) = c.exact {
        100_000 + v
    } else if !order.on {
        0
    } else if c.mv.0 == order.hint {
        10_000
    } else if c.captured > 0 {
        1000 + c.captured as i32
    } else {
        quiet_key::<G>(pos, &c.pos, c.mv)
    }
}

/// The order of quiet moves, highest first (always below every capture's
/// key, `1000 +` seeds: captures first keeps the search's paths short):
/// moves whose sowing reaches the
/// opponent's row before those that stay on the mover's own, then by pit:
/// lowest first, except Adji-Boto's reaching moves, highest first.
///
/// Measured on the development suite of `results/search.md` against the
/// earlier key (the opponent's split after the move, lowest first): the
/// pit order cut Adjito's nodes by more than half and solved Adji-Boto
/// positions the split order did not; a history heuristic, as key or tie
/// break, cost more nodes than it saved.
#[inline]
fn quiet_key<G: Game>(pos: &Position, child: &Position, mv: Move) -> i32 {
    if mv.is_pass() {
        return 0;
    }
    let pit = mv.pit() as i32;
    // No seed is captured, so the opponent's row grows exactly when the
    // sowing reaches it.
    if G::rows(child).0 > G::rows(pos).1 {
        200 + G::REACHING_ORDER * pit * 16
    } else {
        -pit * 16
    }
}
