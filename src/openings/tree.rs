//! Enumeration of the opening tree: every line of `plies` moves from a root
//! (shorter where the game ends), numbered in depth-first pre-order as it is
//! built, with the leaf positions deduplicated in order of first appearance.
//! A node cap bounds the memory: a tree that passes it is refused as soon as
//! it does, and [`bytes_per_node`] lets a caller derive the cap from a memory
//! budget.

use std::collections::HashMap;
use std::mem::size_of;

use crate::game::{Game, Move, MoveList, Position, State};
use crate::notation::format_move;
use crate::records::ResultRecord;
use crate::value::Range;

use super::{LeafResult, OpeningsError};

/// An edge of the opening tree.
#[derive(Clone, Debug)]
pub struct Edge {
    /// The move.
    pub mv: Move,
    /// Its name for the mover.
    pub name: String,
    /// Seeds captured.
    pub captured: u8,
    /// Child node index.
    pub child: usize,
    /// Value bounds of the move for its mover (after backing up).
    pub value: Range,
}

/// A node of the opening tree (a prefix of a line).
#[derive(Clone, Debug)]
pub struct Node {
    /// The state after the prefix.
    pub state: State,
    /// Plies from the root.
    pub depth: u32,
    /// Moves to children.
    pub children: Vec<Edge>,
    /// Index in [`Tree::unique`] for leaves.
    pub leaf: Option<usize>,
    /// Backed-up value bounds.
    pub value: Range,
    /// Backed-up `lo` bounds.
    pub lo: Range,
    /// Backed-up `hi` bounds.
    pub hi: Range,
    /// Best move (when the value is exact).
    pub best: Option<Move>,
}

/// The opening tree; nodes in depth-first pre-order, root first.
#[derive(Clone, Debug)]
pub struct Tree {
    /// Nodes.
    pub nodes: Vec<Node>,
    /// Unique leaf positions, in order of first appearance.
    pub unique: Vec<Position>,
    /// Leaf node indices, in order.
    pub leaves: Vec<usize>,
    /// Position → index in `unique`.
    index: HashMap<Position, usize, ahash::RandomState>,
}

impl Tree {
    /// The index in [`Tree::unique`] of a leaf position, if it is one.
    pub fn unique_index(&self, pos: &Position) -> Option<usize> {
        self.index.get(pos).copied()
    }
}

const UNKNOWN: Range = Range::point(0);

impl Node {
    fn new(state: State, depth: u32) -> Node {
        Node {
            state,
            depth,
            children: Vec::new(),
            leaf: None,
            value: UNKNOWN,
            lo: UNKNOWN,
            hi: UNKNOWN,
            best: None,
        }
    }
}

/// Bytes one node of the tree costs through a whole run, at most on average:
/// the node (with the slack of a growing vector), its edge and move name,
/// and, counted as if every node were a leaf, the leaf's share of the
/// deduplication index, the results, the checkpoint records and the work
/// lists. The output files are streamed and add nothing per node.
pub fn bytes_per_node() -> usize {
    // A heap block of a short string or small vector, with the allocator's overhead.
    const SMALL_ALLOC: usize = 32;
    let map_entry = |entry: usize| (entry + 1) * 2 * 8 / 7; // load factor 7/8, growth slack
    let node = 2 * size_of::<Node>() + size_of::<Edge>() + 2 * SMALL_ALLOC;
    let leaf = 2 * (size_of::<usize>() + size_of::<Position>())
        + map_entry(size_of::<Position>() + size_of::<usize>())
        + 2 * size_of::<Option<LeafResult>>()
        + size_of::<ResultRecord>()
        + size_of::<(usize, LeafResult)>()
        + 2 * size_of::<usize>();
    node + leaf
}

/// The node cap that keeps a run within `bytes` (see [`bytes_per_node`]).
pub fn max_nodes_for(bytes: u64) -> usize {
    usize::try_from(bytes / bytes_per_node() as u64).unwrap_or(usize::MAX)
}

/// A node whose moves are still being expanded.
struct Frame {
    node: usize,
    moves: MoveList,
    next: usize,
}

/// The tree under construction.
struct Builder {
    tree: Tree,
    max_nodes: usize,
    plies: u32,
}

impl Builder {
    /// Adds the child reached by `mv` from `parent` and returns its index.
    fn child<G: Game>(&mut self, parent: usize, mv: Move) -> Result<usize, OpeningsError> {
        let nodes = &mut self.tree.nodes;
        if nodes.len() >= self.max_nodes {
            let n = nodes.len() + 1;
            return Err(OpeningsError::TooLarge {
                nodes: n,
                bytes: n as u64 * bytes_per_node() as u64,
            });
        }
        let p = &nodes[parent];
        let (state, captured) = p.state.play::<G>(mv);
        let (name, depth, child) = (format_move::<G>(&p.state.pos, mv), p.depth + 1, nodes.len());
        let value = UNKNOWN;
        nodes[parent].children.push(Edge {
            mv,
            name,
            captured,
            child,
            value,
        });
        nodes.push(Node::new(state, depth));
        Ok(child)
    }

    /// Starts expanding node `i`, or records it as a leaf.
    fn open<G: Game>(&mut self, i: usize, stack: &mut Vec<Frame>) {
        let n = &mut self.tree.nodes[i];
        let moves = if n.depth < self.plies {
            G::legal_moves(&n.state.pos)
        } else {
            MoveList::new()
        };
        if !moves.is_empty() {
            n.children.reserve_exact(moves.len());
            stack.push(Frame {
                node: i,
                moves,
                next: 0,
            });
            return;
        }
        let pos = n.state.pos;
        let u = self.unique_index(pos);
        self.tree.nodes[i].leaf = Some(u);
        self.tree.leaves.push(i);
    }

    /// The index of a leaf position in `unique`, adding it when new.
    fn unique_index(&mut self, pos: Position) -> usize {
        let t = &mut self.tree;
        let next = t.unique.len();
        let u = *t.index.entry(pos).or_insert(next);
        if u == next {
            t.unique.push(pos);
        }
        u
    }
}

/// Enumerates every line of `plies` moves from `root` (shorter where the
/// game ends) and deduplicates the leaf positions.
///
/// # Errors
/// [`OpeningsError::TooLarge`] as soon as the tree would pass `max_nodes`
/// nodes (at least the root is always allowed).
pub fn enumerate<G: Game>(
    root: State,
    plies: u32,
    max_nodes: usize,
) -> Result<Tree, OpeningsError> {
    let tree = Tree {
        nodes: vec![Node::new(root, 0)],
        unique: Vec::new(),
        leaves: Vec::new(),
        index: HashMap::with_hasher(ahash::RandomState::new()),
    };
    let mut b = Builder {
        tree,
        max_nodes,
        plies,
    };
    let mut stack = Vec::new();
    b.open::<G>(0, &mut stack);
    while let Some(f) = stack.last_mut() {
        if f.next == f.moves.len() {
            stack.pop();
            continue;
        }
        let (parent, mv) = (f.node, f.moves.get(f.next));
        f.next += 1;
        let child = b.child::<G>(parent, mv)?;
        b.open::<G>(child, &mut stack);
    }
    Ok(b.tree)
}
