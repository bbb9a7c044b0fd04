//! Per-level statistics of the tables: wins, draws, losses for the mover,
//! loop-sensitive positions and the value histogram.

use std::collections::BTreeMap;

use rayon::prelude::*;

use super::error::TableError;
use super::set::TableSet;
use super::walk::level_positions;
use crate::game::Game;
use crate::index::level_size;

/// Statistics of one level.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct LevelStats {
    /// Seeds on the board.
    pub level: u32,
    /// Positions.
    pub positions: u64,
    /// Value > 0 for the mover.
    pub wins: u64,
    /// Value = 0.
    pub draws: u64,
    /// Value < 0.
    pub losses: u64,
    /// Positions whose value depends on the loop convention (`lo < hi`).
    pub loop_sensitive: u64,
    /// Value → number of positions.
    pub histogram: BTreeMap<i32, u64>,
}

/// Computes the statistics of `level`.
///
/// # Errors
/// A damaged entry met in a level opened without the full check
/// ([`TableSet::check_damage`]).
pub fn level_stats<G: Game>(set: &TableSet, level: u32) -> Result<LevelStats, TableError> {
    const CHUNK: u64 = 1 << 15;
    let size = level_size(level as usize, G::PITS);
    let table = set.level(level).expect("level covered");
    let rule = set.rule;
    let stats = (0..size.div_ceil(CHUNK))
        .into_par_iter()
        .map(|ci| {
            let mut s = LevelStats {
                level,
                ..Default::default()
            };
            for (idx, pos) in level_positions::<G>(level, ci * CHUNK..((ci + 1) * CHUNK).min(size))
            {
                let Some(b) = table.bounds(idx as usize) else {
                    continue;
                };
                let v = b.value(rule.w::<G>(&pos));
                s.positions += 1;
                match v.cmp(&0) {
                    std::cmp::Ordering::Greater => s.wins += 1,
                    std::cmp::Ordering::Equal => s.draws += 1,
                    std::cmp::Ordering::Less => s.losses += 1,
                }
                s.loop_sensitive += b.loop_sensitive() as u64;
                *s.histogram.entry(v).or_default() += 1;
            }
            s
        })
        .reduce(
            || LevelStats {
                level,
                ..Default::default()
            },
            |mut a, b| {
                a.positions += b.positions;
                a.wins += b.wins;
                a.draws += b.draws;
                a.losses += b.losses;
                a.loop_sensitive += b.loop_sensitive;
                for (k, v) in b.histogram {
                    *a.histogram.entry(k).or_default() += v;
                }
                a
            },
        );
    set.check_damage()?;
    Ok(stats)
}

/// A Markdown report of several levels.
pub fn markdown(game: &str, rule: &str, stats: &[LevelStats]) -> String {
    let mut s = format!("# Endgame table statistics: {game}, loop rule `{rule}`\n\n");
    s.push_str(
        "Values are for the player to move, seeds on the board only (docs/RULES.md §4).\n\n",
    );
    s.push_str("| level | positions | wins | draws | losses | loop-sensitive |\n|---:|---:|---:|---:|---:|---:|\n");
    for l in stats {
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} |\n",
            l.level, l.positions, l.wins, l.draws, l.losses, l.loop_sensitive
        ));
    }
    s.push_str("\n## Value histograms\n\n");
    for l in stats {
        let h: Vec<String> = l
            .histogram
            .iter()
            .map(|(v, c)| format!("{v:+}: {c}"))
            .collect();
        s.push_str(&format!("- level {}: {}\n", l.level, h.join(", ")));
    }
    s
}
