//! Move ordering: the table's best move first, then captures by size, then
//! quiet moves by a static guess (the split the opponent is left with).

use crate::game::{mix64, Game, Move, MoveList, Position};

/// One move with its child, ready to search.
#[derive(Clone, Copy, Debug)]
pub(super) struct Child {
    /// The move.
    pub mv: Move,
    /// The position after it.
    pub pos: Position,
    /// Seeds it captures.
    pub captured: u8,
}

/// A node's moves with their children, best guess first.
pub(super) struct MoveSorter {
    children: [Child; 6],
    len: usize,
}

impl MoveSorter {
    /// Plays every move of `moves` and orders them (when `ordering` is on):
    /// `hint` first, captures by seeds taken, then quiet moves by the
    /// opponent's split after them, lowest first. A non-zero `perturb`
    /// (Lazy-SMP helpers) breaks ties and near-ties among quiet moves its
    /// own way.
    pub fn new<G: Game>(
        pos: &Position,
        moves: &MoveList,
        hint: u8,
        perturb: u64,
        ordering: bool,
    ) -> Self {
        let mut children = [Child {
            mv: Move(0),
            pos: Position::default(),
            captured: 0,
        }; 6];
        let mut keys = [0i32; 6];
        for (i, mv) in moves.iter().enumerate() {
            let p = G::play_unchecked(pos, mv);
            children[i] = Child {
                mv,
                pos: p.pos,
                captured: p.captured,
            };
            keys[i] = if !ordering {
                0
            } else if mv.0 == hint {
                10_000
            } else if p.captured > 0 {
                1000 + p.captured as i32
            } else {
                let noise = if perturb == 0 {
                    0
                } else {
                    (mix64(perturb ^ p.pos.key()) & 3) as i32
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
        MoveSorter { children, len }
    }

    /// The moves, best guess first.
    pub fn children(&self) -> &[Child] {
        &self.children[..self.len]
    }
}
