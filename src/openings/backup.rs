//! Backing leaf results up the opening tree, in post-order, by the value
//! algebra of [`crate::value`] through [`MoveResult`]: every prefix gets the
//! bounds a direct solve of its position would give.
//!
//! Estimates (with `--estimate-time`) are backed up beside the bounds, by
//! plain negamax over the moves' estimates, an exact move counting with its
//! value; each estimate is kept inside its proven bounds, and a node whose
//! bounds are exact has a value, not an estimate.

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
            n.estimate = r.estimate.map(|e| e.centi);
            n.estimate_depth = r.estimate.map(|e| e.depth);
            continue;
        }
        let moves = move_results::<G>(tree, &tree.nodes[i], rule);
        let Contribution { value, lo, hi } = MoveResult::join(&moves);
        let estimates = move_estimates(tree, &tree.nodes[i], &moves);
        let n = &mut tree.nodes[i];
        for ((e, m), est) in n.children.iter_mut().zip(&moves).zip(&estimates) {
            e.value = m.value;
            e.estimate = *est;
        }
        (n.value, n.lo, n.hi) = (value, lo, hi);
        n.best = best_move(&moves, value);
        n.estimate = node_estimate(&estimates, &moves, value);
    }
}

/// A move's estimate (1/100 seeds) from its child's estimate or value,
/// inside the move's proven bounds; `None` when the move's value is exact
/// or its child has neither.
fn move_estimates(tree: &Tree, n: &Node, moves: &[MoveResult]) -> Vec<Option<i32>> {
    let s = crate::engine::SCALE;
    n.children
        .iter()
        .zip(moves)
        .map(|(e, m)| {
            if m.value.exact() {
                return None;
            }
            let c = &tree.nodes[e.child];
            let child = c.estimate?;
            let est = e.captured as i32 * s - child;
            Some(est.clamp(m.value.lower * s, m.value.upper * s))
        })
        .collect()
}

/// The best of the moves' estimates (an exact move counts with its value);
/// `None` when the node's value is exact or some unresolved move has no estimate.
fn node_estimate(
    estimates: &[Option<i32>],
    moves: &[MoveResult],
    value: crate::value::Range,
) -> Option<i32> {
    if value.exact() {
        return None;
    }
    let s = crate::engine::SCALE;
    let mut best = i32::MIN;
    for (est, m) in estimates.iter().zip(moves) {
        let v = if m.value.exact() {
            m.value.lower * s
        } else {
            (*est)?
        };
        best = best.max(v);
    }
    Some(best.clamp(value.lower * s, value.upper * s))
}

/// The score of the line to tree node `i` for the root's mover, in
/// 1/100 seeds: the seeds each side captured along the line plus the leaf's
/// value (or estimate), each seen by the root's mover. `None` when the leaf
/// has neither an exact value nor an estimate.
pub fn line_score(tree: &Tree, i: usize) -> Option<(i32, bool)> {
    let s = crate::engine::SCALE;
    let root = &tree.nodes[0].state;
    let n = &tree.nodes[i];
    let me = root.pos.side as usize;
    let captured = |st: &crate::game::State| st.stores[me] as i32 - st.stores[1 - me] as i32;
    let sign = if n.state.pos.side as usize == me {
        1
    } else {
        -1
    };
    let (leaf, exact) = match (n.value.exact(), n.estimate) {
        (true, _) => (n.value.lower * s, true),
        (false, Some(e)) => (e, false),
        _ => return None,
    };
    Some((
        (captured(&n.state) - captured(root)) * s + sign * leaf,
        exact,
    ))
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
