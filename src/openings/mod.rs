//! Batch opening analysis: every line of `K` plies from a root, each unique
//! resulting position analysed once (in parallel), results checkpointed
//! durably as they come, backed up the tree by the same rules as the search,
//! and written as CSV, JSON, Markdown and SVG.
//!
//! # Backing up
//!
//! A leaf gets the bounds of its analysis: value, `lo` and `hi`. An inner
//! node's moves are worth `captured − value(child)` (a capture) or
//! `clamp(w, −hi(child), −lo(child))` (a quiet move), exactly as in
//! [`crate::search`], so every prefix gets the value a direct solve of its
//! position would give (tested). Bounds stay bounds all the way up.
//!
//! # Checkpoint and resume
//!
//! `checkpoint.bin` in the output directory ([`crate::records`]) gets one
//! fsynced record per finished position. `--resume` reads it, drops a
//! half-written or corrupt tail with a warning, and analyses only what is
//! missing. Outputs depend only on the records, so a resumed run writes the
//! same files as an uninterrupted one (with timings switched off, since
//! wall-clock times differ between runs).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use crate::progress::Progress;
use dashmap::DashMap;
use rayon::prelude::*;
use serde_json::json;

use crate::game::{Game, Move, Packed, Position, State};
use crate::notation::{format_move, format_state};
use crate::records::{Checkpoint, CheckpointError, CheckpointHeader, ResultRecord};
use crate::search::MoveResult;
use crate::value::{Contribution, LoopRule, Range};

/// The analysis of one position, as the openings code needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeafResult {
    /// Value bounds.
    pub value: Range,
    /// `lo` bounds.
    pub lo: Range,
    /// `hi` bounds.
    pub hi: Range,
    /// Best move, if the value is exact.
    pub best: Option<Move>,
    /// Nodes searched.
    pub nodes: u64,
    /// Milliseconds spent.
    pub ms: u64,
}

impl LeafResult {
    /// The parts of a search's analysis the openings need; the best move is
    /// kept only when the value is exact.
    pub fn from_analysis(a: &crate::search::Analysis, ms: u64) -> Self {
        let best = if a.value.exact() {
            a.moves.first().map(|m| m.mv)
        } else {
            None
        };
        LeafResult {
            value: a.value,
            lo: a.lo,
            hi: a.hi,
            best,
            nodes: a.stats.nodes,
            ms,
        }
    }
}

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
}

const UNKNOWN: Range = Range::point(0);

/// Enumerates every line of `plies` moves from `root` (shorter where the
/// game ends) and deduplicates the leaf positions with a concurrent map.
pub fn enumerate<G: Game>(root: State, plies: u32) -> Tree {
    let mut nodes = vec![Node {
        state: root,
        depth: 0,
        children: Vec::new(),
        leaf: None,
        value: UNKNOWN,
        lo: UNKNOWN,
        hi: UNKNOWN,
        best: None,
    }];
    let mut stack = vec![0usize];
    while let Some(i) = stack.pop() {
        let (st, depth) = (nodes[i].state, nodes[i].depth);
        let moves = G::legal_moves(&st.pos);
        if depth == plies || moves.is_empty() {
            continue;
        }
        let mut kids = Vec::new();
        for mv in moves.iter() {
            let (s, captured) = st.play::<G>(mv);
            let child = nodes.len();
            nodes.push(Node {
                state: s,
                depth: depth + 1,
                ..nodes[0].clone()
            });
            nodes[child].children.clear();
            kids.push(Edge {
                mv,
                name: format_move::<G>(&st.pos, mv),
                captured,
                child,
                value: UNKNOWN,
            });
        }
        // Depth-first pre-order: push children in reverse so the first is next.
        stack.extend(kids.iter().rev().map(|e| e.child));
        nodes[i].children = kids;
    }
    // Re-number in pre-order (the stack above already visits in pre-order,
    // but children were appended per level); compute the order explicitly.
    let order = preorder(&nodes);
    let mut remap = vec![0usize; nodes.len()];
    for (new, &old) in order.iter().enumerate() {
        remap[old] = new;
    }
    let mut ordered: Vec<Node> = order.iter().map(|&o| nodes[o].clone()).collect();
    for n in &mut ordered {
        for e in &mut n.children {
            e.child = remap[e.child];
        }
    }
    let leaves: Vec<usize> = (0..ordered.len())
        .filter(|&i| ordered[i].children.is_empty())
        .collect();
    // Deduplicate: the concurrent map keeps, per position, its first leaf.
    let first: DashMap<Position, usize, ahash::RandomState> =
        DashMap::with_hasher(ahash::RandomState::new());
    leaves.par_iter().enumerate().for_each(|(k, &i)| {
        first
            .entry(ordered[i].state.pos)
            .and_modify(|v| *v = (*v).min(k))
            .or_insert(k);
    });
    let mut uniq: Vec<(usize, Position)> = first.into_iter().map(|(p, k)| (k, p)).collect();
    uniq.sort_unstable_by_key(|x| x.0);
    let index: HashMap<Position, usize> =
        uniq.iter().enumerate().map(|(u, (_, p))| (*p, u)).collect();
    for &i in &leaves {
        ordered[i].leaf = Some(index[&ordered[i].state.pos]);
    }
    Tree {
        nodes: ordered,
        unique: uniq.into_iter().map(|x| x.1).collect(),
        leaves,
    }
}

