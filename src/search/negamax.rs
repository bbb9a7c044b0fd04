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
        // Counted first, so that a node whose count stops the search is in
        // the profile too.
        if let Some(p) = ctx.here() {
            p.nodes += 1;
        }
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
            Err(cut) => {
                if let Some(p) = ctx.here() {
                    p.tt_cuts += 1;
                }
                return Ok(cut);
            }
        };
        let saved = ctx.enter(path, node.start.is_some());
        let found = self.search_moves(ctx, node, &moves, known.hint, alpha, beta);
        ctx.leave(saved);
        let found = found?;
        self.store(ctx, board.0, node.start, (&known, &found), (alpha, beta));
        Ok((found.best, found.rep))
    }

    /// A stretch start's value from the endgame tables, when they cover it.
    fn table_value(&self, ctx: &mut Ctx, node: &Node) -> Option<i32> {
        let (kind, t) = (node.start?, self.tables?);
        let b = t.bounds::<G>(&node.pos);
        if let Some(p) = ctx.here().filter(|_| t.covers(node.pos.level())) {
            p.table_probes += 1;
            p.table_hits += b.is_some() as u64;
        }
        let b = b?;
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
        let ply = ctx.ply() - 1;
        if let Some(p) = ctx.at(ply + 1) {
            p.table_probes += sorter.probed() as u64;
            p.table_hits += sorter.exact() as u64;
        }
        if let Some(p) = ctx.at(ply) {
            p.expanded += 1;
        }
        let mut found = Found {
            best: i32::MIN,
            best_mv: NO_MOVE,
            rep: false,
            spent: 0,
        };
        // Per child (by index), its range from the hash entries read here.
        let mut known = [None; 6];
        if self.opts.etc {
            if let Some((v, mv)) = self.etc_cut(ctx, &sorter, beta, &mut known) {
                found.best = v;
                found.best_mv = mv;
                if let Some(p) = ctx.at(ply) {
                    p.etc_cuts += 1;
                }
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
            let c = (c, known[i]);
            if self.try_move(ctx, node, c, busy, (&mut found, &mut a), beta)? {
                found.spent = ctx.nodes - nodes_before;
                if let Some(p) = ctx.at(ply) {
                    p.cuts += 1;
                    p.first_cuts += (i == 0) as u64;
                }
                return Ok(found);
            }
        }
        for &i in &deferred[..n_deferred] {
            let c = (&children[i], known[i]);
            if self.try_move(ctx, node, c, None, (&mut found, &mut a), beta)? {
                if let Some(p) = ctx.at(ply) {
                    p.cuts += 1;
                }
                break;
            }
        }
        found.spent = ctx.nodes - nodes_before;
        Ok(found)
    }

    /// Searches move `c` in the window `(a, beta)`, marked busy in `busy`
    /// meanwhile, and folds its score into `found` and `a`. Returns whether
    /// it reached `beta`. `known`: the child's range from its hash entries,
    /// read by [`Self::etc_cut`].
    fn try_move(
        &self,
        ctx: &mut Ctx,
        node: &Node,
        (c, known): (&Child, Option<Range>),
        busy: Option<&Busy>,
        (found, a): (&mut Found, &mut i32),
        beta: i32,
    ) -> Result<bool, Abort> {
        let (score, rep) = match self.known_score(c, known, *a, beta) {
            Some(score) => {
                if let Some(p) = ctx.at(ctx.ply() - 1) {
                    p.known_children += 1;
                }
                (score, false)
            }
            None => {
                // Only a child that is searched is marked busy.
                let key = busy.filter(|_| c.exact.is_none()).map(|b| {
                    let k = c.pos.key();
                    b.enter(k);
                    (b, k)
                });
                let r = self.move_score(ctx, node, c, *a, beta);
                if let Some((b, k)) = key {
                    b.leave(k);
                }
                r?
            }
        };
        found.rep |= rep;
        if score > found.best {
            found.best = score;
            found.best_mv = c.mv.0;
        }
        *a = (*a).max(score);
        Ok(*a >= beta)
    }

    /// The fail-soft score of move `c` in the window `(a, beta)` when the
    /// child's range `known`, read from its hash entries by the parent,
    /// decides it (as the child's own probe would, without visiting it).
    fn known_score(&self, c: &Child, known: Option<Range>, a: i32, beta: i32) -> Option<i32> {
        let r = known?;
        if c.captured > 0 {
            let (lower, upper) = (
                capture_value(c.captured, beta),
                capture_value(c.captured, a),
            );
            cut(r, lower, upper).map(|v| capture_value(c.captured, v))
        } else {
            cut(r, -beta, -a).map(|v| -v)
        }
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
                let v = match level.dont_care() {
                    // Read through the levels below (tables::dontcare).
                    true => t.value::<G>(&p)?,
                    false => level.value_with(idx, || t.rule.w::<G>(&p))?,
                };
                Some(capture_value(c, v))
            })
            .max()
    }

    /// Enhanced transposition cutoff: a move whose child's table entry
    /// already proves it reaches `beta`, with the bound it proves. Such a
    /// bound holds on every path (a child on the path is left to the
    /// search, which scores it as a repeat). Each child's range from the
    /// entries read goes to `known` (by child index), for the moves' search
    /// to skip a child whose range already decides its window.
    fn etc_cut(
        &self,
        ctx: &mut Ctx,
        sorter: &MoveSorter,
        beta: i32,
        known: &mut [Option<Range>; 6],
    ) -> Option<(i32, u8)> {
        let first = sorter.exact();
        let rest = &sorter.children()[first..];
        let mut boards = [Packed(0); 6];
        for (c, b) in rest.iter().zip(boards.iter_mut()) {
            *b = c.pos.pack_board();
            self.tt.prefetch(self.key(b.0, Kind::Free));
        }
        let any = Range {
            lower: NEG_INF,
            upper: POS_INF,
        };
        for (i, (c, &board)) in rest.iter().zip(boards.iter()).enumerate() {
            // A capture's child is a stretch start: its Rule entry holds
            // too. A quiet child on the path scores a repeat instead.
            let kinds: &[Kind] = if c.captured > 0 {
                &[Kind::Free, Kind::Rule]
            } else if ctx.repeats(board.with_side(c.pos.side).key()) {
                continue;
            } else {
                &[Kind::Free]
            };
            let mut r = any;
            for &k in kinds {
                if let Some(e) = self.probe_tt(ctx, self.key(board.0, k)) {
                    r = r.meet(e.range());
                }
            }
            if r == any {
                continue;
            }
            known[first + i] = Some(r);
            let score = if c.captured > 0 {
                capture_value(c.captured, r.upper)
            } else {
                -r.upper
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
        ctx: &mut Ctx,
        board: u128,
        start: Option<Kind>,
        (known, found): (&Known, &Found),
        (alpha, beta): (i32, i32),
    ) {
        if !self.opts.use_tt {
            return;
        }
        let entry = |r: Range| Entry::new(r, found.best_mv, found.spent);
        let (mut stores, mut overwrites) = (0, 0);
        if !found.rep {
            let r = found.bounds(known.free, alpha, beta);
            overwrites += self.tt.store(self.key(board, Kind::Free), entry(r)) as u64;
            stores += 1;
        }
        if let Some(kind) = start {
            let r = found.bounds(known.own, alpha, beta);
            overwrites += self.tt.store(self.key(board, kind), entry(r)) as u64;
            stores += 1;
        }
        if let Some(p) = ctx.here() {
            p.stores += stores;
            p.overwrites += overwrites;
        }
    }
}
