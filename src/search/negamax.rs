//! The exact search's core: fail-soft negamax over one node, with the
//! endgame-table answer, the transposition-table cut and the store each in
//! a function of its own.
//!
//! # Contract
//!
//! `negamax(node, α, β)` returns `(v, rep)`. If `v ≤ α`, the node's value is
//! at most `v`; if `v ≥ β`, at least `v`; otherwise it is exactly `v`
//! (fail-soft). `rep` says whether a repetition, or a bound that holds only
//! for this stretch's `w`, was used anywhere in the node's stretch below it;
//! it does not cross captures, which start stretches of their own. Only a
//! result with `rep` false may be stored as [`Kind::Free`] (see the module
//! documentation of [`crate::search`]).

use crate::game::{Game, MoveList, Packed, Position};
use crate::tt::{Entry, Kind, TransTable, NO_MOVE};
use crate::value::{capture_value, Range, NEG_INF, POS_INF};

use super::ctx::Ctx;
use super::ordering::{Child, MoveSorter, Order};
use super::parallel::{Busy, DEFER_PLY};
use super::{Abort, Searcher};

/// A position to search, with its place in the stretch.
pub(super) struct Node {
    /// The position.
    pub pos: Position,
    /// The stretch's repeat score, seen by the mover.
    pub w: i32,
    /// The kind of stretch start the node is, or `None` inside a stretch.
    pub start: Option<Kind>,
}

impl Node {
    /// A stretch start of `kind` whose endless play scores `w`.
    pub fn start(pos: Position, w: i32, kind: Kind) -> Node {
        Node {
            pos,
            w,
            start: Some(kind),
        }
    }
}

/// What the tables told about a node before its moves are searched.
struct Known {
    /// From the [`Kind::Free`] entry: holds for every `w` and every path.
    free: Range,
    /// `free`, narrowed by the seed count and the start-kind entry: holds
    /// for this stretch's `w` only.
    own: Range,
    /// The best move of an earlier search, or [`NO_MOVE`].
    hint: u8,
}

/// The outcome of searching a node's moves.
struct Found {
    best: i32,
    best_mv: u8,
    rep: bool,
    /// Nodes spent under the node.
    spent: u64,
}

impl Found {
    /// The bounds `best` proves, given the window and the bounds known
    /// before (fail-soft: a fail keeps the known bound on the other side).
    fn bounds(&self, known: Range, alpha: i32, beta: i32) -> Range {
        if self.best <= alpha {
            Range {
                lower: known.lower,
                upper: self.best,
            }
        } else if self.best >= beta {
            Range {
                lower: self.best,
                upper: known.upper,
            }
        } else {
            Range::point(self.best)
        }
    }
}

/// The fail-soft answer that bounds `r` give in the window, if they decide it.
fn cut(r: Range, alpha: i32, beta: i32) -> Option<i32> {
    if r.lower >= beta || r.lower == r.upper {
        Some(r.lower)
    } else if r.upper <= alpha {
        Some(r.upper)
    } else {
        None
    }
}

