//! The four output files of a run: `lines.csv` (one row per line) and
//! `tree.json` (the whole tree), both streamed, `tree.svg` (the first two
//! plies) and `summary.md`. Each is written atomically; they depend only on
//! the tree and the results, so a resumed run writes the same bytes.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::fsutil::write_atomic_with;
use crate::game::Game;
use crate::notation::{format_move, format_state};
use crate::value::Range;

use super::{Config, LeafResult, OpeningsError, Tree};

mod json;
mod summary;
mod svg;

/// Writes the outputs into `out`; `wall` is the run's wall time, if shown.
pub(super) fn write<G: Game>(
    cfg: &Config,
    tree: &Tree,
    results: &[LeafResult],
    out: &Path,
    wall: Option<f64>,
) -> Result<Vec<PathBuf>, OpeningsError> {
    let file = |name: &str, fill: &dyn Fn(&mut dyn Write) -> io::Result<()>| {
        let path = out.join(name);
        match write_atomic_with(&path, |w| fill(w)) {
            Ok(()) => Ok(path),
            Err(e) => Err(OpeningsError::Io(path, e)),
        }
    };
    Ok(vec![
        file("lines.csv", &|w| lines_csv::<G>(w, tree, results))?,
        file("tree.json", &|w| json::write::<G>(w, cfg, tree))?,
        file("tree.svg", &|w| w.write_all(svg::svg::<G>(tree).as_bytes()))?,
        file("summary.md", &|w| {
            w.write_all(summary::summary::<G>(cfg, tree, results, wall).as_bytes())
        })?,
    ])
}

/// A range as the reports show it: `+3`, or `[-2, +4]`.
fn range_text(r: Range) -> String {
    if r.exact() {
        format!("{:+}", r.lower)
    } else {
        format!("[{:+}, {:+}]", r.lower, r.upper)
    }
}

/// Calls `f` with each leaf (its node and unique index) and the names of the
/// moves leading to it, in tree order.
fn for_each_line(
    tree: &Tree,
    mut f: impl FnMut(usize, usize, &[&str]) -> io::Result<()>,
) -> io::Result<()> {
    let mut line: Vec<&str> = Vec::new();
    // (node, plies from the root, the move leading to it)
    let mut stack = vec![(0usize, 0usize, "")];
    while let Some((i, depth, name)) = stack.pop() {
        line.truncate(depth.saturating_sub(1));
        if depth > 0 {
            line.push(name);
        }
        let n = &tree.nodes[i];
        if let Some(u) = n.leaf {
            f(i, u, &line)?;
        }
        stack.extend(
            n.children
                .iter()
                .rev()
                .map(|e| (e.child, depth + 1, e.name.as_str())),
        );
    }
    Ok(())
}

/// `lines.csv`: one row per line, in tree order.
fn lines_csv<G: Game>(w: &mut dyn Write, tree: &Tree, results: &[LeafResult]) -> io::Result<()> {
    w.write_all(b"line,moves,position,lower,upper,exact,value,best_reply,nodes,ms\n")?;
    let mut k = 0;
    for_each_line(tree, |i, u, line| {
        k += 1;
        let (n, r) = (&tree.nodes[i], &results[u]);
        let best = n
            .best
            .map(|m| format_move::<G>(&n.state.pos, m))
            .unwrap_or_default();
        let (exact, value) = match n.value.exact() {
            true => ("yes", n.value.lower.to_string()),
            false => ("no", String::new()),
        };
        writeln!(
            w,
            "{k},{},\"{}\",{},{},{exact},{value},{best},{},{}",
            line.join(" "),
            format_state::<G>(&n.state),
            n.value.lower,
            n.value.upper,
            r.nodes,
            r.ms
        )
    })
}
