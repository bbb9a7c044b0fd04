//! Search measurements for `results/search.md`, all in one run so that the
//! ratios share the machine's conditions. Run:
//! `cargo bench --bench search -- [--tables DIR]` (tables for the "with
//! tables" rows; default `tables`, skipped if absent).

use std::time::Instant;

use adji::bench::{ADJIBOTO, ADJITO};
use adji::game::{Game, Position};
use adji::notation::{parse_state, Stores};
use adji::perft::perft;
use adji::search::{Limits, Options, Searcher};
use adji::tables::TableSet;
use adji::tt::{AtomicTable, TransTable};
use adji::value::LoopRule;
use adji::{AdjiBoto, Adjito};
use dash::DashTable;

/// The measured baseline of the lock-free [`AtomicTable`]: a
/// transposition table over `DashMap`, which lives here, with the one
/// benchmark that measures it.
mod dash {
    use adji::tt::{AtomicTable, Entry, TransTable};
    use dashmap::DashMap;

    /// A transposition table over `DashMap`, with the same capacity rule
    /// as [`AtomicTable`] (new keys are dropped once full).
    pub struct DashTable {
        map: DashMap<u128, Entry, ahash::RandomState>,
        cap: usize,
    }

    impl DashTable {
        /// A table holding at most as many entries as an [`AtomicTable`]
        /// of `mib` MiB.
        pub fn new(mib: usize) -> Self {
            let cap = AtomicTable::entries_for(1).unwrap_or(1) * mib.max(1);
            DashTable {
                map: DashMap::with_hasher(ahash::RandomState::with_seeds(1, 2, 3, 4)),
                cap,
            }
        }
    }

    impl TransTable for DashTable {
        fn probe(&self, key: u128) -> Option<Entry> {
            self.map.get(&key).map(|e| *e)
        }

        fn store(&self, key: u128, e: Entry) -> bool {
            if self.map.len() >= self.cap && !self.map.contains_key(&key) {
                return false;
            }
            self.map.insert(key, e);
            false
        }

        fn new_generation(&self) {}

        fn hashfull(&self) -> u32 {
            (self.map.len() * 1000 / self.cap.max(1)) as u32
        }
    }
}

const NODE_CAP: u64 = 400_000_000;

struct Run {
    nodes: u64,
    secs: f64,
    exact: usize,
    total: usize,
}

fn suite<G: Game>(list: &[&str]) -> Vec<Position> {
    list.iter()
        .map(|s| parse_state::<G>(s, Stores::Required).unwrap().pos)
        .collect()
}

fn solve_all<G: Game, T: TransTable>(
    ps: &[Position],
    tt: impl Fn() -> T,
    tables: Option<&TableSet>,
    opts: Options,
    threads: usize,
) -> Run {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    // One table per configuration, allocated before the clock starts; a new
    // generation per position.
    let table = tt();
    let t = Instant::now();
    let (mut nodes, mut exact) = (0, 0);
    for p in ps {
        table.new_generation();
        let s = Searcher::<G, _>::new(tables, &table, opts).unwrap();
        let a = pool.install(|| s.analyse(p));
        nodes += a.stats.nodes;
        exact += a.value.exact() as usize;
    }
    Run {
        nodes,
        secs: t.elapsed().as_secs_f64(),
        exact,
        total: ps.len(),
    }
}

fn row(name: &str, r: &Run, base: Option<f64>) -> String {
    format!(
        "| {name} | {} | {:.3} | {:.2} | {}/{} | {} |",
        r.nodes,
        r.secs,
        r.nodes as f64 / r.secs / 1e6,
        r.exact,
        r.total,
        base.map(|b| format!("{:.2}", r.secs / b))
            .unwrap_or_default()
    )
}

/// Perft without bulk counting: every leaf move is played, as the search plays every move it visits.
fn perft_full<G: Game>(p: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    G::legal_moves(p)
        .iter()
        .map(|m| perft_full::<G>(&G::play_unchecked(p, m).pos, depth - 1))
        .sum()
}

