//! Backing leaf results up the opening tree, in post-order, by the value
//! algebra of [`crate::value`] through [`MoveResult`]: every prefix gets the
//! bounds a direct solve of its position would give.

use crate::game::{Game, Move};
use crate::search::MoveResult;
use crate::value::{Contribution, LoopRule};

use super::{LeafResult, Node, Tree};

/// Backs leaf results up the tree (post-order). `results[u]` is the analysis
/// of `tree.unique[u]`.
///
/// # Panics
/// When `results` is shorter than `tree.unique`.
pub fn backup<G: Game>(tree: &mut Tree, results: &[LeafResult], rule: LoopRule) {
    for i in (0..tree.nodes.len()).rev() {
        if let Some(u) = tree.nodes[i].leaf {
            let r = results[u];
            let n = &mut tree.nodes[i];
            (n.value, n.lo, n.hi, n.best) = (r.value, r.lo, r.hi, r.best);
            continue;
        }
        let moves = move_results::<G>(tree, &tree.nodes[i], rule);
        let Contribution { value, lo, hi } = MoveResult::join(&moves);
        let n = &mut tree.nodes[i];
        for (e, m) in n.children.iter_mut().zip(&moves) {
            e.value = m.value;
        }
        (n.value, n.lo, n.hi) = (value, lo, hi);
        n.best = best_move(&moves, value);
    }
}

/// The ranges of an inner node's moves, from its children's backed-up bounds.
fn move_results<G: Game>(tree: &Tree, n: &Node, rule: LoopRule) -> Vec<MoveResult> {
    let w = rule.w::<G>(&n.state.pos);
    n.children
        .iter()
        .map(|e| {
            let c = &tree.nodes[e.child];
            if e.captured > 0 {
                MoveResult::capture(e.mv, e.captured, c.value)
            } else {
                MoveResult::quiet(e.mv, w, c.lo, c.hi)
            }
        })
        .collect()
}

/// The first move whose exact value is the node's, when that is exact.
fn best_move(moves: &[MoveResult], value: crate::value::Range) -> Option<Move> {
    if !value.exact() {
        return None;
    }
    moves
        .iter()
        .find(|m| m.value.exact() && m.value.lower == value.lower)
        .map(|m| m.mv)
}
