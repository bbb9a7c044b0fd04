//! Exact search: fail-soft alpha-beta (negamax) with null-window bisection,
//! a shared transposition table, endgame-table probes and ABDADA threads.
//!
//! # What is computed (docs/RULES.md §4: values and the loop rule)
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
//! # How
//!
//! Exact values come from null-window tests `(t − 1, t)` of a fail-soft
//! negamax (contract in `negamax.rs`) that bisect the possible values
//! (`−n..=n` for `n` seeds on the board, plus `w` when it is ±∞); the
//! transposition table keeps the bounds between tests, so each test also
//! orders the next one's moves (the part iterative deepening plays in
//! depth-limited engines). An analysis solves the root's value before its
//! moves' values, each under growing node budgets, so that a limit leaves
//! the value exact when only some move's value is hard (`root.rs`).
//!
//! One concern per file: `negamax` (the node search, its table cuts, the
//! table-based move pruning and the store), `bisect` (exact values of
//! stretch starts), `root` (an analysis's root value and move values under
//! budgets), `parallel` (the
//! threads of a solve, ABDADA, and their stacks), `ordering`
//! (the move sorter), `ctx` (a thread's path and counters, the shared
//! counters and the stop rule), `pv` (principal variation), `depth`
//! (depth-limited bounds) and `analysis` (the result types).
//!
//! # Path dependence (graph-history interaction)
//!
//! A result inside a stretch may depend on the path (which positions count
//! as repeats) and on the stretch's `w`. The table therefore stores only
//! results that cannot:
//! - [`Kind::Free`](crate::tt::Kind::Free) entries, written only when `rep` is false: no repeat was
//!   scored under the node, so the same search from that node as a fresh
//!   start would give the same bound for *every* `w`; such a bound holds
//!   for `lo` and `hi` alike, hence for the node's value on any path.
//! - `Kind::Rule`, `Kind::Lo`, `Kind::Hi` entries, written only at
//!   stretch starts, whose path begins at the node itself; they are read
//!   only at stretch starts of the same kind.
//!
//! A result that depended on a repeat is never stored (only used on its
//! path), so no path can read another path's repeat. Every key also
//! carries the search's rule set and loop rule ([`crate::tt::Context`]),
//! so searches under other rules may share the table.

use std::time::{Duration, Instant};

use crate::game::{Game, Position};
use crate::tables::TableSet;
use crate::tt::TransTable;
use crate::value::{Contribution, LoopRule, Range, POS_INF};

mod analysis;
mod bisect;
mod ctx;
mod depth;
mod negamax;
mod ordering;
mod parallel;
mod profile;
mod pv;
mod root;

pub use analysis::{Analysis, MoveResult, PvEnd, Stats};
use ctx::Shared;
pub use parallel::MAX_PLY;
pub use profile::{PlyCounts, Profile, PLIES};

/// Search limits.
#[derive(Clone, Copy, Debug, Default)]
pub struct Limits {
    /// Stop after about this many nodes (passed by at most an eighth, or by
    /// one node per thread).
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
    /// Enhanced transposition cutoffs: before searching a node's moves,
    /// look for a child whose table entry already proves a cut.
    pub etc: bool,
    /// Probe endgame tables at stretch starts.
    pub use_tables: bool,
    /// Table-based move pruning: a quiet move whose child has a capture
    /// the endgame tables value at `v` or more is worth at most `−v`, and
    /// is not searched when that fails low.
    pub exit_prune: bool,
    /// Run each exact solve on as many threads as rayon's current pool has.
    pub parallel: bool,
    /// With several threads, defer moves another thread is searching
    /// (ABDADA); off, to measure: the threads share the table only.
    pub abdada: bool,
    /// Longest principal variation to extract.
    pub pv_max: usize,
    /// Longest path the search follows, in plies: a path reaching it stops
    /// the search as a limit does, and the stats say so. At most
    /// [`MAX_PLY`] (the search stack holds no more; a larger value is taken
    /// as `MAX_PLY`), which is the default; smaller values exist to test
    /// the cap.
    pub max_ply: usize,
    /// Keep counters per ply ([`Analysis::profile`]); off by default.
    pub profile: bool,
    /// When an analysis solves the root's value ([`RootPhase`]).
    pub root_phase: RootPhase,
}

