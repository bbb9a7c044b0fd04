//! Two readings' endgame tables side by side: per level, positions won,
//! drawn and lost by the mover, loop-sensitive positions (`lo < hi`), and
//! how many values differ between the two.
//!
//! `cargo run --release --example rules_compare -- DIR GAME RULES OTHER MAX [LOOP]`
//! reads levels `0..=MAX` of both rule sets (`adjito`/`adjiboto`; rule set
//! names as `adji rules` lists them; loop rule `start` or `even`, default
//! `start`) from `DIR` and prints a Markdown table. A position is a board
//! with its mover to move (the tables' positions: each board once); a
//! value is the mover's seeds minus the opponent's under the loop rule
//! (docs/RULES.md, §4).

use std::path::Path;

use rayon::prelude::*;

use adji::game::GameId;
use adji::index::{boards, level_size};
use adji::rules::RuleSet;
use adji::tables::{level_path, Table};
use adji::value::LoopRule;

/// Counts of one level of one rule set, and the differences.
#[derive(Default, Clone, Copy)]
struct Counts {
    won: [u64; 2],
    drawn: [u64; 2],
    lost: [u64; 2],
    sensitive: [u64; 2],
    differ: u64,
}

impl Counts {
    fn add(mut self, o: Counts) -> Counts {
        for i in 0..2 {
            self.won[i] += o.won[i];
            self.drawn[i] += o.drawn[i];
            self.lost[i] += o.lost[i];
            self.sensitive[i] += o.sensitive[i];
        }
        self.differ += o.differ;
        self
    }
}

/// The split seen by the mover of a relative board of `pits` pits.
fn split(b: &[u8], pits: usize) -> i32 {
    let h = pits / 2;
    b[..h].iter().map(|&x| x as i32).sum::<i32>()
        - b[h..pits].iter().map(|&x| x as i32).sum::<i32>()
}

fn level(dir: &Path, rules: [RuleSet; 2], rule: LoopRule, n: u32, pits: usize) -> Counts {
    let t: Vec<Table> = rules
        .iter()
        .map(|&r| {
            Table::open(&level_path(dir, r.tables(), rule, n), r, rule, n, pits)
                .unwrap_or_else(|e| panic!("{} level {n}: {e}", r.name()))
        })
        .collect();
    let size = level_size(n as usize, pits);
    let chunk = 1u64 << 20;
    (0..size.div_ceil(chunk))
        .into_par_iter()
        .map(|c| {
            let mut k = Counts::default();
            for (r, b) in boards(c * chunk..((c + 1) * chunk).min(size), n as usize, pits) {
                let w = match rule {
                    LoopRule::Start => split(&b, pits),
                    LoopRule::Even => 0,
                };
                let mut v = [0i32; 2];
                for i in 0..2 {
                    let bd = t[i].bounds(r as usize).expect("tables checked when opened");
                    v[i] = bd.value(w);
                    k.sensitive[i] += u64::from(bd.lo < bd.hi);
                    match v[i].signum() {
                        1 => k.won[i] += 1,
                        0 => k.drawn[i] += 1,
                        _ => k.lost[i] += 1,
                    }
                }
                k.differ += u64::from(v[0] != v[1]);
            }
            k
        })
        .reduce(Counts::default, Counts::add)
}

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: rules_compare DIR GAME RULES OTHER MAX [start|even]";
    assert!(a.len() == 5 || a.len() == 6, "{usage}");
    let dir = Path::new(&a[0]);
    let game = match a[1].as_str() {
        "adjito" => GameId::Adjito,
        "adjiboto" => GameId::AdjiBoto,
        g => panic!("unknown game {g}; {usage}"),
    };
    let rules = [
        RuleSet::parse(game, &a[2]).unwrap_or_else(|e| panic!("{e}")),
        RuleSet::parse(game, &a[3]).unwrap_or_else(|e| panic!("{e}")),
    ];
    let max: u32 = a[4].parse().expect(usage);
    let rule = match a.get(5).map_or("start", |s| s.as_str()) {
        "start" => LoopRule::Start,
        "even" => LoopRule::Even,
        r => panic!("unknown loop rule {r}; {usage}"),
    };
    let pits = match game {
        GameId::Adjito => 12,
        GameId::AdjiBoto => 10,
    };
    let (x, y) = (rules[0].name(), rules[1].name());
    println!(
        "{}, loop rule `{}`: `{x}` against `{y}`, tables of {}; W/D/L for the mover, LS = loop-sensitive (lo < hi)\n",
        game.name(),
        rule.name(),
        dir.display()
    );
    println!(
        "| level | positions | {x} W / D / L | {y} W / D / L | {x} LS | {y} LS | values differing |"
    );
    println!("|---:|---:|---|---|---:|---:|---:|");
    let mut total = Counts::default();
    let mut positions = 0;
    for n in 0..=max {
        let k = level(dir, rules, rule, n, pits);
        let size = level_size(n as usize, pits);
        positions += size;
        println!(
            "| {n} | {size} | {} / {} / {} | {} / {} / {} | {} | {} | {} |",
            k.won[0],
            k.drawn[0],
            k.lost[0],
            k.won[1],
            k.drawn[1],
            k.lost[1],
            k.sensitive[0],
            k.sensitive[1],
            k.differ
        );
        total = total.add(k);
    }
    println!(
        "| all | {positions} | {} / {} / {} | {} / {} / {} | {} | {} | {} |",
        total.won[0],
        total.drawn[0],
        total.lost[0],
        total.won[1],
        total.drawn[1],
        total.lost[1],
        total.sensitive[0],
        total.sensitive[1],
        total.differ
    );
}
