//! Human-readable board diagrams.

use crate::game::{Game, State};

/// A multi-line diagram: pit names, seeds, stores and the side to move.
pub fn diagram<G: Game>(st: &State) -> String {
    let abs = G::to_absolute(&st.pos);
    let (top, bottom) = G::DIAGRAM;
    let cell = |v: String| format!("{v:>4}");
    let names = |row: &[usize]| {
        row.iter()
            .map(|&a| cell(G::pit_name(a)))
            .collect::<String>()
    };
    let seeds = |row: &[usize]| {
        row.iter()
            .map(|&a| cell(abs[a].to_string()))
            .collect::<String>()
    };
    let (n1, n0) = (G::side_name(1), G::side_name(0));
    let mover = G::side_name(st.pos.side);
    let mut s = String::new();
    s.push_str(&format!("  player {n1} (top)    store {}\n", st.stores[1]));
    s.push_str(&format!("      {}\n", names(top)));
    s.push_str(&format!("      {}\n", seeds(top)));
    s.push_str(&format!("      {}\n", seeds(bottom)));
    s.push_str(&format!("      {}\n", names(bottom)));
    s.push_str(&format!("  player {n0} (bottom) store {}\n", st.stores[0]));
    s.push_str(&format!("  to move: {mover}"));
    if G::HAS_OPENING {
        s.push_str(&format!(
            "    phase: {}",
            crate::notation::format_phase::<G>(&st.pos)
        ));
    }
    s.push('\n');
    s
}
