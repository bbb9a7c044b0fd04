//! `summary.md`: the root's value, the first moves and replies, the best
//! line and how the numbers were obtained.

use std::fmt::{Result, Write};

use crate::game::Game;
use crate::notation::{format_move, format_state};

use super::super::{line_score, Budget, Config, LeafResult, Tree};
use super::{centi_text, for_each_line, range_estimate_text};

/// The Markdown summary.
pub(super) fn summary<G: Game>(
    cfg: &Config,
    tree: &Tree,
    results: &[LeafResult],
    wall: Option<f64>,
) -> String {
    let mut s = String::new();
    // Writing into a String cannot fail.
    let _ = root_value::<G>(&mut s, cfg, tree)
        .and_then(|()| first_moves(&mut s, tree))
        .and_then(|()| best_line::<G>(&mut s, tree))
        .and_then(|()| ranking(&mut s, cfg, tree))
        .and_then(|()| provenance::<G>(&mut s, cfg, tree, results, wall));
    s
}

/// The title, the root and its value.
fn root_value<G: Game>(s: &mut String, cfg: &Config, tree: &Tree) -> Result {
    let root = &tree.nodes[0];
    let mover = G::side_name(root.state.pos.side);
    writeln!(
        s,
        "# Opening analysis: {}, {} plies\n",
        crate::report::label_of::<G>(),
        cfg.plies
    )?;
    writeln!(
        s,
        "Root: `{}` ({mover} to move).\n",
        format_state::<G>(&root.state)
    )?;
    let (lower, upper) = (root.value.lower, root.value.upper);
    if root.value.exact() {
        writeln!(
            s,
            "**Value of the root for {mover}: {lower:+}** (seeds on the board, mover minus opponent, perfect play; see docs/RULES.md).\n"
        )?;
    } else {
        writeln!(
            s,
            "**Value of the root for {mover}: not resolved; between {lower:+} and {upper:+}** (proven bounds: lower bound {lower:+}, upper bound {upper:+}).\n"
        )?;
    }
    writeln!(s, "![opening tree](tree.svg)\n")
}

/// The table of first moves and the replies to each.
fn first_moves(s: &mut String, tree: &Tree) -> Result {
    writeln!(s, "## First moves and replies\n")?;
    writeln!(
        s,
        "Each value is for the player making that move (exact, or `[lower, upper]`).\n"
    )?;
    writeln!(
        s,
        "| first move | value | reply | value of reply |\n|---|---:|---|---:|"
    )?;
    for e in &tree.nodes[0].children {
        let c = &tree.nodes[e.child];
        let value = range_estimate_text(e.value, e.estimate);
        if c.children.is_empty() {
            writeln!(s, "| {} | {value} | (end) | |", e.name)?;
        }
        for (k, r) in c.children.iter().enumerate() {
            let first = match k {
                0 => format!("{} | {value}", e.name),
                _ => " | ".into(),
            };
            let reply = range_estimate_text(r.value, r.estimate);
            writeln!(s, "| {first} | {} | {reply} |", r.name)?;
        }
    }
    Ok(())
}

/// With estimates: every line ranked for the root's mover, exact values
/// first (best first), then estimates (best first), each marked as such.
fn ranking(s: &mut String, cfg: &Config, tree: &Tree) -> Result {
    if !matches!(cfg.budget, Budget::Estimate(_)) {
        return Ok(());
    }
    let mut rows: Vec<(bool, i32, String)> = Vec::new();
    let mut unknown = 0;
    let _ = for_each_line(tree, |i, _, line| {
        match line_score(tree, i) {
            Some((score, exact)) => rows.push((exact, score, line.join(" "))),
            None => unknown += 1,
        }
        Ok(())
    });
    rows.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
    writeln!(s, "\n## Lines ranked for the root's mover\n")?;
    writeln!(
        s,
        "Seeds captured along the line plus the leaf's value, for the player to move at the \
         root. Exact values come first, then estimates (the engine's judgement, not values).\n"
    )?;
    writeln!(s, "| rank | line | score | kind |\n|---:|---|---:|---|")?;
    for (k, (exact, score, line)) in rows.iter().enumerate() {
        let kind = if *exact { "exact" } else { "estimate" };
        writeln!(
            s,
            "| {} | {line} | {} | {kind} |",
            k + 1,
            centi_text(*score)
        )?;
    }
    if unknown > 0 {
        writeln!(s, "\n{unknown} lines have neither a value nor an estimate.")?;
    }
    Ok(())
}

/// The best moves from the root while they are known; the last one, in
/// brackets, is the best reply found by the leaf's analysis.
fn best_moves<G: Game>(tree: &Tree) -> Vec<String> {
    let mut line = Vec::new();
    let mut i = 0;
    while let Some(b) = tree.nodes[i].best {
        let n = &tree.nodes[i];
        let Some(e) = n.children.iter().find(|e| e.mv == b) else {
            line.push(format!("({})", format_move::<G>(&n.state.pos, b)));
            break;
        };
        line.push(e.name.clone());
        i = e.child;
    }
    line
}

/// The best line section.
fn best_line<G: Game>(s: &mut String, tree: &Tree) -> Result {
    let line = best_moves::<G>(tree);
    writeln!(s, "\n## Best line\n")?;
    if line.is_empty() {
        writeln!(
            s,
            "Not determined: the root's value is not exact under this budget.\n"
        )
    } else {
        writeln!(
            s,
            "`{}` (the last move in brackets is the analysed best reply at the leaf).\n",
            line.join(" ")
        )
    }
}

/// How the numbers were obtained: command, budget, tables, counts, method.
fn provenance<G: Game>(
    s: &mut String,
    cfg: &Config,
    tree: &Tree,
    results: &[LeafResult],
    wall: Option<f64>,
) -> Result {
    let exact = results.iter().filter(|r| r.value.exact()).count();
    let nodes: u64 = results.iter().map(|r| r.nodes).sum();
    writeln!(s, "## How these numbers were obtained\n")?;
    writeln!(s, "- Command: `{}`", cfg.command)?;
    writeln!(
        s,
        "- Budget: {}; loop rule `{}`.",
        cfg.budget.describe(),
        cfg.rule.name()
    )?;
    if !G::RULES.is_default() {
        writeln!(s, "- Rule set: `{}` (docs/RULES.md).", G::RULES.name())?;
    }
    writeln!(s, "- Endgame tables: {}.", cfg.tables)?;
    writeln!(
        s,
        "- Lines: {}; unique positions analysed: {}; resolved exactly: {exact}; nodes searched: {nodes}.",
        tree.leaves.len(),
        tree.unique.len()
    )?;
    if let Some(w) = wall {
        writeln!(s, "- Wall time of the final run: {w:.1} s.")?;
    }
    writeln!(
        s,
        "- Values are backed up from the analysed positions by the value rules of docs/RULES.md \
         §4 (captures: `captured − value(child)`; quiet moves: \
         `clamp(w, −hi(child), −lo(child))`). Bounds are proven bounds; an estimate (marked ≈) is \
         the engine's judgement, never a value."
    )?;
    writeln!(
        s,
        "- Per-line data: `lines.csv`; the whole tree: `tree.json`."
    )
}