fn preorder(nodes: &[Node]) -> Vec<usize> {
    let mut out = Vec::with_capacity(nodes.len());
    let mut stack = vec![0usize];
    while let Some(i) = stack.pop() {
        out.push(i);
        stack.extend(nodes[i].children.iter().rev().map(|e| e.child));
    }
    out
}

/// How each position is analysed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Budget {
    /// Exact values, however long it takes.
    Exact,
    /// At most this many seconds per position.
    Seconds(f64),
    /// At most about this many nodes per position.
    Nodes(u64),
    /// Plain minimax to this many plies per position: proven bounds.
    Depth(u32),
}

impl Budget {
    /// A description stored in the checkpoint and the summary.
    pub fn describe(&self) -> String {
        match self {
            Budget::Exact => "exact".into(),
            Budget::Seconds(s) => format!("{s} s per position"),
            Budget::Nodes(n) => format!("{n} nodes per position"),
            Budget::Depth(d) => format!("depth {d} per position (bounds from plain minimax)"),
        }
    }
}

/// Settings of a run.
#[derive(Clone, Debug)]
pub struct Config {
    /// The root (normally the start).
    pub root: State,
    /// Plies.
    pub plies: u32,
    /// Loop rule.
    pub rule: LoopRule,
    /// Budget.
    pub budget: Budget,
    /// The command line, for the summary.
    pub command: String,
    /// A description of the tables used, for the summary.
    pub tables: String,
    /// Write wall-clock times (off: byte-identical outputs across runs).
    pub timings: bool,
    /// Test hook: stop after this many new results, as if killed.
    pub stop_after: Option<usize>,
}

/// Why a run stopped.
#[derive(Debug)]
pub enum OpeningsError {
    /// Checkpoint trouble.
    Checkpoint(CheckpointError),
    /// Writing an output file.
    Io(PathBuf, std::io::Error),
    /// Stopped by the test hook after this many new results.
    Interrupted(usize),
}

impl std::fmt::Display for OpeningsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OpeningsError::Checkpoint(e) => write!(f, "{e}"),
            OpeningsError::Io(p, e) => write!(f, "{}: {e}", p.display()),
            OpeningsError::Interrupted(n) => {
                write!(f, "stopped after {n} new results (resume with --resume)")
            }
        }
    }
}

impl std::error::Error for OpeningsError {}

/// What a finished run reports.
#[derive(Clone, Debug)]
pub struct Report {
    /// The backed-up tree.
    pub tree: Tree,
    /// Positions analysed in this run (not taken from the checkpoint).
    pub analysed_now: usize,
    /// Bytes of a bad checkpoint tail dropped on resume.
    pub dropped_bytes: u64,
    /// Files written.
    pub files: Vec<PathBuf>,
}

fn header<G: Game>(cfg: &Config) -> CheckpointHeader {
    CheckpointHeader {
        magic: "ADJI-OPENINGS-1".into(),
        game: G::ID.name().into(),
        root: format_state::<G>(&cfg.root),
        plies: cfg.plies,
        rule: cfg.rule.name().into(),
        budget: cfg.budget.describe(),
    }
}

