//! `tree.json`: the whole tree, streamed (never built in memory). Fields
//! are in alphabetical order, as the file has always had them, except the
//! document's `rules`, which follows `game`.

use std::io::{self, Write};
use std::marker::PhantomData;

use serde::ser::{SerializeSeq, SerializeStruct, Serializer};
use serde::Serialize;

use crate::game::Game;
use crate::notation::{format_move, format_state};

use super::super::{Config, Edge, Tree};

/// Writes `tree.json`.
pub(super) fn write<G: Game>(w: &mut dyn Write, cfg: &Config, tree: &Tree) -> io::Result<()> {
    let doc = Document {
        budget: cfg.budget.describe(),
        game: G::ID.name(),
        rules: G::RULES.name(),
        rule: cfg.rule.name(),
        plies: cfg.plies,
        root: NodeJson::<G> {
            tree,
            i: 0,
            edge: None,
            game: PhantomData,
        },
    };
    serde_json::to_writer_pretty(&mut *w, &doc)?;
    w.write_all(b"\n")
}

#[derive(Serialize)]
#[serde(bound = "")]
struct Document<'a, G: Game> {
    budget: String,
    game: &'a str,
    rules: &'a str,
    #[serde(rename = "loop")]
    rule: &'a str,
    plies: u32,
    root: NodeJson<'a, G>,
}

/// A node and the edge leading to it.
struct NodeJson<'a, G> {
    tree: &'a Tree,
    i: usize,
    edge: Option<&'a Edge>,
    game: PhantomData<G>,
}

#[derive(Serialize)]
struct RangeJson {
    lower: i32,
    upper: i32,
}

impl<G: Game> Serialize for NodeJson<'_, G> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let n = &self.tree.nodes[self.i];
        let loop_sensitive = crate::value::loop_flag(n.lo, n.hi);
        let move_value = |e: &Edge| RangeJson {
            lower: e.value.lower,
            upper: e.value.upper,
        };
        let mut m = s.serialize_struct("node", 10)?;
        m.serialize_field("best", &n.best.map(|b| format_move::<G>(&n.state.pos, b)))?;
        m.serialize_field(
            "children",
            &Children::<G> {
                tree: self.tree,
                i: self.i,
                game: PhantomData,
            },
        )?;
        m.serialize_field("exact", &n.value.exact())?;
        m.serialize_field("loop_sensitive", &loop_sensitive)?;
        m.serialize_field("lower", &n.value.lower)?;
        m.serialize_field("move", &self.edge.map(|e| &e.name))?;
        m.serialize_field("move_value", &self.edge.map(move_value))?;
        m.serialize_field("position", &format_state::<G>(&n.state))?;
        if let Some(e) = n.estimate {
            // An estimate, never a value: a field of its own, in seeds.
            m.serialize_field("estimate", &(e as f64 / crate::engine::SCALE as f64))?;
        }
        m.serialize_field("upper", &n.value.upper)?;
        m.end()
    }
}

/// A node's children, each with its edge.
struct Children<'a, G> {
    tree: &'a Tree,
    i: usize,
    game: PhantomData<G>,
}

impl<G: Game> Serialize for Children<'_, G> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let edges = &self.tree.nodes[self.i].children;
        let mut seq = s.serialize_seq(Some(edges.len()))?;
        for e in edges {
            let tree = self.tree;
            seq.serialize_element(&NodeJson::<G> {
                tree,
                i: e.child,
                edge: Some(e),
                game: PhantomData,
            })?;
        }
        seq.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::State;
    use crate::openings::enumerate;
    use crate::value::{loop_flag, Range};
    use crate::Adjito;

    /// `tree.json`'s `loop_sensitive` is the same function of a node's `lo`
    /// and `hi` bounds as `solve`'s, including bounds that are disjoint
    /// without being exact (it once said `null` there, `solve` `true`).
    #[test]
    fn loop_flag_agrees_with_solve() {
        let root = State {
            pos: Adjito::start(),
            stores: [0, 0],
        };
        let cases = [
            (
                Range {
                    lower: -5,
                    upper: -3,
                },
                Range { lower: 1, upper: 3 },
            ),
            (Range::point(-1), Range::point(2)),
            (Range::point(2), Range::point(2)),
            (
                Range {
                    lower: -2,
                    upper: 1,
                },
                Range { lower: 0, upper: 3 },
            ),
        ];
        for (lo, hi) in cases {
            let mut tree = enumerate::<Adjito>(root, 0, 1).unwrap();
            tree.nodes[0].lo = lo;
            tree.nodes[0].hi = hi;
            let node = NodeJson::<Adjito> {
                tree: &tree,
                i: 0,
                edge: None,
                game: PhantomData,
            };
            let json = serde_json::to_value(&node).unwrap();
            let want = serde_json::to_value(loop_flag(lo, hi)).unwrap();
            assert_eq!(json["loop_sensitive"], want, "lo {lo:?} hi {hi:?}");
        }
    }
}
