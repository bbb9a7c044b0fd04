//! The reports the API serves: the command line's own report types
//! ([`crate::report`]), built from the same library calls, with the same
//! error texts.

use crate::driver::{replay as drive, ReplayError};
use crate::game::{Game, Move, State};
use crate::notation::{format_move, format_state, parse_move};
use crate::report::{ReplayReport, ResultReport};

/// `replay --json`: plays the moves `names` from `st`, every end rule
/// applied literally.
///
/// # Errors
/// The command line's message for a bad or illegal move, or a move after
/// the end of the game.
pub fn replay<G: Game>(st: State, names: &str) -> Result<ReplayReport, String> {
    let moves = parse_moves::<G>(&st, names)?;
    let rep = drive::<G>(st, &moves).map_err(replay_error::<G>)?;
    Ok(ReplayReport::new::<G>(&rep))
}

/// Parses a line's moves one by one, each for the mover of its position; stops
/// after the first that cannot be played (the replay reports it).
fn parse_moves<G: Game>(st: &State, names: &str) -> Result<Vec<Move>, String> {
    let mut parsed = Vec::new();
    let mut cur = st.pos;
    for (i, name) in names.split_whitespace().enumerate() {
        let mv =
            parse_move::<G>(&cur, name).map_err(|e| format!("move {} ({name}): {e}", i + 1))?;
        parsed.push(mv);
        match G::try_play(&cur, mv) {
            Ok(p) => cur = p.pos,
            Err(_) => break,
        }
    }
    Ok(parsed)
}

/// The message of a replay that stopped early.
fn replay_error<G: Game>(e: ReplayError) -> String {
    match e {
        ReplayError::Illegal { index, err, state } => {
            let legal: Vec<String> = err
                .legal
                .iter()
                .map(|m| format_move::<G>(&state.pos, m))
                .collect();
            let legal = if legal.is_empty() {
                "none (the game is over)".to_string()
            } else {
                legal.join(" ")
            };
            format!(
                "move {} ({}) is illegal in {}; legal moves: {legal}",
                index + 1,
                format_move::<G>(&state.pos, err.mv),
                format_state::<G>(&state),
            )
        }
        ReplayError::GameOver { index, result } => format!(
            "move {} comes after the end of the game ({})",
            index + 1,
            ResultReport::new::<G>(&result)
        ),
    }
}