fn to_record(p: &Position, r: &LeafResult) -> ResultRecord {
    let k = Packed::pack(p).0;
    ResultRecord {
        key_lo: k as u64,
        key_hi: (k >> 64) as u64,
        value: (r.value.lower, r.value.upper),
        lo: (r.lo.lower, r.lo.upper),
        hi: (r.hi.lower, r.hi.upper),
        best: r.best.map(|m| m.0).unwrap_or(254),
        nodes: r.nodes,
        ms: r.ms,
    }
}

fn from_record(r: &ResultRecord) -> (Position, LeafResult) {
    let range = |(lower, upper): (i32, i32)| Range { lower, upper };
    let pos = Packed(r.key_lo as u128 | ((r.key_hi as u128) << 64)).unpack();
    (
        pos,
        LeafResult {
            value: range(r.value),
            lo: range(r.lo),
            hi: range(r.hi),
            best: (r.best != 254).then_some(Move(r.best)),
            nodes: r.nodes,
            ms: r.ms,
        },
    )
}

/// Runs the analysis into `out`: analyses what the checkpoint lacks with
/// `analyse` (in parallel), backs the results up and writes the outputs.
///
/// # Errors
/// [`OpeningsError`] on checkpoint or output trouble, or when the test hook stops the run.
pub fn run<G: Game>(
    cfg: &Config,
    out: &Path,
    resume: bool,
    analyse: impl Fn(&Position) -> LeafResult + Sync,
    bar: &dyn Progress,
) -> Result<Report, OpeningsError> {
    let t0 = Instant::now();
    std::fs::create_dir_all(out).map_err(|e| OpeningsError::Io(out.to_path_buf(), e))?;
    let mut tree = enumerate::<G>(cfg.root, cfg.plies);
    let path = out.join("checkpoint.bin");
    let h = header::<G>(cfg);
    let (ck, old, dropped) = if resume && path.exists() {
        let l = Checkpoint::resume(&path, &h).map_err(OpeningsError::Checkpoint)?;
        (l.checkpoint, l.records, l.dropped_bytes)
    } else {
        (
            Checkpoint::create(&path, &h).map_err(OpeningsError::Checkpoint)?,
            Vec::new(),
            0,
        )
    };
    let mut known: HashMap<Position, LeafResult> = old.iter().map(from_record).collect();
    let todo: Vec<usize> = (0..tree.unique.len())
        .filter(|&u| !known.contains_key(&tree.unique[u]))
        .collect();
    bar.start("positions", tree.unique.len() as u64);
    bar.inc((tree.unique.len() - todo.len()) as u64);
    let exact = AtomicUsize::new(known.values().filter(|r| r.value.exact()).count());
    let taken = AtomicUsize::new(0);
    let fresh: Vec<(usize, LeafResult)> = todo
        .par_iter()
        .filter_map(|&u| {
            if cfg
                .stop_after
                .is_some_and(|n| taken.fetch_add(1, Ordering::SeqCst) >= n)
            {
                return None;
            }
            let r = analyse(&tree.unique[u]);
            let r = LeafResult {
                ms: if cfg.timings { r.ms } else { 0 },
                ..r
            };
            ck.append(&to_record(&tree.unique[u], &r)).ok()?;
            let e = exact.fetch_add(r.value.exact() as usize, Ordering::Relaxed)
                + r.value.exact() as usize;
            bar.message(&format!("{e} exact"));
            bar.inc(1);
            Some((u, r))
        })
        .collect();
    let analysed_now = fresh.len();
    if analysed_now < todo.len() {
        return Err(OpeningsError::Interrupted(analysed_now));
    }
    for (u, r) in fresh {
        known.insert(tree.unique[u], r);
    }
    backup::<G>(&mut tree, &known, cfg.rule);
    let wall = t0.elapsed().as_secs_f64();
    let files = write_outputs::<G>(
        cfg,
        &tree,
        &known,
        out,
        if cfg.timings { Some(wall) } else { None },
    )?;
    Ok(Report {
        tree,
        analysed_now,
        dropped_bytes: dropped,
        files,
    })
}

