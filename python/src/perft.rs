//! `adji.perft`: move-sequence counts, interruptible.

use std::sync::atomic::{AtomicBool, Ordering};

use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::prelude::*;

use adji::game::{Game, Move};
use adji::notation::{format_move, Stores};
use adji::report::PerftReport;

use crate::errors::{to_py, Count};
use crate::position::position_arg;
use crate::work::{interruptible, Interrupted};

/// The library's perft, checking `stop` at every node more than
/// [`PERFT_LEAF`] moves from the horizon.
pub(crate) fn perft_stoppable<G: Game>(
    pos: &adji::Position,
    depth: u32,
    stop: &AtomicBool,
) -> Result<u64, Interrupted> {
    if depth <= PERFT_LEAF {
        return Ok(adji::perft::perft::<G>(pos, depth));
    }
    if stop.load(Ordering::Relaxed) {
        return Err(Interrupted);
    }
    G::legal_moves(pos)
        .iter()
        .map(|m| perft_stoppable::<G>(&G::play_unchecked(pos, m).pos, depth - 1, stop))
        .sum()
}

/// Subtrees of at most this many moves are counted without a stop check
/// (a few thousand nodes).
pub(crate) const PERFT_LEAF: u32 = 5;

/// Counts sequences of `depth` moves per first move, checking `stop`
/// between second-ply subtrees.
pub(crate) fn perft_divide<G: Game>(
    pos: &adji::Position,
    depth: u32,
    stop: &AtomicBool,
) -> Result<Vec<(Move, u64)>, Interrupted> {
    use rayon::prelude::*;
    if depth == 0 {
        return Ok(Vec::new());
    }
    G::legal_moves(pos)
        .iter()
        .collect::<Vec<_>>()
        .par_iter()
        .map(|&m| {
            let child = G::play_unchecked(pos, m).pos;
            if depth == 1 {
                return Ok((m, 1));
            }
            let grand: Vec<Move> = G::legal_moves(&child).iter().collect();
            let n = grand
                .par_iter()
                .map(|&g| {
                    if stop.load(Ordering::Relaxed) {
                        return Err(Interrupted);
                    }
                    perft_stoppable::<G>(&G::play_unchecked(&child, g).pos, depth - 2, stop)
                })
                .sum::<Result<u64, Interrupted>>()?;
            Ok((m, n))
        })
        .collect()
}

/// `adji perft`: the number of move sequences of exactly `depth` moves
/// (docs/RULES.md §6); with `divide`, a dict of the count after each
/// first move, as `adji perft --divide --json` gives it.
#[pyfunction]
#[pyo3(signature = (position, depth, divide = false, game = "adjito", rules = "default"))]
pub(crate) fn perft(
    py: Python<'_>,
    position: &Bound<'_, PyAny>,
    depth: Count<u32>,
    divide: bool,
    game: &str,
    rules: &str,
) -> PyResult<PyObject> {
    let depth = depth.get();
    let p = position_arg(position, game, rules, Stores::Required)?;
    let stop = AtomicBool::new(false);
    let d = interruptible(
        py,
        &|| stop.store(true, Ordering::Relaxed),
        || adji::with_rules!(p.rules, G => perft_divide::<G>(&p.st.pos, depth, &stop)
            .map(|v| v.into_iter().map(|(m, n)| (format_move::<G>(&p.st.pos, m), n)).collect::<Vec<_>>())),
    )?
    .map_err(|_| PyKeyboardInterrupt::new_err("interrupted"))?;
    let nodes = if depth == 0 {
        1
    } else {
        d.iter().map(|x| x.1).sum()
    };
    if divide {
        let r = PerftReport {
            divide: Some(d),
            nodes,
            rules: adji::with_rules!(p.rules, G => adji::report::RulesTag::of::<G>()),
        };
        to_py(py, &r)
    } else {
        Ok(nodes.into_pyobject(py)?.into_any().unbind())
    }
}
