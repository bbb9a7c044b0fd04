//! The reports of `bench`, `match` and `eval train`, and their text.

use std::fmt;

/// One game of a match.
#[derive(Clone, Debug, serde::Serialize)]
pub struct MatchGame {
    /// Index of the opening.
    pub opening: usize,
    /// Absolute side engine B played.
    pub b_side: u8,
    /// Moves played (random opening included).
    pub plies: usize,
    /// Final seeds of engine A and engine B.
    pub seeds: [u32; 2],
    /// How the game ended.
    pub reason: String,
}

/// The outcome of a match, from engine B's side.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct MatchReport {
    /// Every game.
    pub games: Vec<MatchGame>,
    /// Games engine B won, drew and lost.
    pub b_wins: usize,
    /// See `b_wins`.
    pub draws: usize,
    /// See `b_wins`.
    pub b_losses: usize,
    /// B's points (win 1, draw ½) over the games.
    pub b_points: f64,
    /// Mean of B's seeds minus A's per game.
    pub b_mean_margin: f64,
    /// The rule set, when not the game's default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rules: Option<super::RulesTag>,
}

impl fmt::Display for crate::bench::BenchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for p in &self.positions {
            writeln!(
                f,
                "{:<9} {:<48} value {:+4}  nodes {:>10}  {:>6} ms",
                p.game, p.position, p.value, p.nodes, p.time_ms
            )?;
        }
        writeln!(f, "===========================")?;
        writeln!(f, "total time (ms) : {}", self.time_ms)?;
        writeln!(f, "nodes searched  : {}", self.nodes)?;
        writeln!(f, "nodes/second    : {}", self.nps)
    }
}

impl fmt::Display for MatchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        super::RulesTag::header(&self.rules, f)?;
        writeln!(
            f,
            "{} games: engine B won {}, drew {}, lost {}; B scored {:.1} of {} points, mean margin {:+.2} seeds",
            self.games.len(),
            self.b_wins,
            self.draws,
            self.b_losses,
            self.b_points,
            self.games.len(),
            self.b_mean_margin
        )
    }
}

impl fmt::Display for crate::eval::Model {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = &self.trained;
        writeln!(
            f,
            "{}: trained on {} positions of levels {}..={} ({} draw, seed {}), validated on {}: \
             mean |error| {:.3} (baseline split {:.3}), RMSE {:.3} (baseline {:.3})",
            self.game,
            t.train_positions,
            t.levels.0,
            t.levels.1,
            t.sampling.name(),
            t.seed,
            t.validation_positions,
            t.validation_mae,
            t.baseline_mae,
            t.validation_rmse,
            t.baseline_rmse
        )?;
        if t.excluded > 0 {
            writeln!(
                f,
                "  {} drawn positions left out (exclusion list)",
                t.excluded
            )?;
        }
        for b in &t.bands {
            writeln!(
                f,
                "  held out, levels {}..={}: {} positions, mean |error| {:.3} (baseline split {:.3})",
                b.levels.0, b.levels.1, b.positions, b.mae, b.baseline_mae
            )?;
        }
        Ok(())
    }
}
