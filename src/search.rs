//! Exact search: fail-soft alpha-beta (negamax) with null-window bisection,
//! a shared transposition table, endgame-table probes and Lazy SMP.
//!
//! # What is computed (RULES.md §4)
//!
//! The root starts a stretch. Inside a stretch a position that repeats one
//! on the current path scores `w` of the stretch start (seen by the right
//! side). A capture starts a new stretch: its child is a *stretch start*,
//! probed in the endgame tables when its level is covered and otherwise
//! searched with a fresh path and its own `w`.
//!
//! The value of each legal move is defined positionally, exactly as the
//! tables define it, so `solve` and `tables probe` agree move by move:
//! a capture is worth `captured − value(child)`, a quiet move
//! `clamp(w, −hi(c), −lo(c))`, where `lo(c)`/`hi(c)` are the child's values
//! as a stretch start with endless play scored worst/best for its mover.
//! The root's value is the best move's, its `lo`/`hi` follow from the
//! children's, and it is loop-sensitive when `lo < hi`.
//!
//! # `negamax` contract
//!
//! `negamax(pos, α, β)` returns `(v, rep)`. If `v ≤ α`, the value is at
//! most `v`; if `v ≥ β`, at least `v`; otherwise it is exactly `v`
//! (fail-soft). `rep` says whether a repetition was scored anywhere in the
//! node's stretch below it; it does not cross captures, which start
//! stretches of their own. Exact values come from null-window tests
//! `(t − 1, t)` that bisect the possible values (`−n..=n` for `n` seeds on
//! the board, plus `w` when it is ±∞); the transposition table keeps the
//! bounds between tests, so each test also orders the next one's moves (the
//! part iterative deepening plays in depth-limited engines).
//!
//! # Path dependence (graph-history interaction)
//!
//! A result inside a stretch may depend on the path (which positions count
//! as repeats) and on the stretch's `w`. The table therefore stores only
//! results that cannot:
//! - [`Kind::Free`] entries, written only when `rep` is false: no repeat was
//!   scored under the node, so the same search from that node as a fresh
//!   start would give the same bound for *every* `w`; such a bound holds
//!   for `lo` and `hi` alike, hence for the node's value on any path.
//! - [`Kind::Rule`], [`Kind::Lo`], [`Kind::Hi`] entries, written only at
//!   stretch starts, whose path begins at the node itself; they are read
//!   only at stretch starts of the same kind.
//!
//! A result that depended on a repeat is never stored (only used on its
//! path), so no path can read another path's repeat.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use crate::game::{Game, Move, Position};
use crate::tables::TableSet;
use crate::tt::{key, Entry, Kind, TransTable, NO_MOVE};
use crate::value::{Contribution, LoopRule, Range, NEG_INF, POS_INF};

/// Search limits.
#[derive(Clone, Copy, Debug, Default)]
pub struct Limits {
    /// Stop after about this many nodes.
    pub nodes: Option<u64>,
    /// Stop after this much time.
    pub time: Option<Duration>,
}

/// Search options. The `use_*` switches exist to measure each technique.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Loop rule.
    pub rule: LoopRule,
    /// Limits.
    pub limits: Limits,
    /// Probe and store the transposition table.
    pub use_tt: bool,
    /// Order moves (TT move, captures by size, then a static guess).
    pub ordering: bool,
    /// Probe endgame tables at stretch starts.
    pub use_tables: bool,
    /// Use rayon's pool for Lazy SMP helpers inside each exact solve.
    pub parallel: bool,
    /// Longest principal variation to extract.
    pub pv_max: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            rule: LoopRule::Start,
            limits: Limits::default(),
            use_tt: true,
            ordering: true,
            use_tables: true,
            parallel: true,
            pv_max: 24,
        }
    }
}

/// A search that cannot be set up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SearchError {
    /// The tables were built under another loop rule.
    #[error("tables were built with --loop {} but the search uses --loop {}", .tables.name(), .search.name())]
    TablesRule {
        /// The tables' rule.
        tables: LoopRule,
        /// The search's rule.
        search: LoopRule,
    },
    /// The tables are for the other game.
    #[error("tables are for {tables}, not {search}")]
    TablesGame {
        /// The tables' game.
        tables: crate::game::GameId,
        /// The search's game.
        search: crate::game::GameId,
    },
}