/// When an analysis solves the root's value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RootPhase {
    /// [`RootPhase::First`] under a node or time limit, else
    /// [`RootPhase::FromMoves`].
    #[default]
    Auto,
    /// Before the moves' values (`root.rs`): it stays exact when a limit
    /// stops the moves' solves, and it is often far cheaper than some
    /// move's exact value.
    First,
    /// From the moves' exact values, their best: what an analysis that
    /// runs to the end needs anyway. Solving the root's value first costs
    /// nodes those solves do not all win back (`results/search.md`,
    /// "The root's value from its moves").
    FromMoves,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            rule: LoopRule::Start,
            limits: Limits::default(),
            use_tt: true,
            ordering: true,
            etc: true,
            use_tables: true,
            exit_prune: true,
            parallel: true,
            abdada: true,
            pv_max: 24,
            max_ply: MAX_PLY,
            profile: false,
            root_phase: RootPhase::Auto,
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
    /// The tables were built under a rule set whose tables the search's
    /// rule set does not read.
    #[error("tables are for the rule set {}, not {} (their tables are {})", .tables.name(), .search.name(), .search.tables().name())]
    TablesRules {
        /// The tables' rule set.
        tables: crate::rules::RuleSet,
        /// The search's rule set.
        search: crate::rules::RuleSet,
    },
}

/// The search was stopped by a limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Abort;

/// An exact solver for game `G` over a transposition table `T`.
pub struct Searcher<'a, G: Game, T: TransTable> {
    tables: Option<&'a TableSet>,
    tt: &'a T,
    /// The rules part of every table key ([`crate::tt::Context`]): made
    /// here from `G` and the loop rule, so that no caller can share a
    /// table across rules wrongly.
    tt_ctx: crate::tt::Context,
    opts: Options,
    shared: Shared,
    /// Children being searched, shared by the threads (made on first use).
    busy: std::sync::OnceLock<parallel::Busy>,
    _g: std::marker::PhantomData<G>,
}

/// Checks that `tables` are those of `G`'s rule set under loop rule
/// `rule`: what every search over tables (the exact search, the engine's
/// estimate) asks before it reads them, in one place.
///
/// # Errors
/// [`SearchError::TablesRule`], [`SearchError::TablesGame`] or
/// [`SearchError::TablesRules`], naming both sides.
pub fn check_tables<G: Game>(tables: Option<&TableSet>, rule: LoopRule) -> Result<(), SearchError> {
    check_tables_of(G::RULES, tables, rule)
}

