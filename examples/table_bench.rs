//! Builds one level (in memory, nothing written) from the lower levels in a
//! directory, and the floor of the same level, timing both in wall-clock
//! and process CPU seconds (Linux): `table_bench GAME DIR LEVEL [REPS]`;
//! `MEM=1` copies the lower levels into memory first.
use adji::game::Game;
use adji::progress::NoProgress;
use adji::tables::retrograde::{build_level, floor_pass};
use adji::tables::TableSet;
use adji::value::LoopRule;
use adji::{AdjiBoto, Adjito};
use std::time::Instant;

fn cpu() -> f64 {
    let s = std::fs::read_to_string("/proc/self/stat").unwrap();
    let f: Vec<&str> = s.rsplit(')').next().unwrap().split_whitespace().collect();
    (f[11].parse::<f64>().unwrap() + f[12].parse::<f64>().unwrap()) / 100.0
}

fn run<G: Game>(dir: &str, n: u32, reps: usize) {
    let lower = TableSet::open::<G>(std::path::Path::new(dir), LoopRule::Start, n - 1).unwrap();
    let lower = if std::env::var("MEM").is_ok() {
        lower.into_memory().unwrap()
    } else {
        lower
    };
    for _ in 0..reps {
        let (t, c) = (Instant::now(), cpu());
        std::hint::black_box(floor_pass::<G>(n));
        let (fw, fc) = (t.elapsed().as_secs_f64(), cpu() - c);
        let (t, c) = (Instant::now(), cpu());
        let (_, _, r) = build_level::<G>(n, &lower, &NoProgress).unwrap();
        let (bw, bc) = (t.elapsed().as_secs_f64(), cpu() - c);
        println!(
            "{} {n}: floor {fw:.3}s cpu {fc:.2} | build {bw:.3}s cpu {bc:.2} | wall ratio {:.2} cpu ratio {:.2} | fwd {:.3} kahn {:.3} ({} settled, {:.0}%) sweep {:.3} scans {:.3} ({}) spills {}",
            G::ID, bw / fw, bc / fc, r.forward_secs, r.kahn_secs, r.kahn_settled,
            100.0 * r.kahn_settled as f64 / r.positions as f64, r.sweep_secs, r.scan_secs, r.scans, r.spills
        );
    }
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let n: u32 = a[3].parse().unwrap();
    let reps = a.get(4).map(|x| x.parse().unwrap()).unwrap_or(1);
    if a[1] == "adjito" {
        run::<Adjito>(&a[2], n, reps)
    } else {
        run::<AdjiBoto>(&a[2], n, reps)
    }
}