/// The search was stopped by a limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Abort;

/// One root move's result.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct MoveResult {
    /// The move.
    #[serde(skip)]
    pub mv: Move,
    /// Bounds of its value (exact when equal).
    pub value: Range,
    /// Seeds it captures.
    pub captured: u8,
    /// What it contributes to the position's value, `lo` and `hi`.
    #[serde(skip)]
    pub part: Contribution,
}

impl MoveResult {
    /// A capture of `captured` seeds whose child (a stretch start) has value bounds `child`.
    pub fn capture(mv: Move, captured: u8, child: Range) -> Self {
        Self::new(mv, captured, Contribution::capture(captured, child))
    }

    /// A quiet move whose child has `lo`/`hi` bounds, in a stretch whose
    /// repeat score seen by the mover is `w`.
    pub fn quiet(mv: Move, w: i32, lo: Range, hi: Range) -> Self {
        Self::new(mv, 0, Contribution::quiet(w, lo, hi))
    }

    fn new(mv: Move, captured: u8, part: Contribution) -> Self {
        MoveResult {
            mv,
            value: part.value,
            captured,
            part,
        }
    }

    /// The position's value, `lo` and `hi` bounds from its moves.
    pub fn join(moves: &[MoveResult]) -> Contribution {
        moves
            .iter()
            .fold(Contribution::NONE, |acc, m| acc.join(m.part))
    }
}

/// Where a principal variation stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum PvEnd {
    /// The game ended.
    GameOver,
    /// The position is covered by the endgame tables.
    TableHit,
    /// A position of the line repeated within its stretch.
    Loop,
    /// The length cap was reached.
    Length,
    /// A value on the line is not exact (limits).
    Unresolved,
}

/// The full analysis of a position.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// Bounds of the value.
    pub value: Range,
    /// Bounds of `lo` and `hi` of the root.
    pub lo: Range,
    /// See `lo`.
    pub hi: Range,
    /// Every legal move, best first.
    pub moves: Vec<MoveResult>,
    /// Principal variation.
    pub pv: Vec<Move>,
    /// Why the PV stops.
    pub pv_end: PvEnd,
    /// True if the whole answer came from the endgame tables.
    pub from_tables: bool,
    /// Counters.
    pub stats: Stats,
}

impl Analysis {
    /// `Some(true/false)` when known, `None` when the limits left it open.
    pub fn loop_sensitive(&self) -> Option<bool> {
        if self.lo.upper < self.hi.lower {
            Some(true)
        } else if self.lo.exact() && self.hi.exact() {
            Some(self.lo.lower < self.hi.lower)
        } else {
            None
        }
    }
}

/// Search counters.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct Stats {
    /// Nodes visited.
    pub nodes: u64,
    /// Transposition-table probes.
    pub tt_probes: u64,
    /// Probes that found an entry.
    pub tt_hits: u64,
    /// Endgame-table probes that answered.
    pub table_hits: u64,
    /// Wall time in milliseconds.
    pub time_ms: u64,
}

struct Ctx {
    /// Set for Lazy-SMP helpers: the main thread raises it when it is done.
    helper: Option<std::sync::Arc<AtomicBool>>,
    /// Non-zero for helpers: perturbs the order of quiet moves.
    perturb: u64,
    stack: Vec<u64>,
    /// Counting filter over the keys on `stack`: a zero slot proves a key
    /// is not on the path, so most nodes skip the scan.
    filter: Box<[u8; FILTER]>,
    base: usize,
    nodes: u64,
    flushed: u64,
    probes: u64,
    hits: u64,
    table_hits: u64,
}

const FILTER: usize = 4096;

impl Ctx {
    fn push(&mut self, key: u64) {
        self.stack.push(key);
        let f = &mut self.filter[key as usize % FILTER];
        *f = f.saturating_add(1);
    }

    fn pop(&mut self) {
        if let Some(key) = self.stack.pop() {
            let f = &mut self.filter[key as usize % FILTER];
            // A saturated slot stays saturated (it then only costs scans).
            if *f != u8::MAX {
                *f -= 1;
            }
        }
    }

