//! Opening analysis: backed-up values equal direct solves, enumeration
//! order and deduplication, the node cap, one state per worker, resume after
//! an interruption, and corrupt or odd checkpoints.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use adji::game::{Game, Position, State};
use adji::notation::{format_move, parse_state, Stores};
use adji::openings::{
    bytes_per_node, enumerate, max_nodes_for, run, Budget, Config, LeafResult, OpeningsError,
    Report, Tree,
};
use adji::progress::NoProgress;
use adji::search::{Limits, Options, Searcher};
use adji::tt::AtomicTable;
use adji::value::LoopRule;
use adji::{AdjiBoto, Adjito};

const ROOT: &str = "0,2,1,1,2,0/1,0,2,0,1,2 B 18-18"; // 12 seeds

fn root<G: Game>(s: &str) -> State {
    parse_state::<G>(s, Stores::Required).unwrap()
}

fn cfg<G: Game>(r: &str, plies: u32) -> Config {
    let c = Config::new(root::<G>(r), plies, LoopRule::Start, Budget::Exact, 1 << 20);
    Config {
        command: "test".into(),
        timings: false,
        ..c
    }
}

/// A run with a stateless analysis.
fn run_with<G: Game>(
    c: &Config,
    dir: &Path,
    resume: bool,
    analyse: impl Fn(&Position) -> LeafResult + Sync,
) -> Result<Report, OpeningsError> {
    run::<G, ()>(
        c,
        dir,
        resume,
        || Ok(()),
        |_, p| Ok(analyse(p)),
        &NoProgress,
    )
}

fn enumerate_all<G: Game>(root: State, plies: u32) -> Tree {
    enumerate::<G>(root, plies, usize::MAX).unwrap()
}

fn solve<G: Game>(pos: &Position) -> LeafResult {
    let tt = AtomicTable::new(4);
    let s = Searcher::<G, _>::new(
        None,
        &tt,
        Options {
            parallel: false,
            pv_max: 0,
            ..Options::default()
        },
    )
    .unwrap();
    LeafResult::from_analysis(&s.analyse(pos), 0)
}

fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    ["lines.csv", "tree.json", "tree.svg", "summary.md"]
        .iter()
        .map(|f| (f.to_string(), std::fs::read(dir.join(f)).unwrap()))
        .collect()
}

fn backed_up_equals_direct<G: Game>(r: &str, plies: u32) {
    let dir = tempfile::tempdir().unwrap();
    let rep = run_with::<G>(&cfg::<G>(r, plies), dir.path(), false, solve::<G>).unwrap();
    for n in &rep.tree.nodes {
        let d = solve::<G>(&n.state.pos);
        assert_eq!(
            (n.value, n.lo, n.hi),
            (d.value, d.lo, d.hi),
            "{:?}",
            n.state
        );
        assert!(n.value.exact());
    }
    assert!(rep.tree.nodes.len() > 20);
}

#[test]
fn adjito_backed_up_values_equal_direct_solves() {
    backed_up_equals_direct::<Adjito>(ROOT, 3);
}

#[test]
fn adjiboto_backed_up_values_equal_direct_solves() {
    backed_up_equals_direct::<AdjiBoto>("2,3,0,2,1/0,2,3,1,2 0 42-42 main", 3);
}

#[test]
fn a_position_reached_by_two_move_orders_is_analysed_once() {
    // The first position of a fixed playout whose 4-ply tree has transpositions.
    let mut st = root::<Adjito>("start");
    let mut seed = 3u64;
    let t = loop {
        let t = enumerate_all::<Adjito>(st, 4);
        if t.unique.len() < t.leaves.len() {
            break t;
        }
        let ml = Adjito::legal_moves(&st.pos);
        assert!(!ml.is_empty(), "no root with transpositions found");
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        st = st
            .play::<Adjito>(ml.get((seed >> 33) as usize % ml.len()))
            .0;
    };
    let root_text = adji::notation::format_state::<Adjito>(&st);
    let calls = AtomicUsize::new(0);
    let dir = tempfile::tempdir().unwrap();
    let fake = |_: &Position| {
        calls.fetch_add(1, Ordering::SeqCst);
        let r = adji::value::Range::point(0);
        LeafResult {
            value: r,
            lo: r,
            hi: r,
            best: None,
            nodes: 1,
            ms: 0,
            estimate: None,
        }
    };
    let rep = run_with::<Adjito>(&cfg::<Adjito>(&root_text, 4), dir.path(), false, fake).unwrap();
    assert_eq!(calls.load(Ordering::SeqCst), t.unique.len());
    assert!(rep.tree.unique.len() < rep.tree.leaves.len());
}