/// Backs leaf results up the tree (post-order).
pub fn backup<G: Game>(tree: &mut Tree, known: &HashMap<Position, LeafResult>, rule: LoopRule) {
    for i in (0..tree.nodes.len()).rev() {
        if tree.nodes[i].children.is_empty() {
            let r = known[&tree.nodes[i].state.pos];
            let n = &mut tree.nodes[i];
            (n.value, n.lo, n.hi, n.best) = (r.value, r.lo, r.hi, r.best);
            continue;
        }
        let pos = tree.nodes[i].state.pos;
        let w = rule.w::<G>(&pos);
        let mut results = Vec::new();
        for e in &tree.nodes[i].children {
            let c = &tree.nodes[e.child];
            results.push(if e.captured > 0 {
                MoveResult::capture(e.mv, e.captured, c.value)
            } else {
                MoveResult::quiet(e.mv, w, c.lo, c.hi)
            });
        }
        let Contribution { value, lo, hi } = MoveResult::join(&results);
        let best = value
            .exact()
            .then(|| {
                results
                    .iter()
                    .find(|m| m.value.exact() && m.value.lower == value.lower)
                    .map(|m| m.mv)
            })
            .flatten();
        let n = &mut tree.nodes[i];
        for (e, m) in n.children.iter_mut().zip(&results) {
            e.value = m.value;
        }
        (n.value, n.lo, n.hi, n.best) = (value, lo, hi, best);
    }
}

fn range_text(r: Range) -> String {
    if r.exact() {
        format!("{:+}", r.lower)
    } else {
        format!("[{:+}, {:+}]", r.lower, r.upper)
    }
}

fn line_of(tree: &Tree, leaf: usize) -> Vec<String> {
    // Walk down from the root to find the path to `leaf` (pre-order ranges).
    let mut path = Vec::new();
    let mut i = 0;
    while i != leaf {
        let n = &tree.nodes[i];
        let mut next = None;
        for (k, e) in n.children.iter().enumerate() {
            let end = n.children.get(k + 1).map(|x| x.child).unwrap_or(usize::MAX);
            if e.child <= leaf && leaf < end {
                next = Some(e);
            }
        }
        let e = next.expect("leaf lies under the root");
        path.push(e.name.clone());
        i = e.child;
    }
    path
}

fn write(path: PathBuf, text: &str) -> Result<PathBuf, OpeningsError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let io = |e: std::io::Error| OpeningsError::Io(path.clone(), e);
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(io)?;
    std::io::Write::write_all(&mut tmp, text.as_bytes()).map_err(io)?;
    tmp.as_file().sync_all().map_err(io)?;
    tmp.persist(&path).map_err(|e| io(e.error))?;
    Ok(path)
}

fn write_outputs<G: Game>(
    cfg: &Config,
    tree: &Tree,
    known: &HashMap<Position, LeafResult>,
    out: &Path,
    wall: Option<f64>,
) -> Result<Vec<PathBuf>, OpeningsError> {
    let mut files = Vec::new();
    // lines.csv
    let mut csv = String::from("line,moves,position,lower,upper,exact,value,best_reply,nodes,ms\n");
    for (k, &i) in tree.leaves.iter().enumerate() {
        let n = &tree.nodes[i];
        let r = known[&n.state.pos];
        let best = n
            .best
            .map(|m| format_move::<G>(&n.state.pos, m))
            .unwrap_or_default();
        let value = if n.value.exact() {
            n.value.lower.to_string()
        } else {
            String::new()
        };
        let _ = writeln!(
            csv,
            "{},{},\"{}\",{},{},{},{},{},{},{}",
            k + 1,
            line_of(tree, i).join(" "),
            format_state::<G>(&n.state),
            n.value.lower,
            n.value.upper,
            if n.value.exact() { "yes" } else { "no" },
            value,
            best,
            r.nodes,
            r.ms
        );
    }
    files.push(write(out.join("lines.csv"), &csv)?);
    // tree.json
    fn node_json<G: Game>(tree: &Tree, i: usize, mv: Option<&Edge>) -> serde_json::Value {
        let n = &tree.nodes[i];
        json!({
            "move": mv.map(|e| e.name.clone()),
            "move_value": mv.map(|e| json!({"lower": e.value.lower, "upper": e.value.upper})),
            "position": format_state::<G>(&n.state),
            "lower": n.value.lower, "upper": n.value.upper, "exact": n.value.exact(),
            "loop_sensitive": if n.lo.exact() && n.hi.exact() { json!(n.lo.lower < n.hi.lower) } else { serde_json::Value::Null },
            "best": n.best.map(|m| format_move::<G>(&n.state.pos, m)),
            "children": n.children.iter().map(|e| node_json::<G>(tree, e.child, Some(e))).collect::<Vec<_>>(),
        })
    }
    let j = json!({
        "game": G::ID.name(), "plies": cfg.plies, "loop": cfg.rule.name(), "budget": cfg.budget.describe(),
        "root": node_json::<G>(tree, 0, None),
    });
    files.push(write(
        out.join("tree.json"),
        &(serde_json::to_string_pretty(&j).unwrap_or_default() + "\n"),
    )?);
    files.push(write(out.join("tree.svg"), &svg::<G>(tree))?);
    files.push(write(
        out.join("summary.md"),
        &summary::<G>(cfg, tree, known, wall),
    )?);
    Ok(files)
}

