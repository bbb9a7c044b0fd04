//! `openings`.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use adji::game::{Game, Position};
use adji::notation::{parse_state, Stores};
use adji::openings::{max_nodes_for, run, Budget, Config, LeafResult, WorkerError};
use adji::search::{Limits, Options, Searcher};
use adji::tt::AtomicTable;
use adji::value::LoopRule;

use crate::util::fmt_bytes;
use crate::CmdResult;

/// Memory allowed for the opening tree (until `openings` takes `--memory`).
const TREE_MEMORY: u64 = 4 << 30;

/// Options of `openings`.
pub struct OpeningsArgs {
    pub plies: u32,
    pub position: String,
    pub tables: Option<PathBuf>,
    pub rule: LoopRule,
    pub budget: Budget,
    pub hash_mib: usize,
    pub out: Option<PathBuf>,
    pub resume: bool,
    pub timings: bool,
    pub stop_after: Option<usize>,
    pub command: String,
}

pub fn cmd_openings<G: Game>(a: &OpeningsArgs) -> CmdResult {
    let root =
        parse_state::<G>(&a.position, Stores::Required).map_err(|e| format!("--position: {e}"))?;
    let tables = crate::solve::open_tables::<G>(a.tables.as_deref(), a.rule)?;
    let tables_text = match (&tables, &a.tables) {
        (Some(t), Some(d)) => format!("levels 0..={} from `{}`", t.covered() - 1, d.display()),
        _ => "none".to_string(),
    };
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("results/openings-{}-{}", G::ID.name(), a.plies)));
    let threads = rayon::current_num_threads();
    let mapped: u64 = tables.as_ref().map(|t| t.mapped_bytes()).unwrap_or(0);
    eprintln!(
        "{}: {} plies, budget {}, {threads} positions at a time, memory: {} of hash ({threads} × {} MiB) + {} of tables mapped; output in {}",
        G::ID,
        a.plies,
        a.budget.describe(),
        fmt_bytes((threads * a.hash_mib) as u64 * (1 << 20)),
        a.hash_mib,
        fmt_bytes(mapped),
        out.display()
    );
    let cfg = Config {
        root,
        plies: a.plies,
        rule: a.rule,
        budget: a.budget,
        command: a.command.clone(),
        tables: tables_text,
        timings: a.timings,
        stop_after: a.stop_after,
        max_nodes: max_nodes_for(TREE_MEMORY),
    };
    let limits = match a.budget {
        Budget::Exact | Budget::Depth(_) => Limits::default(),
        Budget::Seconds(s) => Limits {
            time: Some(Duration::from_secs_f64(s)),
            nodes: None,
        },
        Budget::Nodes(n) => Limits {
            nodes: Some(n),
            time: None,
        },
    };
    // One table per worker, cleared per position: results as with a fresh table.
    let init = || -> Result<AtomicTable, WorkerError> { Ok(AtomicTable::try_new(a.hash_mib)?) };
    let analyse = |tt: &mut AtomicTable, pos: &Position| {
        let t = Instant::now();
        tt.clear();
        let tt = &*tt;
        let opts = Options {
            rule: a.rule,
            limits,
            parallel: false,
            pv_max: 0,
            ..Options::default()
        };
        let s = Searcher::<G, _>::new(tables.as_ref(), tt, opts)
            .expect("rule and game checked when opening");
        let an = match a.budget {
            Budget::Depth(d) => s.analyse_depth(pos, d),
            _ => s.analyse(pos),
        };
        LeafResult::from_analysis(&an, t.elapsed().as_millis() as u64)
    };
    let pb = crate::util::Bar(crate::util::bar(0, "positions"));
    let r = run::<G, _>(&cfg, &out, a.resume, init, analyse, &pb);
    pb.0.finish_and_clear();
    let r = r.map_err(|e| e.to_string())?;
    if r.dropped_bytes > 0 {
        eprintln!("warning: dropped a bad checkpoint tail of {} bytes (half-written or corrupt); those positions were analysed again", r.dropped_bytes);
    }
    let root = &r.tree.nodes[0];
    println!(
        "{} lines, {} unique positions ({} analysed now); root value {}",
        r.tree.leaves.len(),
        r.tree.unique.len(),
        r.analysed_now,
        if root.value.exact() {
            format!("{:+}", root.value.lower)
        } else {
            format!("between {:+} and {:+}", root.value.lower, root.value.upper)
        }
    );
    for f in &r.files {
        println!("wrote {}", f.display());
    }
    Ok(())
}