#[test]
fn resume_after_interruption_gives_identical_outputs_and_redoes_nothing() {
    let full = tempfile::tempdir().unwrap();
    let c = cfg::<Adjito>(ROOT, 3);
    run_with::<Adjito>(&c, full.path(), false, solve::<Adjito>).unwrap();

    let part = tempfile::tempdir().unwrap();
    let stop = Config {
        stop_after: Some(7),
        ..c.clone()
    };
    let err = run_with::<Adjito>(&stop, part.path(), false, solve::<Adjito>).unwrap_err();
    assert!(matches!(err, OpeningsError::Interrupted(7)));
    let calls = AtomicUsize::new(0);
    let counted = |p: &Position| {
        calls.fetch_add(1, Ordering::SeqCst);
        solve::<Adjito>(p)
    };
    let rep = run_with::<Adjito>(&c, part.path(), true, counted).unwrap();
    assert_eq!(calls.load(Ordering::SeqCst), rep.tree.unique.len() - 7);
    assert_eq!(files(part.path()), files(full.path()));
}

#[test]
fn a_half_written_or_corrupt_checkpoint_tail_is_dropped_never_trusted() {
    let full = tempfile::tempdir().unwrap();
    let c = cfg::<Adjito>(ROOT, 2);
    run_with::<Adjito>(&c, full.path(), false, solve::<Adjito>).unwrap();
    let ck = full.path().join("checkpoint.bin");
    let good = std::fs::read(&ck).unwrap();

    // Half-written last record.
    let d1 = tempfile::tempdir().unwrap();
    std::fs::write(d1.path().join("checkpoint.bin"), &good[..good.len() - 5]).unwrap();
    let rep = run_with::<Adjito>(&c, d1.path(), true, solve::<Adjito>).unwrap();
    assert!(rep.dropped_bytes > 0);
    assert_eq!(rep.analysed_now, 1);
    assert_eq!(files(d1.path()), files(full.path()));

    // A flipped byte inside an early record: its CRC fails; it and the rest are redone.
    let d2 = tempfile::tempdir().unwrap();
    let mut bad = good.clone();
    let k = good.len() / 3;
    bad[k] ^= 0x55;
    std::fs::write(d2.path().join("checkpoint.bin"), &bad).unwrap();
    let rep = run_with::<Adjito>(&c, d2.path(), true, solve::<Adjito>).unwrap();
    assert!(rep.dropped_bytes > 0 && rep.analysed_now > 1);
    assert_eq!(files(d2.path()), files(full.path()));

    // A checkpoint made with other settings is refused with a clear message.
    let d3 = tempfile::tempdir().unwrap();
    std::fs::write(d3.path().join("checkpoint.bin"), &good).unwrap();
    let other = Config {
        plies: 3,
        ..c.clone()
    };
    let e = run_with::<Adjito>(&other, d3.path(), true, solve::<Adjito>).unwrap_err();
    assert!(e.to_string().contains("other settings"), "{e}");

    // Not a checkpoint at all.
    let d4 = tempfile::tempdir().unwrap();
    std::fs::write(d4.path().join("checkpoint.bin"), b"garbage").unwrap();
    let e = run_with::<Adjito>(&c, d4.path(), true, solve::<Adjito>).unwrap_err();
    assert!(e.to_string().contains("not an openings checkpoint"), "{e}");
}

#[test]
fn adjiboto_openings_walk_through_the_opening() {
    let t = enumerate_all::<AdjiBoto>(root::<AdjiBoto>("start"), 3);
    assert_eq!(t.leaves.len(), 100);
    assert!(t.unique.iter().all(|p| p.in_opening()));
}

/// The tree as a plain recursion builds it: (state, depth, move names) in
/// pre-order with children in move order.
fn reference<G: Game>(st: State, depth: u32, plies: u32, out: &mut Vec<(State, u32, Vec<String>)>) {
    let moves = G::legal_moves(&st.pos);
    let moves: Vec<_> = if depth < plies {
        moves.iter().collect()
    } else {
        Vec::new()
    };
    let names = moves
        .iter()
        .map(|&m| format_move::<G>(&st.pos, m))
        .collect();
    out.push((st, depth, names));
    for m in moves {
        reference::<G>(st.play::<G>(m).0, depth + 1, plies, out);
    }
}