/// [`check_tables`] for a rule set chosen at run time.
///
/// # Errors
/// As [`check_tables`].
pub fn check_tables_of(
    rules: crate::rules::RuleSet,
    tables: Option<&TableSet>,
    rule: LoopRule,
) -> Result<(), SearchError> {
    let Some(t) = tables else { return Ok(()) };
    if t.rule != rule {
        return Err(SearchError::TablesRule {
            tables: t.rule,
            search: rule,
        });
    }
    if t.game != rules.game() {
        return Err(SearchError::TablesGame {
            tables: t.game,
            search: rules.game(),
        });
    }
    if t.rules != rules.tables() {
        return Err(SearchError::TablesRules {
            tables: t.rules,
            search: rules,
        });
    }
    Ok(())
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
        check_tables::<G>(tables, opts.rule)?;
        let opts = Options {
            max_ply: opts.max_ply.min(MAX_PLY),
            ..opts
        };
        Ok(Searcher {
            tables: if opts.use_tables { tables } else { None },
            tt,
            tt_ctx: crate::tt::Context::new(G::RULES, opts.rule),
            opts,
            shared: Shared::new(opts.limits, opts.max_ply)
                .with_alarm(tables.map(TableSet::alarm))
                .with_profile(opts.profile),
            busy: std::sync::OnceLock::new(),
            _g: Default::default(),
        })
    }

    /// The table key of packed board `board` as a `kind` entry of this
    /// search (its game, rule set and loop rule included).
    #[inline]
    fn key(&self, board: u128, kind: crate::tt::Kind) -> u128 {
        crate::tt::key(board, kind, self.tt_ctx)
    }

    fn probe_tt(&self, ctx: &mut ctx::Ctx, k: u128) -> Option<crate::tt::Entry> {
        if !self.opts.use_tt {
            return None;
        }
        ctx.probes += 1;
        let e = self.tt.probe(k);
        ctx.hits += e.is_some() as u64;
        if let Some(p) = ctx.here() {
            p.tt_probes += 1;
            p.tt_hits += e.is_some() as u64;
        }
        e
    }

    /// Stops the search as if a limit had been reached: a running
    /// [`Searcher::analyse`] returns soon after with the bounds proved so
    /// far. Callable from another thread (the web server cancels a solve
    /// whose client went away).
    pub fn stop(&self) {
        self.shared.request_stop();
    }

    /// Nodes searched so far, for progress reports (counted per flush).
    pub fn nodes(&self) -> u64 {
        self.shared.nodes()
    }

    /// The counters of everything this searcher has searched so far (time:
    /// since it was made).
    pub fn stats(&self) -> Stats {
        self.shared.stats(self.shared.born)
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
        parallel::on_search_stack(|| self.analyse_here(pos, depth))
    }

    fn analyse_here(&self, pos: &Position, depth: Option<u32>) -> Analysis {
        let t0 = Instant::now();
        let w = self.opts.rule.w::<G>(pos);
        if G::legal_moves(pos).is_empty() {
            let r = Range::point(G::split(pos));
            return Analysis {
                value: r,
                lo: r,
                hi: r,
                moves: Vec::new(),
                pv: Vec::new(),
                pv_end: PvEnd::GameOver,
                from_tables: false,
                value_ms: 0,
                stats: self.shared.stats(t0),
                profile: None,
            };
        }
        // The root's value first when a limit may stop the moves' solves
        // (it is often far cheaper than every move's exact value, and it
        // stays exact when a limit stops them); else from the moves.
        let table = self.table_moves(pos, w);
        let (root, value_ms) = match (&table, depth) {
            (None, None) if self.root_first() => {
                let root = self.solve_root(pos);
                (Some(root), t0.elapsed().as_millis() as u64)
            }
            _ => (None, 0),
        };
        let value_nodes = self.shared.nodes();
        let (mut moves, from_tables) = match (table, depth, root) {
            (Some(m), _, _) => (m, true),
            (None, Some(d), _) => (self.depth_move_results(pos, w, d), false),
            (None, None, r) => {
                let upper = r.map_or(POS_INF, |(r, _)| r.upper);
                (self.move_results(pos, w, upper), false)
            }
        };
        let Contribution {
            mut value,
            mut lo,
            mut hi,
        } = MoveResult::join(&moves);
        if let Some((r, free)) = root {
            value = value.meet(r);
            if free {
                // The root's bounds hold however repeats score: for lo and hi too.
                lo = lo.meet(r);
                hi = hi.meet(r);
            }
        }
        moves.sort_by_key(|m| std::cmp::Reverse((m.value.lower, m.value.upper)));
        let (pv, pv_end) = if depth.is_none() {
            self.principal_variation(pos, w, &moves, value)
        } else {
            (Vec::new(), PvEnd::Unresolved)
        };
        let stats = self.shared.stats(t0);
        Analysis {
            value,
            lo,
            hi,
            moves,
            pv,
            pv_end,
            from_tables,
            value_ms: if value.exact() && root.is_some() {
                value_ms.min(stats.time_ms)
            } else {
                stats.time_ms
            },
            stats,
            profile: self.opts.profile.then(|| Profile {
                // From the moves, the value is known when they all are.
                value_nodes: if root.is_some() {
                    value_nodes
                } else {
                    stats.nodes
                },
                ..self.shared.profile()
            }),
        }
    }

    /// Whether an analysis solves the root's value before its moves'
    /// ([`RootPhase`]).
    fn root_first(&self) -> bool {
        match self.opts.root_phase {
            RootPhase::Auto => self.opts.limits.nodes.is_some() || self.opts.limits.time.is_some(),
            RootPhase::First => true,
            RootPhase::FromMoves => false,
        }
    }

    /// Move results straight from the tables when they cover `pos`.
    fn table_moves(&self, pos: &Position, w: i32) -> Option<Vec<MoveResult>> {
        let t = self.tables?;
        if pos.in_opening() || !t.covers(pos.level()) {
            return None;
        }
        self.shared.table_hit();
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
}