    /// Whether `key` is on the stack at or above `base`.
    #[inline]
    fn repeats(&self, key: u64) -> bool {
        self.filter[key as usize % FILTER] != 0 && self.stack[self.base..].contains(&key)
    }

    fn new() -> Self {
        Ctx {
            helper: None,
            perturb: 0,
            stack: Vec::with_capacity(256),
            filter: Box::new([0; FILTER]),
            base: 0,
            nodes: 0,
            flushed: 0,
            probes: 0,
            hits: 0,
            table_hits: 0,
        }
    }
}

/// An exact solver for game `G` over a transposition table `T`.
pub struct Searcher<'a, G: Game, T: TransTable> {
    tables: Option<&'a TableSet>,
    tt: &'a T,
    opts: Options,
    stop: AtomicBool,
    nodes: AtomicU64,
    probes: AtomicU64,
    hits: AtomicU64,
    table_hits: AtomicU64,
    deadline: Option<Instant>,
    _g: std::marker::PhantomData<G>,
}

impl<'a, G: Game, T: TransTable> Searcher<'a, G, T> {
    /// A searcher. `tables` must be built under `opts.rule` (checked).
    ///
    /// # Errors
    /// When the tables' loop rule or game differs from the search's.
    pub fn new(
        tables: Option<&'a TableSet>,
        tt: &'a T,
        opts: Options,
    ) -> Result<Self, SearchError> {
        if let Some(t) = tables {
            if t.rule != opts.rule {
                return Err(SearchError::TablesRule {
                    tables: t.rule,
                    search: opts.rule,
                });
            }
            if t.game != G::ID {
                return Err(SearchError::TablesGame {
                    tables: t.game,
                    search: G::ID,
                });
            }
        }
        Ok(Searcher {
            tables: if opts.use_tables { tables } else { None },
            tt,
            opts,
            stop: AtomicBool::new(false),
            nodes: AtomicU64::new(0),
            probes: AtomicU64::new(0),
            hits: AtomicU64::new(0),
            table_hits: AtomicU64::new(0),
            deadline: opts.limits.time.map(|d| Instant::now() + d),
            _g: Default::default(),
        })
    }

    /// Stops the search as if a limit had been reached: a running
    /// [`Searcher::analyse`] returns soon after (within about 1024 nodes per
    /// thread) with the bounds proved so far. Callable from another thread
    /// (the web server cancels a solve whose client went away).
    pub fn stop(&self) {
        self.stop.store(true, Relaxed);
    }

    /// Nodes searched so far, for progress reports (counted in steps of
    /// about 1024 per thread).
    pub fn nodes(&self) -> u64 {
        self.nodes.load(Relaxed)
    }

    fn flush(&self, ctx: &mut Ctx) -> Result<(), Abort> {
        let d = ctx.nodes - ctx.flushed;
        ctx.flushed = ctx.nodes;
        let total = self.nodes.fetch_add(d, Relaxed) + d;
        self.probes
            .fetch_add(std::mem::take(&mut ctx.probes), Relaxed);
        self.hits.fetch_add(std::mem::take(&mut ctx.hits), Relaxed);
        self.table_hits
            .fetch_add(std::mem::take(&mut ctx.table_hits), Relaxed);
        if ctx.helper.as_ref().is_some_and(|h| h.load(Relaxed)) {
            return Err(Abort);
        }
        if self.stop.load(Relaxed) {
            return Err(Abort);
        }
        let over_nodes = self.opts.limits.nodes.is_some_and(|n| total >= n);
        let over_time = self.deadline.is_some_and(|d| Instant::now() >= d);
        if over_nodes || over_time {
            self.stop.store(true, Relaxed);
            return Err(Abort);
        }
        Ok(())
    }

    fn probe_tt(&self, ctx: &mut Ctx, k: u128) -> Option<Entry> {
        if !self.opts.use_tt {
            return None;
        }
        ctx.probes += 1;
        let e = self.tt.probe(k);
        ctx.hits += e.is_some() as u64;
        e
    }