fn matches_reference<G: Game>(st: State, plies: u32) {
    let t = enumerate_all::<G>(st, plies);
    let mut want = Vec::new();
    reference::<G>(st, 0, plies, &mut want);
    assert_eq!(t.nodes.len(), want.len());
    for (i, (n, (s, d, names))) in t.nodes.iter().zip(&want).enumerate() {
        assert_eq!((n.state, n.depth), (*s, *d), "node {i}");
        let got: Vec<_> = n.children.iter().map(|e| e.name.clone()).collect();
        assert_eq!(&got, names, "node {i}");
        for e in &n.children {
            assert_eq!(t.nodes[e.child].depth, n.depth + 1);
            assert_eq!(t.nodes[e.child].state, n.state.play::<G>(e.mv).0);
        }
        assert_eq!(n.leaf.is_some(), n.children.is_empty(), "node {i}");
    }
    // Consecutive children: each child is right after its elder sibling's subtree.
    let leaves: Vec<usize> = (0..t.nodes.len())
        .filter(|&i| t.nodes[i].children.is_empty())
        .collect();
    assert_eq!(t.leaves, leaves);
    let mut first = Vec::new();
    for &i in &leaves {
        let p = t.nodes[i].state.pos;
        if !first.contains(&p) {
            first.push(p);
        }
        assert_eq!(t.unique[t.nodes[i].leaf.unwrap()], p);
        assert_eq!(t.unique_index(&p), t.nodes[i].leaf);
    }
    assert_eq!(
        t.unique, first,
        "unique leaves in order of first appearance"
    );
}

#[test]
fn enumeration_is_the_pre_order_of_a_plain_recursion() {
    matches_reference::<Adjito>(root::<Adjito>("start"), 4);
    matches_reference::<Adjito>(root::<Adjito>(ROOT), 5);
    matches_reference::<AdjiBoto>(root::<AdjiBoto>("start"), 3);
    matches_reference::<Adjito>(root::<Adjito>("start"), 0);
}

/// D10: `openings --plies 200 --depth 1` used to grow until the kernel killed it.
#[test]
fn a_tree_past_its_node_cap_is_refused_as_soon_as_it_passes() {
    let start = root::<Adjito>("start");
    let e = enumerate::<Adjito>(start, 200, 100_000).unwrap_err();
    assert!(
        matches!(e, OpeningsError::TooLarge { nodes: 100_001, bytes } if bytes == 100_001 * bytes_per_node() as u64),
        "{e:?}"
    );
    assert!(e.to_string().contains("100001 nodes"), "{e}");
    // The cap is exact: a tree of n nodes fits n, not n - 1.
    let n = enumerate_all::<Adjito>(start, 3).nodes.len();
    assert!(enumerate::<Adjito>(start, 3, n).is_ok());
    assert!(enumerate::<Adjito>(start, 3, n - 1).is_err());
    // A run refuses before creating anything.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let c = Config {
        plies: 200,
        max_nodes: 100_000,
        ..cfg::<Adjito>("start", 200)
    };
    let e = run_with::<Adjito>(&c, &out, false, solve::<Adjito>).unwrap_err();
    assert!(matches!(e, OpeningsError::TooLarge { .. }), "{e:?}");
    assert!(!out.exists());
}

#[test]
fn the_node_cap_follows_from_a_memory_budget() {
    let per = bytes_per_node();
    assert!((100..2000).contains(&per), "{per} bytes per node");
    assert_eq!(max_nodes_for(0), 0);
    assert_eq!(max_nodes_for(per as u64 * 1000 + per as u64 - 1), 1000);
    assert_eq!(max_nodes_for(u64::MAX), (u64::MAX / per as u64) as usize);
}