impl<G: Game, T: TransTable> Searcher<'_, G, T> {
    /// Fail-soft negamax; see the module documentation for the contract.
    pub(super) fn negamax(
        &self,
        ctx: &mut Ctx,
        node: &Node,
        alpha: i32,
        beta: i32,
    ) -> Result<(i32, bool), Abort> {
        self.shared.count(ctx)?;
        if ctx.ply() >= self.opts.max_ply {
            // Deeper would risk the stack: stop as a limit does.
            self.shared.stop_at_ply_cap();
            return Err(Abort);
        }
        // One packing per node: the table key clears the side, the path key keeps it.
        let board = node.pos.pack_board();
        let path = board.with_side(node.pos.side).key();
        if node.start.is_none() && ctx.repeats(path) {
            return Ok((node.w, true));
        }
        let moves = G::legal_moves(&node.pos);
        if moves.is_empty() {
            return Ok((G::split(&node.pos), false));
        }
        if let Some(v) = self.table_value(ctx, node) {
            return Ok((v, false));
        }
        let known = match self.probe_known(ctx, node, board.0, alpha, beta) {
            Ok(known) => known,
            Err(cut) => return Ok(cut),
        };
        let saved = ctx.enter(path, node.start.is_some());
        let found = self.search_moves(ctx, node, &moves, known.hint, alpha, beta);
        ctx.leave(saved);
        let found = found?;
        self.store(board.0, node.start, &known, &found, alpha, beta);
        Ok((found.best, found.rep))
    }

    /// A stretch start's value from the endgame tables, when they cover it.
    fn table_value(&self, ctx: &mut Ctx, node: &Node) -> Option<i32> {
        let (kind, t) = (node.start?, self.tables?);
        let b = t.bounds::<G>(&node.pos)?;
        ctx.table_hits += 1;
        Some(match kind {
            Kind::Rule => b.value(node.w),
            Kind::Lo => b.lo,
            Kind::Hi => b.hi,
            Kind::Free => unreachable!("Free is not a start kind"),
        })
    }

    /// The bounds known from the transposition table and the seed count,
    /// or `Err((v, rep))` when they decide the window alone.
    fn probe_known(
        &self,
        ctx: &mut Ctx,
        node: &Node,
        board: u128,
        alpha: i32,
        beta: i32,
    ) -> Result<Known, (i32, bool)> {
        // Free entries bound `lo` from below and `hi` from above: they hold
        // for every w, and a cut made with them alone depends on no repeat.
        let free_entry = self.probe_tt(ctx, self.key(board, Kind::Free));
        let free = free_entry.map_or(
            Range {
                lower: NEG_INF,
                upper: POS_INF,
            },
            |e| e.range(),
        );
        let mut hint = free_entry.map_or(NO_MOVE, |e| e.best);
        if let Some(v) = cut(free, alpha, beta) {
            return Err((v, false));
        }
        // The seed count (|value| ≤ n unless w is ±∞) and the start-kind
        // entry hold only for this stretch's w: a cut that needs them is
        // reported as repeat-dependent, so no caller stores it as Free.
        let seed = Range::full(node.pos.level() as i32, node.w);
        let mut own = free.meet(seed);
        if let Some(e) = node
            .start
            .and_then(|k| self.probe_tt(ctx, self.key(board, k)))
        {
            own = own.meet(e.range());
            if e.best != NO_MOVE {
                hint = e.best;
            }
        }
        match cut(own, alpha, beta) {
            Some(v) => Err((v, true)),
            None => Ok(Known { free, own, hint }),
        }
    }

    /// Searches the moves of `node` (already entered on the path), best
    /// guess first, until one reaches `beta`.
    fn search_moves(
        &self,
        ctx: &mut Ctx,
        node: &Node,
        moves: &MoveList,
        hint: u8,
        alpha: i32,
        beta: i32,
    ) -> Result<Found, Abort> {
        let nodes_before = ctx.nodes;
        let order = Order {
            on: self.opts.ordering,
            hint,
            tables: self.tables,
        };
        let sorter = MoveSorter::new::<G>(&node.pos, moves, &order);
        ctx.table_hits += sorter.exact() as u64;
        let mut found = Found {
            best: i32::MIN,
            best_mv: NO_MOVE,
            rep: false,
            spent: 0,
        };
        if self.opts.etc {
            if let Some((v, mv)) = self.etc_cut(ctx, &sorter, beta) {
                found.best = v;
                found.best_mv = mv;
                return Ok(found);
            }
        }
        let busy = self
            .busy
            .get()
            .filter(|_| ctx.defer && ctx.ply() < DEFER_PLY);
        let mut a = alpha;
        let (mut deferred, mut n_deferred) = ([0; 6], 0);
        let children = sorter.children();
        for (i, c) in children.iter().enumerate() {
            // ABDADA: a child another thread is searching waits (never the
            // first one searched, so that every thread starts somewhere).
            if let Some(b) = busy.filter(|_| i > sorter.exact()) {
                if b.is_busy(c.pos.key()) {
                    deferred[n_deferred] = i;
                    n_deferred += 1;
                    continue;
                }
            }
            if self.try_move(ctx, node, c, busy, (&mut found, &mut a), beta)? {
                found.spent = ctx.nodes - nodes_before;
                return Ok(found);
            }
        }
        for &i in &deferred[..n_deferred] {
            if self.try_move(ctx, node, &children[i], None, (&mut found, &mut a), beta)? {
                break;
            }
        }
        found.spent = ctx.nodes - nodes_before;
        Ok(found)
    }

    /// Searches move `c` in the window `(a, beta)`, marked busy in `busy`
    /// meanwhile, and folds its score into `found` and `a`. Returns whether
    /// it reached `beta`.
    fn try_move(
        &self,
        ctx: &mut Ctx,
        node: &Node,
        c: &Child,
        busy: Option<&Busy>,
        (found, a): (&mut Found, &mut i32),
        beta: i32,
    ) -> Result<bool, Abort> {
        let key = busy.filter(|_| c.exact.is_none()).map(|b| {
            let k = c.pos.key();
            b.enter(k);
            (b, k)
        });
        let r = self.move_score(ctx, node, c, *a, beta);
        if let Some((b, k)) = key {
            b.leave(k);
        }
        let (score, rep) = r?;
        found.rep |= rep;
        if score > found.best {
            found.best = score;
            found.best_mv = c.mv.0;
        }
        *a = (*a).max(score);
        Ok(*a >= beta)
    }

    /// The fail-soft score of move `c` of `node` in the window `(a, beta)`,
    /// and whether it depended on a repeat.
    fn move_score(
        &self,
        ctx: &mut Ctx,
        node: &Node,
        c: &Child,
        a: i32,
        beta: i32,
    ) -> Result<(i32, bool), Abort> {
        if let Some(v) = c.exact {
            return Ok((v, false));
        }
        if c.captured > 0 {
            // A capture starts a stretch; the window is seen through it.
            let child = Node::start(c.pos, self.opts.rule.w::<G>(&c.pos), Kind::Rule);
            let lower = capture_value(c.captured, beta);
            let upper = capture_value(c.captured, a);
            let (v, _) = self.negamax(ctx, &child, lower, upper)?;
            return Ok((capture_value(c.captured, v), false));
        }
        if self.opts.exit_prune {
            if let Some(floor) = self.exit_floor(&c.pos).filter(|&f| -f <= a) {
                if !ctx.repeats(c.pos.key()) {
                    return Ok((-floor, false));
                }
            }
        }
        let child = Node {
            pos: c.pos,
            w: -node.w,
            start: None,
        };
        let (v, rep) = self.negamax(ctx, &child, -beta, -a)?;
        Ok((-v, rep))
    }

    /// The best exit the endgame tables value among `pos`'s captures: a
    /// floor on `pos`'s value on any path and for any `w`, since its mover
    /// can always take it. A child still in the opening (a capture on
    /// moves 3..10 under Valdez's reading) is not in the tables.
    fn exit_floor(&self, pos: &Position) -> Option<i32> {
        let t = self.tables?;
        let mut exits = [None; 6];
        let mut n = 0;
        // Play every capture and prefetch its table entry first, so that
        // the cache misses overlap; the entries are then read by the ranks
        // computed here.
        for mv in G::legal_moves(pos).iter() {
            let p = G::play_unchecked(pos, mv);
            let exit = p.captured > 0 && !p.pos.in_opening();
            if let (true, Some(level)) = (exit, t.level(p.pos.level())) {
                let idx = crate::index::rank(&p.pos.pits, G::PITS) as usize;
                level.prefetch(idx);
                exits[n] = Some((p.captured, p.pos, level, idx));
                n += 1;
            }
        }
        // A damaged entry is no exit (a floor from the others still
        // holds; the search stops on the tables' alarm).
        exits[..n]
            .iter()
            .flatten()
            .filter_map(|&(c, p, level, idx)| {
                let v = level.value_with(idx, || t.rule.w::<G>(&p))?;
                Some(capture_value(c, v))
            })
            .max()
    }

    /// Enhanced transposition cutoff: a move whose child's table entry
    /// already proves it reaches `beta`, with the bound it proves. Such a
    /// bound holds on every path (a child on the path is left to the
    /// search, which scores it as a repeat).
    fn etc_cut(&self, ctx: &mut Ctx, sorter: &MoveSorter, beta: i32) -> Option<(i32, u8)> {
        let rest = &sorter.children()[sorter.exact()..];
        let mut boards = [Packed(0); 6];
        for (c, b) in rest.iter().zip(boards.iter_mut()) {
            *b = c.pos.pack_board();
            self.tt.prefetch(self.key(b.0, Kind::Free));
        }
        for (c, &board) in rest.iter().zip(boards.iter()) {
            let score = if c.captured > 0 {
                let mut upper = POS_INF;
                for k in [Kind::Free, Kind::Rule] {
                    if let Some(e) = self.probe_tt(ctx, self.key(board.0, k)) {
                        upper = upper.min(e.upper as i32);
                    }
                }
                capture_value(c.captured, upper)
            } else {
                if ctx.repeats(board.with_side(c.pos.side).key()) {
                    continue;
                }
                match self.probe_tt(ctx, self.key(board.0, Kind::Free)) {
                    Some(e) => -(e.upper as i32),
                    None => continue,
                }
            };
            if score >= beta {
                return Some((score, c.mv.0));
            }
        }
        None
    }

    /// Stores what the search of a node proved: as [`Kind::Free`] when no
    /// repeat was met, and under the node's start kind when it is one.
    fn store(
        &self,
        board: u128,
        start: Option<Kind>,
        known: &Known,
        found: &Found,
        alpha: i32,
        beta: i32,
    ) {
        if !self.opts.use_tt {
            return;
        }
        let entry = |r: Range| Entry::new(r, found.best_mv, found.spent);
        if !found.rep {
            let r = found.bounds(known.free, alpha, beta);
            self.tt.store(self.key(board, Kind::Free), entry(r));
        }
        if let Some(kind) = start {
            let r = found.bounds(known.own, alpha, beta);
            self.tt.store(self.key(board, kind), entry(r));
        }
    }
}