    /// Fail-soft negamax; see the module documentation for the contract.
    /// `w` is the stretch's repeat score seen by `pos`'s mover; `start` is
    /// the kind of stretch start `pos` is, or `None` inside a stretch.
    fn negamax(
        &self,
        ctx: &mut Ctx,
        pos: &Position,
        alpha: i32,
        beta: i32,
        w: i32,
        start: Option<Kind>,
    ) -> Result<(i32, bool), Abort> {
        ctx.nodes += 1;
        if ctx.nodes & 1023 == 0 {
            self.flush(ctx)?;
        }
        // One packing per node: the table key clears the side, the path key keeps it.
        let pk = Position { side: 0, ..*pos }.pack().0;
        let full_key = crate::game::Packed(pk | ((pos.side as u128) << 84)).key();
        if start.is_none() && ctx.repeats(full_key) {
            return Ok((w, true));
        }
        let moves = G::legal_moves(pos);
        if moves.is_empty() {
            return Ok((G::split(pos), false));
        }
        let n = pos.level() as i32;
        if let (Some(kind), Some(t)) = (start, self.tables) {
            if let Some(b) = t.bounds::<G>(pos) {
                ctx.table_hits += 1;
                let v = match kind {
                    Kind::Rule => b.value(w),
                    Kind::Lo => b.lo,
                    Kind::Hi => b.hi,
                    Kind::Free => unreachable!("Free is not a start kind"),
                };
                return Ok((v, false));
            }
        }
        // Free entries bound `lo` from below and `hi` from above: they hold
        // for every w, and a cut made with them alone depends on no repeat.
        let (mut flb, mut fub) = (NEG_INF, POS_INF);
        let mut hint = NO_MOVE;
        if let Some(e) = self.probe_tt(ctx, key(pk, Kind::Free)) {
            (flb, fub) = (e.lower as i32, e.upper as i32);
            hint = e.best;
        }
        if flb >= beta || flb == fub {
            return Ok((flb, false));
        }
        if fub <= alpha {
            return Ok((fub, false));
        }
        // The seed count (|value| ≤ n unless w is ±∞) and the start-kind
        // entry hold only for this stretch's w: a cut that needs them is
        // reported as repeat-dependent, so no caller stores it as Free.
        let seed = Range::full(n, w);
        let (mut lb, mut ub) = (flb.max(seed.lower), fub.min(seed.upper));
        if let Some(kind) = start {
            if let Some(e) = self.probe_tt(ctx, key(pk, kind)) {
                lb = lb.max(e.lower as i32);
                ub = ub.min(e.upper as i32);
                if e.best != NO_MOVE {
                    hint = e.best;
                }
            }
        }
        if lb >= beta || lb == ub {
            return Ok((lb, true));
        }
        if ub <= alpha {
            return Ok((ub, true));
        }

        let saved_base = ctx.base;
        if start.is_some() {
            ctx.base = ctx.stack.len();
        }
        ctx.push(full_key);
        let nodes_before = ctx.nodes;

        let ordered = self.order(pos, &moves, hint, ctx.perturb);
        let mut best = i32::MIN;
        let mut best_mv = NO_MOVE;
        let mut rep = false;
        let mut a = alpha;
        let mut result = Ok(());
        for &(mv, child, cap) in ordered.iter().take(moves.len()) {
            let score = if cap > 0 {
                let c = cap as i32;
                match self.negamax(
                    ctx,
                    &child,
                    c - beta,
                    c - a,
                    self.opts.rule.w::<G>(&child),
                    Some(Kind::Rule),
                ) {
                    Ok((v, _)) => c - v,
                    Err(e) => {
                        result = Err(e);
                        break;
                    }
                }
            } else {
                match self.negamax(ctx, &child, -beta, -a, -w, None) {
                    Ok((v, r)) => {
                        rep |= r;
                        -v
                    }
                    Err(e) => {
                        result = Err(e);
                        break;
                    }
                }
            };
            if score > best {
                best = score;
                best_mv = mv.0;
            }
            if best > a {
                a = best;
            }
            if a >= beta {
                break;
            }
        }
        ctx.pop();
        ctx.base = saved_base;
        result?;

        if self.opts.use_tt {
            let bounds = |l: i32, u: i32| {
                if best <= alpha {
                    (l, best)
                } else if best >= beta {
                    (best, u)
                } else {
                    (best, best)
                }
            };
            let spent = ctx.nodes - nodes_before;
            let entry = |(lower, upper): (i32, i32)| Entry {
                lower: lower as i16,
                upper: upper as i16,
                best: best_mv,
                work: (64 - spent.leading_zeros()) as u16,
            };
            if !rep {
                self.tt.store(key(pk, Kind::Free), entry(bounds(flb, fub)));
            }
            if let Some(kind) = start {
                self.tt.store(key(pk, kind), entry(bounds(lb, ub)));
            }
        }
        Ok((best, rep))
    }