#[test]
fn each_worker_makes_one_state_and_reuses_it() {
    let made = AtomicUsize::new(0);
    let used = AtomicUsize::new(0);
    let dir = tempfile::tempdir().unwrap();
    let c = cfg::<Adjito>(ROOT, 3);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let rep = pool
        .install(|| {
            let init = || Ok(made.fetch_add(1, Ordering::SeqCst));
            let analyse = |_: &mut usize, p: &Position| {
                used.fetch_add(1, Ordering::SeqCst);
                Ok(solve::<Adjito>(p))
            };
            run::<Adjito, usize>(&c, dir.path(), false, init, analyse, &NoProgress)
        })
        .unwrap();
    assert_eq!(used.load(Ordering::SeqCst), rep.tree.unique.len());
    let m = made.load(Ordering::SeqCst);
    assert!((1..=2).contains(&m), "{m} states for 2 workers");
}

#[test]
fn a_worker_whose_state_cannot_be_made_stops_the_run_with_that_error() {
    let dir = tempfile::tempdir().unwrap();
    let c = cfg::<Adjito>(ROOT, 2);
    let init = || AtomicTable::try_new(0).map_err(Into::into);
    let analyse = |_: &mut AtomicTable, p: &Position| Ok(solve::<Adjito>(p));
    let e = run::<Adjito, _>(&c, dir.path(), false, init, analyse, &NoProgress).unwrap_err();
    assert!(matches!(e, OpeningsError::Worker(_)), "{e:?}");
    assert!(e.to_string().contains("hash size 0 MiB"), "{e}");
    assert!(!dir.path().join("lines.csv").exists());
}

/// What the command line does per position: a worker's table, cleared.
fn analyse_in(tt: &AtomicTable, pos: &Position, limits: Limits) -> LeafResult {
    let opts = Options {
        parallel: false,
        pv_max: 0,
        limits,
        ..Options::default()
    };
    let s = Searcher::<Adjito, _>::new(None, tt, opts).unwrap();
    LeafResult::from_analysis(&s.analyse(pos), 0)
}

#[test]
fn a_reused_cleared_table_gives_exactly_what_a_fresh_table_gives() {
    let t = enumerate_all::<Adjito>(root::<Adjito>("start"), 2);
    let budgets = [
        Limits {
            nodes: Some(30_000),
            time: None,
        },
        Limits::default(),
    ];
    let small = enumerate_all::<Adjito>(root::<Adjito>(ROOT), 2);
    let mut reused = AtomicTable::new(1);
    for (limits, tree) in budgets.into_iter().zip([&t, &small]) {
        for p in &tree.unique {
            reused.clear();
            let fresh = analyse_in(&AtomicTable::new(1), p, limits);
            assert_eq!(analyse_in(&reused, p, limits), fresh, "{p:?}");
        }
    }
}

#[cfg(unix)]
fn mkfifo(path: &Path) {
    let ok = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap()
        .success();
    assert!(ok, "mkfifo failed");
}

/// Runs `f` on a thread; fails (instead of hanging the suite) after 60 s.
fn within_a_minute<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(f()).unwrap());
    rx.recv_timeout(std::time::Duration::from_secs(60))
        .expect("hung")
}

/// A FIFO named like the checkpoint used to hang both a fresh run (opened
/// for writing) and a resumed one (read to its end); both refuse it.
#[cfg(unix)]
#[test]
fn a_fifo_in_place_of_the_checkpoint_never_hangs() {
    let dir = tempfile::tempdir().unwrap();
    let ck = dir.path().join("checkpoint.bin");
    mkfifo(&ck);
    let d = dir.path().to_path_buf();
    let e = within_a_minute(move || {
        run_with::<Adjito>(&cfg::<Adjito>(ROOT, 2), &d, true, solve::<Adjito>).map(|_| ())
    })
    .unwrap_err();
    assert!(
        e.to_string().contains("checkpoint.bin") && e.to_string().contains("FIFO"),
        "{e}"
    );
    // A fresh run refuses it too: a file the tool writes never replaces a
    // FIFO, a device or a directory (it used to be replaced).
    let d = dir.path().to_path_buf();
    let e = within_a_minute(move || {
        run_with::<Adjito>(&cfg::<Adjito>(ROOT, 2), &d, false, solve::<Adjito>).map(|_| ())
    })
    .unwrap_err();
    assert!(
        e.to_string().contains("checkpoint.bin") && e.to_string().contains("not a regular file"),
        "{e}"
    );
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::symlink_metadata(&ck)
        .unwrap()
        .file_type()
        .is_fifo());
}