/// Perft over the suite at the smallest depth that takes at least half a second.
fn perft_nps<G: Game>(ps: &[Position], full: bool) -> (u32, u64, f64) {
    for depth in 4.. {
        let t = Instant::now();
        let n: u64 = ps
            .iter()
            .map(|p| {
                if full {
                    perft_full::<G>(p, depth)
                } else {
                    perft::<G>(p, depth)
                }
            })
            .sum();
        let secs = t.elapsed().as_secs_f64();
        if secs >= 0.5 || depth >= 40 {
            return (depth, n, secs);
        }
    }
    unreachable!()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = args
        .iter()
        .position(|a| a == "--tables")
        .and_then(|i| args.get(i + 1))
        .cloned()
        .unwrap_or("tables".into());
    let a = suite::<Adjito>(ADJITO);
    let b = suite::<AdjiBoto>(ADJIBOTO);
    let base = Options {
        parallel: false,
        pv_max: 0,
        use_tables: false,
        limits: Limits {
            nodes: Some(NODE_CAP),
            time: None,
        },
        ..Options::default()
    };
    let atomic = || AtomicTable::new(64);
    let dash = || DashTable::new(64);

    println!("## Search speed against perft (1 thread, bench suite, no tables)\n");
    println!("| game | search nodes | search s | search Mnodes/s | perft | depth | perft nodes | perft s | perft Mnodes/s | search ÷ perft |");
    println!("|---|---:|---:|---:|---|---:|---:|---:|---:|---:|");
    let sa = solve_all::<Adjito, _>(&a, atomic, None, base, 1);
    let sb = solve_all::<AdjiBoto, _>(&b, atomic, None, base, 1);
    for full in [false, true] {
        let kind = if full {
            "every leaf played"
        } else {
            "bulk-counted leaves"
        };
        let pa = perft_nps::<Adjito>(&a, full);
        let pb = perft_nps::<AdjiBoto>(&b, full);
        for (g, s, (d, pn, ps)) in [("adjito", &sa, pa), ("adjiboto", &sb, pb)] {
            let (sr, pr) = (s.nodes as f64 / s.secs, pn as f64 / ps);
            println!(
                "| {g} | {} | {:.3} | {:.2} | {kind} | {d} | {pn} | {ps:.3} | {:.2} | {:.2} |",
                s.nodes,
                s.secs,
                sr / 1e6,
                pr / 1e6,
                sr / pr
            );
        }
    }

    println!("\n## Effect of each technique (Adjito bench suite, 1 thread, node cap {NODE_CAP})\n");
    println!("| configuration | nodes | seconds | Mnodes/s | exact | time ÷ all-on |\n|---|---:|---:|---:|---:|---:|");
    let all = solve_all::<Adjito, _>(&a, atomic, None, base, 1);
    println!("{}", row("all on (no tables)", &all, Some(all.secs)));
    let r = solve_all::<Adjito, _>(
        &a,
        atomic,
        None,
        Options {
            use_tt: false,
            ..base
        },
        1,
    );
    println!("{}", row("without transposition table", &r, Some(all.secs)));
    let r = solve_all::<Adjito, _>(
        &a,
        atomic,
        None,
        Options {
            ordering: false,
            ..base
        },
        1,
    );
    println!("{}", row("without move ordering", &r, Some(all.secs)));
    match TableSet::open_available::<Adjito>(std::path::Path::new(&dir), LoopRule::Start) {
        Ok(t) if t.covered() > 0 => {
            let r = solve_all::<Adjito, _>(
                &a,
                atomic,
                Some(&t),
                Options {
                    use_tables: true,
                    ..base
                },
                1,
            );
            println!(
                "{}",
                row(
                    &format!("with endgame tables (levels 0..={})", t.covered() - 1),
                    &r,
                    Some(all.secs)
                )
            );
            let capped =
                TableSet::open::<Adjito>(std::path::Path::new(&dir), LoopRule::Start, 10).unwrap();
            let r = solve_all::<Adjito, _>(
                &a,
                atomic,
                Some(&capped),
                Options {
                    use_tables: true,
                    ..base
                },
                1,
            );
            println!(
                "{}",
                row("with endgame tables (levels 0..=10)", &r, Some(all.secs))
            );
        }
        _ => println!("| with endgame tables | (no tables in `{dir}`) | | | | |"),
    }

    println!("\n## Atomic transposition table against DashMap (Adjito bench suite, 64 MiB each)\n");
    println!("| table | threads | nodes | seconds | Mnodes/s | exact | time ÷ atomic |\n|---|---:|---:|---:|---:|---:|---:|");
    for threads in [1, 2] {
        let o = Options {
            parallel: threads > 1,
            ..base
        };
        let at = solve_all::<Adjito, _>(&a, atomic, None, o, threads);
        let da = solve_all::<Adjito, _>(&a, dash, None, o, threads);
        for (name, r) in [("atomic (seqlock array)", &at), ("DashMap", &da)] {
            println!(
                "| {name} | {threads} | {} | {:.3} | {:.2} | {}/{} | {:.2} |",
                r.nodes,
                r.secs,
                r.nodes as f64 / r.secs / 1e6,
                r.exact,
                r.total,
                r.secs / at.secs
            );
        }
    }

    println!("\n## Threads (atomic table, Adjito bench suite, Lazy SMP inside each exact solve)\n");
    println!("| threads | nodes | seconds | Mnodes/s | exact | speed-up |\n|---:|---:|---:|---:|---:|---:|");
    let one = solve_all::<Adjito, _>(&a, atomic, None, base, 1);
    let two = solve_all::<Adjito, _>(
        &a,
        atomic,
        None,
        Options {
            parallel: true,
            ..base
        },
        2,
    );
    for (t, r) in [(1, &one), (2, &two)] {
        println!(
            "| {t} | {} | {:.3} | {:.2} | {}/{} | {:.2} |",
            r.nodes,
            r.secs,
            r.nodes as f64 / r.secs / 1e6,
            r.exact,
            r.total,
            one.secs / r.secs
        );
    }
}