    /// Moves with their children, best guess first.
    fn order(
        &self,
        pos: &Position,
        moves: &crate::game::MoveList,
        hint: u8,
        perturb: u64,
    ) -> [(Move, Position, u8); 6] {
        let mut out = [(Move(0), Position::default(), 0u8); 6];
        let mut keys = [0i32; 6];
        for (i, mv) in moves.iter().enumerate() {
            let p = G::play_unchecked(pos, mv);
            out[i] = (mv, p.pos, p.captured);
            keys[i] = if !self.opts.ordering {
                0
            } else if mv.0 == hint {
                10_000
            } else if p.captured > 0 {
                1000 + p.captured as i32
            } else {
                // The opponent's view of the split after the move, negated;
                // helpers break ties (and near-ties) differently.
                let noise = if perturb == 0 {
                    0
                } else {
                    (crate::game::mix64(perturb ^ p.pos.key()) & 3) as i32
                };
                -G::split(&p.pos) * 4 + noise
            };
        }
        if self.opts.ordering {
            // Insertion sort, stable, descending.
            for i in 1..moves.len() {
                let mut j = i;
                while j > 0 && keys[j - 1] < keys[j] {
                    keys.swap(j - 1, j);
                    out.swap(j - 1, j);
                    j -= 1;
                }
            }
        }
        out
    }

    /// Bounds of a stretch start's value under `kind` (Rule, Lo or Hi),
    /// by null-window bisection. The flag is true when the bounds hold for
    /// every way of scoring repeats: both ends were proved by tests and no
    /// test met a repeat or used a w-dependent cut.
    pub fn solve_start(&self, pos: &Position, kind: Kind) -> (Range, bool) {
        let w = match kind {
            Kind::Rule => self.opts.rule.w::<G>(pos),
            Kind::Lo => NEG_INF,
            Kind::Hi => POS_INF,
            Kind::Free => unreachable!("Free is not a start kind"),
        };
        let n = pos.level() as i32;
        let mut cands: Vec<i32> = (-n..=n).collect();
        if !(-n..=n).contains(&w) {
            cands.push(w);
            cands.sort_unstable();
        }
        if self.opts.parallel && rayon::current_num_threads() > 1 {
            // Lazy SMP: helpers run the same bisection with perturbed move
            // orders and fill the shared table; the main thread's answer is
            // the one returned, and it stops the helpers when done.
            let done = std::sync::Arc::new(AtomicBool::new(false));
            return rayon::scope(|sc| {
                for h in 1..rayon::current_num_threads() {
                    let mut ctx = Ctx::new();
                    ctx.helper = Some(done.clone());
                    ctx.perturb = h as u64;
                    let cands = &cands;
                    sc.spawn(move |_| {
                        let _ = self.bisect(pos, kind, w, cands, &mut ctx);
                    });
                }
                let r = self.bisect(pos, kind, w, &cands, &mut Ctx::new());
                done.store(true, Relaxed);
                r
            });
        }
        self.bisect(pos, kind, w, &cands, &mut Ctx::new())
    }

