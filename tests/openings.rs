//! Opening analysis: backed-up values equal direct solves, deduplication,
//! resume after an interruption, and corrupt checkpoints.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use adji::game::{Game, Position, State};
use adji::notation::{parse_state, Stores};
use adji::openings::{enumerate, run, Budget, Config, LeafResult, OpeningsError};
use adji::progress::NoProgress;
use adji::search::{Options, Searcher};
use adji::tt::AtomicTable;
use adji::value::LoopRule;
use adji::{AdjiBoto, Adjito};

const ROOT: &str = "0,2,1,1,2,0/1,0,2,0,1,2 B 18-18"; // 12 seeds

fn root<G: Game>(s: &str) -> State {
    parse_state::<G>(s, Stores::Required).unwrap()
}

fn cfg<G: Game>(r: &str, plies: u32) -> Config {
    Config {
        root: root::<G>(r),
        plies,
        rule: LoopRule::Start,
        budget: Budget::Exact,
        command: "test".into(),
        tables: "none".into(),
        timings: false,
        stop_after: None,
    }
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
    let rep = run::<G>(
        &cfg::<G>(r, plies),
        dir.path(),
        false,
        solve::<G>,
        &NoProgress,
    )
    .unwrap();
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
        let t = enumerate::<Adjito>(st, 4);
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
        }
    };
    let rep = run::<Adjito>(
        &cfg::<Adjito>(&root_text, 4),
        dir.path(),
        false,
        fake,
        &NoProgress,
    )
    .unwrap();
    assert_eq!(calls.load(Ordering::SeqCst), t.unique.len());
    assert!(rep.tree.unique.len() < rep.tree.leaves.len());
}

#[test]
fn resume_after_interruption_gives_identical_outputs_and_redoes_nothing() {
    let full = tempfile::tempdir().unwrap();
    let c = cfg::<Adjito>(ROOT, 3);
    run::<Adjito>(&c, full.path(), false, solve::<Adjito>, &NoProgress).unwrap();

    let part = tempfile::tempdir().unwrap();
    let stop = Config {
        stop_after: Some(7),
        ..c.clone()
    };
    let err = run::<Adjito>(&stop, part.path(), false, solve::<Adjito>, &NoProgress).unwrap_err();
    assert!(matches!(err, OpeningsError::Interrupted(7)));
    let calls = AtomicUsize::new(0);
    let counted = |p: &Position| {
        calls.fetch_add(1, Ordering::SeqCst);
        solve::<Adjito>(p)
    };
    let rep = run::<Adjito>(&c, part.path(), true, counted, &NoProgress).unwrap();
    assert_eq!(calls.load(Ordering::SeqCst), rep.tree.unique.len() - 7);
    assert_eq!(files(part.path()), files(full.path()));
}

#[test]
fn a_half_written_or_corrupt_checkpoint_tail_is_dropped_never_trusted() {
    let full = tempfile::tempdir().unwrap();
    let c = cfg::<Adjito>(ROOT, 2);
    run::<Adjito>(&c, full.path(), false, solve::<Adjito>, &NoProgress).unwrap();
    let ck = full.path().join("checkpoint.bin");
    let good = std::fs::read(&ck).unwrap();

    // Half-written last record.
    let d1 = tempfile::tempdir().unwrap();
    std::fs::write(d1.path().join("checkpoint.bin"), &good[..good.len() - 5]).unwrap();
    let rep = run::<Adjito>(&c, d1.path(), true, solve::<Adjito>, &NoProgress).unwrap();
    assert!(rep.dropped_bytes > 0);
    assert_eq!(rep.analysed_now, 1);
    assert_eq!(files(d1.path()), files(full.path()));

    // A flipped byte inside an early record: its CRC fails; it and the rest are redone.
    let d2 = tempfile::tempdir().unwrap();
    let mut bad = good.clone();
    let k = good.len() / 3;
    bad[k] ^= 0x55;
    std::fs::write(d2.path().join("checkpoint.bin"), &bad).unwrap();
    let rep = run::<Adjito>(&c, d2.path(), true, solve::<Adjito>, &NoProgress).unwrap();
    assert!(rep.dropped_bytes > 0 && rep.analysed_now > 1);
    assert_eq!(files(d2.path()), files(full.path()));

    // A checkpoint made with other settings is refused with a clear message.
    let d3 = tempfile::tempdir().unwrap();
    std::fs::write(d3.path().join("checkpoint.bin"), &good).unwrap();
    let other = Config {
        plies: 3,
        ..c.clone()
    };
    let e = run::<Adjito>(&other, d3.path(), true, solve::<Adjito>, &NoProgress).unwrap_err();
    assert!(e.to_string().contains("other settings"), "{e}");

    // Not a checkpoint at all.
    let d4 = tempfile::tempdir().unwrap();
    std::fs::write(d4.path().join("checkpoint.bin"), b"garbage").unwrap();
    let e = run::<Adjito>(&c, d4.path(), true, solve::<Adjito>, &NoProgress).unwrap_err();
    assert!(e.to_string().contains("not an openings checkpoint"), "{e}");
}

#[test]
fn adjiboto_openings_walk_through_the_opening() {
    let t = enumerate::<AdjiBoto>(root::<AdjiBoto>("start"), 3);
    assert_eq!(t.leaves.len(), 100);
    assert!(t.unique.iter().all(|p| p.in_opening()));
}