/// With estimates: a node-limited exact search, then the engine where the
/// value is open. Every estimate lies inside its proven bounds, no exact
/// node carries one, the bounds still contain the exact values, and the
/// outputs mark estimates as such (CSV columns, JSON field, summary ranking).
#[test]
fn estimates_stay_inside_proven_bounds_and_apart_from_values() {
    use adji::engine::{Engine, EngineOptions, SCALE};
    use adji::eval::Model;
    let r = "1,3,0,2,1,2/2,1,3,1,0,2 B 16-14"; // 18 seeds
    let c = Config {
        budget: Budget::Estimate(1.0),
        ..cfg::<Adjito>(r, 2)
    };
    let model = Model::default_for::<Adjito>();
    let limited = |pos: &Position| {
        let tt = AtomicTable::new(1);
        let opts = Options {
            parallel: false,
            pv_max: 0,
            limits: Limits {
                nodes: Some(2_000),
                time: None,
            },
            ..Options::default()
        };
        let s = Searcher::<Adjito, _>::new(None, &tt, opts).unwrap();
        let leaf = LeafResult::from_analysis(&s.analyse(pos), 0);
        if leaf.value.exact() {
            return leaf;
        }
        let eo = EngineOptions {
            limits: opts.limits,
            ..EngineOptions::default()
        };
        leaf.with_estimate(&Engine::<Adjito>::new(None, &model, eo).analyse(pos))
    };
    let dir = tempfile::tempdir().unwrap();
    let rep = run_with::<Adjito>(&c, dir.path(), false, limited).unwrap();
    let mut estimated = 0;
    for n in &rep.tree.nodes {
        let exact = solve::<Adjito>(&n.state.pos).value.lower;
        assert!(n.value.lower <= exact && exact <= n.value.upper);
        match n.estimate {
            Some(e) => {
                estimated += 1;
                assert!(!n.value.exact());
                assert!(n.value.lower * SCALE <= e && e <= n.value.upper * SCALE);
            }
            None => assert!(n.value.exact() || n.leaf.is_none()),
        }
    }
    assert!(
        estimated > 0,
        "the node limit should leave some values open"
    );
    let csv = std::fs::read_to_string(dir.path().join("lines.csv")).unwrap();
    assert!(csv.starts_with(
        "line,moves,position,lower,upper,exact,value,best_reply,nodes,ms,estimate,estimate_depth\n"
    ));
    let json = std::fs::read_to_string(dir.path().join("tree.json")).unwrap();
    assert!(json.contains("\"estimate\""));
    let md = std::fs::read_to_string(dir.path().join("summary.md")).unwrap();
    assert!(md.contains("## Lines ranked for the root's mover") && md.contains("| estimate |"));
}

/// The process's peak resident memory in KiB, or 0 where unknown.
fn peak_kib(field: &str) -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// Defect A: the whole checkpoint was read into memory and every 8 zero
/// bytes parsed as an empty frame (the CRC of nothing is 0), so a sparse
/// run of zeros after the records cost many times its size in memory.
#[test]
fn a_sparse_run_of_zeros_after_the_records_is_dropped_without_being_read() {
    let full = tempfile::tempdir().unwrap();
    let c = cfg::<Adjito>(ROOT, 2);
    run_with::<Adjito>(&c, full.path(), false, solve::<Adjito>).unwrap();
    let good = std::fs::read(full.path().join("checkpoint.bin")).unwrap();
    let d = tempfile::tempdir().unwrap();
    let ck = d.path().join("checkpoint.bin");
    std::fs::write(&ck, &good).unwrap();
    let zeros = 256u64 << 20;
    let f = std::fs::OpenOptions::new().write(true).open(&ck).unwrap();
    f.set_len(good.len() as u64 + zeros).unwrap();
    drop(f);
    // Start the peak afresh where the kernel allows it.
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let before = peak_kib("VmRSS:");
    let rep = run_with::<Adjito>(&c, d.path(), true, |_| unreachable!("all recorded")).unwrap();
    let grew = peak_kib("VmHWM:").saturating_sub(before);
    assert_eq!(rep.analysed_now, 0, "the good records are kept");
    assert_eq!(rep.dropped_bytes, zeros);
    assert_eq!(rep.dropped_from, Some(good.len() as u64));
    assert_eq!(std::fs::metadata(&ck).unwrap().len(), good.len() as u64);
    assert_eq!(files(d.path()), files(full.path()));
    assert!(grew < 64 << 10, "peak memory grew by {grew} KiB");
}