    /// The null-window bisection of [`Searcher::solve_start`].
    fn bisect(
        &self,
        pos: &Position,
        kind: Kind,
        w: i32,
        cands: &[i32],
        ctx: &mut Ctx,
    ) -> (Range, bool) {
        let mut r = Range {
            lower: cands[0],
            upper: *cands.last().unwrap(),
        };
        let (mut rep_any, mut lower_proved, mut upper_proved) = (false, false, false);
        while r.lower < r.upper {
            let inside: Vec<i32> = cands
                .iter()
                .copied()
                .filter(|&v| v > r.lower && v <= r.upper)
                .collect();
            let t = inside[(inside.len() - 1) / 2];
            match self.negamax(ctx, pos, t - 1, t, w, Some(kind)) {
                Ok((v, rep)) => {
                    rep_any |= rep;
                    // Fail-soft bounds may fall between the possible values:
                    // snap them onto the candidate list.
                    if v >= t {
                        let snapped = cands.iter().copied().find(|&c| c >= v).unwrap_or(r.upper);
                        r.lower = r.lower.max(snapped).min(r.upper);
                        lower_proved = true;
                    } else {
                        let snapped = cands
                            .iter()
                            .rev()
                            .copied()
                            .find(|&c| c <= v)
                            .unwrap_or(r.lower);
                        r.upper = r.upper.min(snapped).max(r.lower);
                        upper_proved = true;
                    }
                }
                Err(Abort) => break,
            }
        }
        let _ = self.flush(ctx);
        (r, !rep_any && lower_proved && upper_proved && r.exact())
    }

    /// Analyses every move of `pos` within a stretch whose repeat score,
    /// seen by `pos`'s mover, is `w`. Returns the move results (unsorted).
    fn move_results(&self, pos: &Position, w: i32) -> Vec<MoveResult> {
        let moves: Vec<Move> = G::legal_moves(pos).iter().collect();
        let one = |&mv: &Move| {
            let p = G::play_unchecked(pos, mv);
            if p.captured > 0 {
                MoveResult::capture(mv, p.captured, self.solve_start(&p.pos, Kind::Rule).0)
            } else {
                let (lo, w_free) = self.solve_start(&p.pos, Kind::Lo);
                let hi = if w_free {
                    lo
                } else {
                    self.solve_start(&p.pos, Kind::Hi).0
                };
                MoveResult::quiet(mv, w, lo, hi)
            }
        };
        // Root moves one after another, so that each benefits from the
        // table entries of the previous ones; threads work inside each solve.
        moves.iter().map(one).collect()
    }

    fn stats(&self, t0: Instant) -> Stats {
        Stats {
            nodes: self.nodes.load(Relaxed),
            tt_probes: self.probes.load(Relaxed),
            tt_hits: self.hits.load(Relaxed),
            table_hits: self.table_hits.load(Relaxed),
            time_ms: t0.elapsed().as_millis() as u64,
        }
    }

    /// Analyses `pos` as the start of a stretch: the value, every move's
    /// value, the principal variation and the loop-sensitivity.
    pub fn analyse(&self, pos: &Position) -> Analysis {
        self.analyse_with(pos, None)
    }

    /// Like [`Searcher::analyse`], but with `depth = Some(d)` every move is
    /// valued by plain minimax over the next `d` plies only, where a position
    /// left unresolved at the horizon contributes its whole possible range:
    /// the results are proven bounds (exact where the horizon was never
    /// reached), never an evaluation.
    pub fn analyse_depth(&self, pos: &Position, depth: u32) -> Analysis {
        self.analyse_with(pos, Some(depth))
    }

    fn analyse_with(&self, pos: &Position, depth: Option<u32>) -> Analysis {
        let t0 = Instant::now();
        let w = self.opts.rule.w::<G>(pos);
        if G::legal_moves(pos).is_empty() {
            let v = G::split(pos);
            let r = Range::point(v);
            return Analysis {
                value: r,
                lo: r,
                hi: r,
                moves: Vec::new(),
                pv: Vec::new(),
                pv_end: PvEnd::GameOver,
                from_tables: false,
                stats: self.stats(t0),
            };
        }
        let (mut moves, from_tables) = match (self.table_moves(pos, w), depth) {
            (Some(m), _) => (m, true),
            (None, None) => (self.move_results(pos, w), false),
            (None, Some(d)) => (self.depth_move_results(pos, w, d), false),
        };
        let Contribution { value, lo, hi } = MoveResult::join(&moves);
        moves.sort_by_key(|m| std::cmp::Reverse((m.value.lower, m.value.upper)));
        let (pv, pv_end) = if depth.is_none() {
            self.principal_variation(pos, w, &moves, value)
        } else {
            (Vec::new(), PvEnd::Unresolved)
        };
        Analysis {
            value,
            lo,
            hi,
            moves,
            pv,
            pv_end,
            from_tables,
            stats: self.stats(t0),
        }
    }