fn summary<G: Game>(
    cfg: &Config,
    tree: &Tree,
    known: &HashMap<Position, LeafResult>,
    wall: Option<f64>,
) -> String {
    let root = &tree.nodes[0];
    let mover = G::side_name(root.state.pos.side);
    let mut s = format!(
        "# Opening analysis: {}, {} plies\n\n",
        G::ID.name(),
        cfg.plies
    );
    let _ = writeln!(
        s,
        "Root: `{}` ({mover} to move).\n",
        format_state::<G>(&root.state)
    );
    if root.value.exact() {
        let _ = writeln!(
            s,
            "**Value of the root for {mover}: {:+}** (seeds on the board, mover minus opponent, perfect play, RULES.md §4).\n",
            root.value.lower
        );
    } else {
        let _ = writeln!(
            s,
            "**Value of the root for {mover}: not resolved; between {:+} and {:+}** (proven bounds: lower bound {:+}, upper bound {:+}).\n",
            root.value.lower, root.value.upper, root.value.lower, root.value.upper
        );
    }
    let _ = writeln!(s, "![opening tree](tree.svg)\n");
    let _ = writeln!(s, "## First moves and replies\n");
    let _ = writeln!(
        s,
        "Each value is for the player making that move (exact, or `[lower, upper]`).\n"
    );
    let _ = writeln!(
        s,
        "| first move | value | reply | value of reply |\n|---|---:|---|---:|"
    );
    for e in &root.children {
        let c = &tree.nodes[e.child];
        if c.children.is_empty() {
            let _ = writeln!(s, "| {} | {} | (end) | |", e.name, range_text(e.value));
        }
        for (k, r) in c.children.iter().enumerate() {
            let first = if k == 0 {
                format!("{} | {}", e.name, range_text(e.value))
            } else {
                " | ".into()
            };
            let _ = writeln!(s, "| {first} | {} | {} |", r.name, range_text(r.value));
        }
    }
    // Best line down the tree.
    let mut line = Vec::new();
    let mut i = 0;
    while let Some(b) = tree.nodes[i].best {
        let n = &tree.nodes[i];
        match n.children.iter().find(|e| e.mv == b) {
            Some(e) => {
                line.push(e.name.clone());
                i = e.child;
            }
            None => {
                line.push(format!("({})", format_move::<G>(&n.state.pos, b)));
                break;
            }
        }
    }
    let _ = writeln!(s, "\n## Best line\n");
    if line.is_empty() {
        let _ = writeln!(
            s,
            "Not determined: the root's value is not exact under this budget.\n"
        );
    } else {
        let _ = writeln!(
            s,
            "`{}` (the last move in brackets is the analysed best reply at the leaf).\n",
            line.join(" ")
        );
    }
    let exact = known.values().filter(|r| r.value.exact()).count();
    let nodes: u64 = known.values().map(|r| r.nodes).sum();
    let _ = writeln!(s, "## How these numbers were obtained\n");
    let _ = writeln!(s, "- Command: `{}`", cfg.command);
    let _ = writeln!(
        s,
        "- Budget: {}; loop rule `{}`.",
        cfg.budget.describe(),
        cfg.rule.name()
    );
    let _ = writeln!(s, "- Endgame tables: {}.", cfg.tables);
    let _ = writeln!(
        s,
        "- Lines: {}; unique positions analysed: {}; resolved exactly: {exact}; nodes searched: {nodes}.",
        tree.leaves.len(),
        tree.unique.len()
    );
    if let Some(w) = wall {
        let _ = writeln!(s, "- Wall time of the final run: {w:.1} s.");
    }
    let _ = writeln!(
        s,
        "- Values are backed up from the analysed positions by the rules of RULES.md §4 (captures: \
         `captured − value(child)`; quiet moves: `clamp(w, −hi(child), −lo(child))`). Bounds are \
         proven bounds, never estimates."
    );
    let _ = writeln!(
        s,
        "- Per-line data: `lines.csv`; the whole tree: `tree.json`."
    );
    s
}

