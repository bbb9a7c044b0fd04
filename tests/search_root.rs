//! The analysis's root phase and table-based move pruning: sound under
//! both loop rules, with and without limits.

mod common;

use adji::game::{Game, Position};
use adji::index::{level_size, unrank};
use adji::progress::NoProgress;
use adji::search::{Limits, Options, PvEnd, RootPhase, Searcher};
use adji::tables::retrograde::build_tables;
use adji::tables::{move_values, TableSet};
use adji::tt::AtomicTable;
use adji::value::LoopRule;
use adji::{AdjiBoto, Adjito};

fn opts(rule: LoopRule, exit_prune: bool, nodes: Option<u64>) -> Options {
    Options {
        rule,
        exit_prune,
        parallel: false,
        limits: Limits { nodes, time: None },
        pv_max: 4,
        ..Options::default()
    }
}

/// A random main-phase position of a level in `lo..=hi`.
fn random_position<G: Game>(rng: &mut u64, lo: u32, hi: u32) -> Position {
    let n = lo + (common::lcg(rng) % (hi - lo + 1) as u64) as u32;
    let idx = common::lcg(rng) % level_size(n as usize, G::PITS);
    Position {
        pits: unrank(idx, n as usize, G::PITS),
        side: (idx & 1) as u8,
        opening: 0,
    }
}

/// Random positions of levels 6..=12, searched with tables capped two
/// seeds below their level (so that move pruning by the tables' exits
/// happens often), with the pruning on and off, and with the root's value
/// solved first and from the moves, under `rule`: value, `lo`/`hi` and
/// every move equal the full tables'.
fn pruning_agrees<G: Game>(rule: LoopRule, seed: u64, count: usize) {
    let dir = tempfile::tempdir().unwrap();
    let full = build_tables::<G>(dir.path(), rule, 12, &NoProgress, |_| {}).unwrap();
    let mut rng = seed;
    for _ in 0..count {
        let pos = random_position::<G>(&mut rng, 6, 12);
        let cap = TableSet::open::<G>(dir.path(), rule, pos.level() - 2).unwrap();
        let b = full.bounds::<G>(&pos).unwrap();
        let mut want: Vec<(u8, i32)> = move_values::<G>(&full, &pos)
            .unwrap()
            .iter()
            .map(|m| (m.mv.0, m.value))
            .collect();
        want.sort_unstable();
        let phases = [RootPhase::First, RootPhase::FromMoves];
        for (prune, root_phase) in [true, false]
            .into_iter()
            .zip(phases)
            .chain([(true, phases[1])])
        {
            let tt = AtomicTable::new(4);
            let o = Options {
                root_phase,
                ..opts(rule, prune, None)
            };
            let s = Searcher::<G, _>::new(Some(&cap), &tt, o).unwrap();
            let a = s.analyse(&pos);
            let what = format!("{:?} {rule:?} prune {prune} {root_phase:?} {pos:?}", G::ID);
            assert!(a.value.exact(), "{what}");
            assert_eq!(a.value.lower, b.value(rule.w::<G>(&pos)), "{what}");
            assert_eq!((a.lo.lower, a.hi.lower), (b.lo, b.hi), "{what}");
            let mut got: Vec<(u8, i32)> = a.moves.iter().map(|m| (m.mv.0, m.value.lower)).collect();
            got.sort_unstable();
            assert_eq!(got, want, "{what}");
            assert!(a.value_ms <= a.stats.time_ms, "{what}");
        }
    }
}

#[test]
fn adjito_exit_pruning_agrees_with_tables_both_rules() {
    pruning_agrees::<Adjito>(LoopRule::Start, 5, 150);
    pruning_agrees::<Adjito>(LoopRule::Even, 6, 150);
}

#[test]
fn adjiboto_exit_pruning_agrees_with_tables_both_rules() {
    pruning_agrees::<AdjiBoto>(LoopRule::Start, 7, 150);
    pruning_agrees::<AdjiBoto>(LoopRule::Even, 8, 150);
}

/// Under node limits from tiny to ample, every bound an analysis reports
/// (value, `lo`, `hi`, each move's value) contains the exact one: the
/// root's value solved first and the moves' round-robin under budgets
/// never report more than they proved.
fn limited_bounds_contain_exact<G: Game>(rule: LoopRule, seed: u64) {
    let dir = tempfile::tempdir().unwrap();
    let full = build_tables::<G>(dir.path(), rule, 14, &NoProgress, |_| {}).unwrap();
    let mut rng = seed;
    let (mut exact_values, mut open_moves) = (0, 0);
    for i in 0..60 {
        let pos = random_position::<G>(&mut rng, 12, 14);
        let tt = AtomicTable::new(4);
        let nodes = [50, 400, 3_000, 30_000][i % 4];
        let s = Searcher::<G, _>::new(None, &tt, opts(rule, true, Some(nodes))).unwrap();
        let a = s.analyse(&pos);
        let b = full.bounds::<G>(&pos).unwrap();
        let what = format!("{:?} {rule:?} nodes {nodes} {pos:?}", G::ID);
        let v = b.value(rule.w::<G>(&pos));
        assert!(
            a.value.lower <= v && v <= a.value.upper,
            "{what}: {:?}",
            a.value
        );
        assert!(
            a.lo.lower <= b.lo && b.lo <= a.lo.upper,
            "{what}: lo {:?}",
            a.lo
        );
        assert!(
            a.hi.lower <= b.hi && b.hi <= a.hi.upper,
            "{what}: hi {:?}",
            a.hi
        );
        for m in move_values::<G>(&full, &pos).unwrap() {
            let r = a.moves.iter().find(|x| x.mv == m.mv).unwrap().value;
            assert!(
                r.lower <= m.value && m.value <= r.upper,
                "{what}: {m:?} {r:?}"
            );
            open_moves += !r.exact() as u32;
        }
        exact_values += a.value.exact() as u32;
        // A line cut short by the limit says so, not "length cap".
        if a.pv_end == PvEnd::Length {
            assert_eq!(a.pv.len(), 4, "{what}: {:?}", a.pv);
        }
    }
    // The limits left some bounds open and some values exact, or the
    // test says nothing.
    assert!(
        open_moves > 0 && exact_values > 0,
        "{exact_values} {open_moves}"
    );
}

#[test]
fn limited_analyses_report_sound_bounds() {
    limited_bounds_contain_exact::<Adjito>(LoopRule::Start, 11);
    limited_bounds_contain_exact::<Adjito>(LoopRule::Even, 12);
    limited_bounds_contain_exact::<AdjiBoto>(LoopRule::Start, 13);
    limited_bounds_contain_exact::<AdjiBoto>(LoopRule::Even, 14);
}
