//! `tree.svg`: the first two plies as boxes coloured by value (green: the
//! root player wins, red: loses, grey: unresolved), one row per reply.

use std::fmt::Write;

use crate::game::Game;
use crate::value::Range;

use super::super::{Edge, Tree};
use super::range_text;

const ROW_H: f64 = 20.0;
const BOX_H: f64 = 16.0;
const TOP: f64 = 30.0;
/// Box widths: the root, a first move, a reply.
const ROOT_W: f64 = 120.0;
const MOVE_W: f64 = 150.0;

/// The drawing: boxes first, then the connecting lines over them.
struct Canvas {
    boxes: String,
    lines: String,
    /// Seeds on the board: the scale of values.
    seeds: f64,
    root_side: u8,
}

impl Canvas {
    fn boxed(&mut self, x: f64, y: f64, w: f64, label: &str, colour: &str) {
        let _ = writeln!(
            self.boxes,
            "<rect x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"{BOX_H}\" fill=\"{colour}\" stroke=\"#444\"/>\
             <text x=\"{}\" y=\"{}\">{label}</text>",
            x + 4.0,
            y + 12.0
        );
    }

    /// A line between the vertical middles of two boxes.
    fn line(&mut self, x1: f64, y1: f64, x2: f64, y2: f64) {
        let _ = writeln!(
            self.lines,
            "<line x1=\"{x1}\" y1=\"{}\" x2=\"{x2}\" y2=\"{}\" stroke=\"#888\"/>",
            y1 + 8.0,
            y2 + 8.0
        );
    }

    /// The colour of a move's (or the root's) range for its `mover`.
    fn fill(&self, r: Range, mover: u8) -> String {
        if !r.exact() && (r.upper - r.lower) as f64 > self.seeds / 2.0 {
            return "#cccccc".to_string();
        }
        let mid = (r.lower + r.upper) as f64 / 2.0;
        let sign = if mover == self.root_side { 1.0 } else { -1.0 };
        colour(sign * mid / self.seeds)
    }
}

/// `v` in [-1, 1] as a colour: red for the root player losing, green for winning.
fn colour(v: f64) -> String {
    let v = v.clamp(-1.0, 1.0);
    let (r, g, b) = if v < 0.0 {
        (255.0, 255.0 * (1.0 + v), 255.0 * (1.0 + v))
    } else {
        (255.0 * (1.0 - v), 255.0, 255.0 * (1.0 - v))
    };
    format!("#{:02x}{:02x}{:02x}", r as u8, g as u8, b as u8)
}

/// Rows each first move takes: one per reply, or one when there is none.
fn row_counts(tree: &Tree) -> Vec<usize> {
    let root = &tree.nodes[0];
    root.children
        .iter()
        .map(|e| tree.nodes[e.child].children.len().max(1))
        .collect()
}

/// The opening tag, background and title.
fn header<G: Game>(tree: &Tree, rows: usize) -> String {
    let height = (rows as f64 * ROW_H + 60.0).max(120.0);
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"640\" height=\"{height}\" font-family=\"monospace\" font-size=\"11\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"10\" y=\"16\">{} opening tree; colour: value for player {} (green wins, red loses, grey unresolved)</text>\n",
        crate::report::label_of::<G>(),
        G::side_name(tree.nodes[0].state.pos.side)
    )
}

/// The SVG picture of the first two plies.
pub(super) fn svg<G: Game>(tree: &Tree) -> String {
    let root = &tree.nodes[0];
    let counts = row_counts(tree);
    let rows: usize = counts.iter().sum();
    let mut c = Canvas {
        boxes: header::<G>(tree, rows),
        lines: String::new(),
        seeds: root.state.pos.level().max(1) as f64,
        root_side: root.state.pos.side,
    };
    let ry = TOP + (rows as f64 * ROW_H) / 2.0 - BOX_H / 2.0;
    let label = format!("root {}", range_text(root.value));
    c.boxed(10.0, ry, ROOT_W, &label, &c.fill(root.value, c.root_side));
    let mut start = 0;
    for (e, count) in root.children.iter().zip(counts) {
        first_move(&mut c, tree, e, (start, count), ry);
        start += count;
    }
    c.boxes + &c.lines + "</svg>\n"
}

/// A first move's box and its replies', on rows `start..start + count`;
/// the root box is at height `ry`.
fn first_move(c: &mut Canvas, tree: &Tree, e: &Edge, (start, count): (usize, usize), ry: f64) {
    let y1 = TOP + (start + start + count - 1) as f64 * ROW_H / 2.0;
    c.line(130.0, ry, 200.0, y1);
    let colour = c.fill(e.value, c.root_side);
    c.boxed(
        200.0,
        y1,
        MOVE_W,
        &format!("{} {}", e.name, range_text(e.value)),
        &colour,
    );
    let child = &tree.nodes[e.child];
    for (b, r) in child.children.iter().enumerate() {
        let y2 = TOP + (start + b) as f64 * ROW_H;
        c.line(350.0, y1, 400.0, y2);
        let colour = c.fill(r.value, child.state.pos.side);
        c.boxed(
            400.0,
            y2,
            MOVE_W,
            &format!("{} {}", r.name, range_text(r.value)),
            &colour,
        );
    }
}