fn colour(v: f64) -> String {
    // v in [-1, 1]: red for the root player losing, green for winning.
    let v = v.clamp(-1.0, 1.0);
    let (r, g, b) = if v < 0.0 {
        (255.0, 255.0 * (1.0 + v), 255.0 * (1.0 + v))
    } else {
        (255.0 * (1.0 - v), 255.0, 255.0 * (1.0 - v))
    };
    format!("#{:02x}{:02x}{:02x}", r as u8, g as u8, b as u8)
}

fn svg<G: Game>(tree: &Tree) -> String {
    let root = &tree.nodes[0];
    let n = root.state.pos.level().max(1) as f64;
    let root_side = root.state.pos.side;
    // Rows: one per depth-2 node (or depth-1 leaf).
    let mut rows = Vec::new();
    for (a, e) in root.children.iter().enumerate() {
        let c = &tree.nodes[e.child];
        if c.children.is_empty() {
            rows.push((a, None));
        }
        for b in 0..c.children.len() {
            rows.push((a, Some(b)));
        }
    }
    let (row_h, box_h, w1, w2) = (20.0, 16.0, 150.0, 150.0);
    let height = (rows.len() as f64 * row_h + 60.0).max(120.0);
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"640\" height=\"{height}\" font-family=\"monospace\" font-size=\"11\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"10\" y=\"16\">{} opening tree; colour: value for player {} (green wins, red loses, grey unresolved)</text>\n",
        G::ID.name(),
        G::side_name(root_side)
    );
    let fill = |r: Range, mover: u8| {
        if !r.exact() && (r.upper - r.lower) as f64 > n / 2.0 {
            return "#cccccc".to_string();
        }
        let mid = (r.lower + r.upper) as f64 / 2.0;
        let sign = if mover == root_side { 1.0 } else { -1.0 };
        colour(sign * mid / n)
    };
    let mut boxed = |x: f64, y: f64, w: f64, label: String, col: String| {
        let _ = writeln!(
            s,
            "<rect x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"{box_h}\" fill=\"{col}\" stroke=\"#444\"/>\
             <text x=\"{}\" y=\"{}\">{label}</text>",
            x + 4.0,
            y + 12.0
        );
    };
    let top = 30.0;
    let ry = top + (rows.len() as f64 * row_h) / 2.0 - box_h / 2.0;
    boxed(
        10.0,
        ry,
        120.0,
        format!("root {}", range_text(root.value)),
        fill(root.value, root_side),
    );
    let mut lines = String::new();
    for (a, e) in root.children.iter().enumerate() {
        let c = &tree.nodes[e.child];
        let my_rows: Vec<usize> = rows
            .iter()
            .enumerate()
            .filter(|(_, r)| r.0 == a)
            .map(|(k, _)| k)
            .collect();
        let y1 = top + (my_rows[0] + my_rows[my_rows.len() - 1]) as f64 * row_h / 2.0;
        let _ = writeln!(
            lines,
            "<line x1=\"130\" y1=\"{}\" x2=\"200\" y2=\"{}\" stroke=\"#888\"/>",
            ry + 8.0,
            y1 + 8.0
        );
        boxed(
            200.0,
            y1,
            w1,
            format!("{} {}", e.name, range_text(e.value)),
            fill(e.value, root.state.pos.side),
        );
        for (b, r) in c.children.iter().enumerate() {
            let k = rows.iter().position(|x| *x == (a, Some(b))).unwrap_or(0);
            let y2 = top + k as f64 * row_h;
            let _ = writeln!(
                lines,
                "<line x1=\"350\" y1=\"{}\" x2=\"400\" y2=\"{}\" stroke=\"#888\"/>",
                y1 + 8.0,
                y2 + 8.0
            );
            boxed(
                400.0,
                y2,
                w2,
                format!("{} {}", r.name, range_text(r.value)),
                fill(r.value, c.state.pos.side),
            );
        }
    }
    s.push_str(&lines);
    s.push_str("</svg>\n");
    s
}