    /// Move results from [`Searcher::depth_range`], as `move_results` does
    /// with exact solves.
    fn depth_move_results(&self, pos: &Position, w: i32, depth: u32) -> Vec<MoveResult> {
        let mut ctx = Ctx::new();
        let d = depth.saturating_sub(1);
        G::legal_moves(pos)
            .iter()
            .map(|mv| {
                let p = G::play_unchecked(pos, mv);
                if p.captured > 0 {
                    let rule_w = self.opts.rule.w::<G>(&p.pos);
                    MoveResult::capture(
                        mv,
                        p.captured,
                        self.depth_range(&mut ctx, &p.pos, d, rule_w, Some(Kind::Rule)),
                    )
                } else {
                    let lo = self.depth_range(&mut ctx, &p.pos, d, NEG_INF, Some(Kind::Lo));
                    let hi = self.depth_range(&mut ctx, &p.pos, d, POS_INF, Some(Kind::Hi));
                    MoveResult::quiet(mv, w, lo, hi)
                }
            })
            .collect()
    }

    /// Bounds of `pos`'s value by plain minimax to `depth` plies (no pruning,
    /// no transposition table), with repeats scored `w` as in `negamax` and
    /// endgame tables probed at stretch starts. At the horizon a position
    /// gets its whole range, so the result always contains the exact value.
    fn depth_range(
        &self,
        ctx: &mut Ctx,
        pos: &Position,
        depth: u32,
        w: i32,
        start: Option<Kind>,
    ) -> Range {
        ctx.nodes += 1;
        if ctx.nodes & 1023 == 0 && self.flush(ctx).is_err() {
            return Range::full(pos.level() as i32, w);
        }
        let key = pos.key();
        if start.is_none() && ctx.repeats(key) {
            return Range::point(w);
        }
        let moves = G::legal_moves(pos);
        if moves.is_empty() {
            let v = G::split(pos);
            return Range::point(v);
        }
        if let (Some(kind), Some(t)) = (start, self.tables) {
            if let Some(b) = t.bounds::<G>(pos) {
                ctx.table_hits += 1;
                let v = match kind {
                    Kind::Lo => b.lo,
                    Kind::Hi => b.hi,
                    _ => b.value(w),
                };
                return Range::point(v);
            }
        }
        if depth == 0 {
            return Range::full(pos.level() as i32, w);
        }
        let saved = ctx.base;
        if start.is_some() {
            ctx.base = ctx.stack.len();
        }
        ctx.push(key);
        let mut r = Range::NONE;
        for mv in moves.iter() {
            let p = G::play_unchecked(pos, mv);
            let m = if p.captured > 0 {
                let v = self.depth_range(
                    ctx,
                    &p.pos,
                    depth - 1,
                    self.opts.rule.w::<G>(&p.pos),
                    Some(Kind::Rule),
                );
                Contribution::capture(p.captured, v).value
            } else {
                self.depth_range(ctx, &p.pos, depth - 1, -w, None).neg()
            };
            r = r.max_join(m);
        }
        ctx.pop();
        ctx.base = saved;
        r
    }

    /// Move results straight from the tables when they cover `pos`.
    fn table_moves(&self, pos: &Position, w: i32) -> Option<Vec<MoveResult>> {
        let t = self.tables?;
        if pos.in_opening() || !t.covers(pos.level()) {
            return None;
        }
        self.table_hits.fetch_add(1, Relaxed);
        let mut out = Vec::new();
        for mv in G::legal_moves(pos).iter() {
            let p = G::play_unchecked(pos, mv);
            if p.captured > 0 {
                out.push(MoveResult::capture(
                    mv,
                    p.captured,
                    Range::point(t.value::<G>(&p.pos)?),
                ));
            } else {
                let b = t.bounds::<G>(&p.pos)?;
                out.push(MoveResult::quiet(
                    mv,
                    w,
                    Range::point(b.lo),
                    Range::point(b.hi),
                ));
            }
        }
        Some(out)
    }

    fn principal_variation(
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
            if pv.len() >= self.opts.pv_max || self.stop.load(Relaxed) {
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
