//! Search == tables, thread and hash-size independence.

mod common;

use adji::game::{Game, Move, Position};
use adji::index::{level_size, unrank};
use adji::progress::NoProgress;
use adji::search::{Limits, Options, Searcher};
use adji::tables::retrograde::build_tables;
use adji::tables::{move_values, TableSet};
use adji::tt::AtomicTable;
use adji::value::{capture_value, quiet_value, LoopRule};
use adji::{AdjiBoto, Adjito};

fn tables<G: Game>(dir: &std::path::Path, rule: LoopRule, max: u32) -> TableSet {
    build_tables::<G>(dir, rule, max, &NoProgress, |_| {}).unwrap()
}

fn opts(rule: LoopRule, parallel: bool) -> Options {
    Options {
        rule,
        parallel,
        limits: Limits::default(),
        pv_max: 4,
        ..Options::default()
    }
}

/// Every position of levels 0..=max searched without tables equals the tables,
/// value, loop flag and every move value.
fn search_equals_tables<G: Game>(rule: LoopRule, max: u32, hash_mib: usize) {
    let dir = tempfile::tempdir().unwrap();
    let set = tables::<G>(dir.path(), rule, max);
    let tt = AtomicTable::new(hash_mib);
    let s = Searcher::<G, _>::new(None, &tt, opts(rule, false)).unwrap();
    for n in 0..=max {
        for idx in 0..level_size(n as usize, G::PITS) {
            let pos = Position {
                pits: unrank(idx, n as usize, G::PITS),
                side: (idx % 2) as u8,
                opening: 0,
            };
            let a = s.analyse(&pos);
            let b = set.bounds::<G>(&pos).unwrap();
            let want = b.value(rule.w::<G>(&pos));
            assert!(a.value.exact(), "{pos:?}");
            assert_eq!(
                a.value.lower,
                want,
                "{:?} {:?} level {n}",
                G::ID,
                &pos.pits[..G::PITS]
            );
            assert_eq!((a.lo.lower, a.hi.lower), (b.lo, b.hi), "{pos:?}");
            let mut tv: Vec<(u8, i32)> = move_values::<G>(&set, &pos)
                .unwrap()
                .iter()
                .map(|m| (m.mv.0, m.value))
                .collect();
            let mut sv: Vec<(u8, i32)> = a.moves.iter().map(|m| (m.mv.0, m.value.lower)).collect();
            tv.sort_unstable();
            sv.sort_unstable();
            assert_eq!(sv, tv, "{pos:?}");
        }
    }
}

#[test]
fn adjito_search_equals_tables_start() {
    search_equals_tables::<Adjito>(LoopRule::Start, 6, 16);
}
#[test]
fn adjito_search_equals_tables_even() {
    search_equals_tables::<Adjito>(LoopRule::Even, 6, 16);
}
#[test]
fn adjiboto_search_equals_tables_start() {
    search_equals_tables::<AdjiBoto>(LoopRule::Start, 6, 16);
}
#[test]
fn adjiboto_search_equals_tables_even() {
    search_equals_tables::<AdjiBoto>(LoopRule::Even, 6, 16);
}

/// A table set holding only levels `0..=cap` of `full`'s directory.
fn capped<G: Game>(dir: &std::path::Path, rule: LoopRule, cap: u32) -> TableSet {
    TableSet::open::<G>(dir, rule, cap).unwrap()
}

/// Random positions of levels `lo..=hi`, searched with tables capped three
/// seeds below their level, against the full tables; also with 2 threads
/// and with a 1 MiB hash.
fn random_positions_agree<G: Game>(seed: u64, count: usize, lo: u32, hi: u32) {
    let dir = tempfile::tempdir().unwrap();
    let full = tables::<G>(dir.path(), LoopRule::Start, hi);
    let mut rng = seed;
    let mut done = 0;
    while done < count {
        let n = lo + (common::lcg(&mut rng) % (hi - lo + 1) as u64) as u32;
        let idx = common::lcg(&mut rng) % level_size(n as usize, G::PITS);
        let pos = Position {
            pits: unrank(idx, n as usize, G::PITS),
            side: (idx & 1) as u8,
            opening: 0,
        };
        let cap = capped::<G>(dir.path(), LoopRule::Start, n - 3);
        let want = full.value::<G>(&pos).unwrap();
        let want_moves: Vec<(u8, i32)> = {
            let mut v: Vec<_> = move_values::<G>(&full, &pos)
                .unwrap()
                .iter()
                .map(|m| (m.mv.0, m.value))
                .collect();
            v.sort_unstable();
            v
        };
        let variants: &[(bool, usize)] = if done % 4 == 0 {
            &[(false, 16), (true, 16), (false, 1)]
        } else {
            &[(false, 16)]
        };
        for &(parallel, hash) in variants {
            let tt = AtomicTable::new(hash);
            let s =
                Searcher::<G, _>::new(Some(&cap), &tt, opts(LoopRule::Start, parallel)).unwrap();
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(if parallel { 2 } else { 1 })
                .build()
                .unwrap();
            let a = pool.install(|| s.analyse(&pos));
            assert_eq!(
                a.value.lower,
                want,
                "{:?} {:?} parallel {parallel} hash {hash}",
                G::ID,
                pos
            );
            assert!(a.value.exact());
            let mut got: Vec<(u8, i32)> = a.moves.iter().map(|m| (m.mv.0, m.value.lower)).collect();
            got.sort_unstable();
            assert_eq!(got, want_moves, "{pos:?}");
            let b = full.bounds::<G>(&pos).unwrap();
            assert_eq!(a.loop_sensitive(), Some(b.loop_sensitive()), "{pos:?}");
            assert_pv_is_best_play::<G>(&full, &pos, &a.pv);
        }
        done += 1;
    }
}

/// Each move of `pv` is worth, by the tables, what its position is worth
/// in the line's stretch: the line is one of best play.
fn assert_pv_is_best_play<G: Game>(full: &TableSet, root: &Position, pv: &[Move]) {
    let mut pos = *root;
    let mut w = full.rule.w::<G>(&pos);
    let mut v = full.bounds::<G>(&pos).unwrap().value(w);
    for (i, &mv) in pv.iter().enumerate() {
        let p = G::play_unchecked(&pos, mv);
        let (got, next_w, next_v) = if p.captured > 0 {
            let child = full.value::<G>(&p.pos).unwrap();
            let cw = full.rule.w::<G>(&p.pos);
            (capture_value(p.captured, child), cw, child)
        } else {
            (quiet_value(w, full.bounds::<G>(&p.pos).unwrap()), -w, -v)
        };
        assert_eq!(got, v, "{root:?}: move {i} of {pv:?} is not a best move");
        (pos, w, v) = (p.pos, next_w, next_v);
    }
}

#[test]
fn adjito_random_positions_levels_7_to_16() {
    random_positions_agree::<Adjito>(17, 600, 7, 16);
}

#[test]
fn adjiboto_random_positions_levels_7_to_16() {
    random_positions_agree::<AdjiBoto>(29, 600, 7, 16);
}

/// The analysis of an Adjito state given in notation, without tables, on one thread.
fn analyse_adjito(state: &str) -> adji::search::Analysis {
    let tt = AtomicTable::new(4);
    let s = Searcher::<Adjito, _>::new(None, &tt, opts(LoopRule::Start, false)).unwrap();
    let st =
        adji::notation::parse_state::<Adjito>(state, adji::notation::Stores::Required).unwrap();
    s.analyse(&st.pos)
}

#[test]
fn solve_on_finished_game_reports_the_split() {
    let a = analyse_adjito("1,0,0,0,0,0/0,0,0,0,0,0 B 24-23");
    assert_eq!((a.value.lower, a.value.upper), (-1, -1));
    assert!(a.moves.is_empty());
    assert_eq!(a.pv_end, adji::search::PvEnd::GameOver);
}

#[test]
fn node_limit_gives_honest_bounds() {
    let tt = AtomicTable::new(4);
    let mut o = opts(LoopRule::Start, false);
    o.limits.nodes = Some(2000);
    let s = Searcher::<Adjito, _>::new(None, &tt, o).unwrap();
    let a = s.analyse(&Adjito::start());
    // Start is far from solved in 2000 nodes: the answer must be a range.
    assert!(!a.value.exact());
    assert!(a.value.lower >= -48 && a.value.upper <= 48 && a.value.lower <= a.value.upper);
}

/// A path reaching `Options::max_ply` stops the search as a limit does:
/// the bounds proved so far (containing the exact value), and the solve
/// report says so, `"ply_cap": true` in JSON and a sentence naming the cap
/// in text. Without the cap reached, neither appears. (The cap is 250,000
/// plies by default, too deep to reach in a test: the option lowers it.)
#[test]
fn a_path_at_the_ply_cap_stops_the_search_and_the_report_says_so() {
    use adji::report::SolveReport;
    let st = adji::notation::parse_state::<Adjito>(
        "2,0,1,3,0,1/1,2,0,1,0,1 A 20-16",
        adji::notation::Stores::Required,
    )
    .unwrap();
    let tt = AtomicTable::new(4);
    let exact = Searcher::<Adjito, _>::new(None, &tt, opts(LoopRule::Start, false))
        .unwrap()
        .analyse(&st.pos);
    assert!(exact.value.exact() && !exact.stats.ply_cap);
    let r = SolveReport::new::<Adjito>(&st, &exact);
    assert!(!serde_json::to_string(&r).unwrap().contains("ply_cap"));
    assert!(!r.to_string().contains("plies"), "{r}");
    for cap in [1, 6] {
        let tt = AtomicTable::new(4);
        let o = Options {
            max_ply: cap,
            ..opts(LoopRule::Start, false)
        };
        let a = Searcher::<Adjito, _>::new(None, &tt, o)
            .unwrap()
            .analyse(&st.pos);
        assert!(a.stats.ply_cap, "cap {cap}");
        assert!(!a.value.exact(), "cap {cap}");
        let v = exact.value.lower;
        assert!(a.value.lower <= v && v <= a.value.upper, "cap {cap}");
        let r = SolveReport::new::<Adjito>(&st, &a);
        let json: serde_json::Value = serde_json::to_value(&r).unwrap();
        assert_eq!(json["ply_cap"], true, "{json}");
        assert_eq!(json["exact"], false, "{json}");
        let text = r.to_string();
        let said = format!("a line reached {cap} plies, the longest path the search follows");
        assert!(text.contains(&said), "{text}");
    }
}

/// Depth-limited analysis gives bounds that always contain the exact value
/// (of the position and of every move), and exact values where the horizon
/// is never reached.
fn depth_bounds_contain_exact<G: Game>(seed: u64) {
    let dir = tempfile::tempdir().unwrap();
    let full = tables::<G>(dir.path(), LoopRule::Start, 10);
    let tt = AtomicTable::new(4);
    let s = Searcher::<G, _>::new(None, &tt, opts(LoopRule::Start, false)).unwrap();
    let mut rng = seed;
    let (mut exact, mut total) = (0, 0);
    for _ in 0..150 {
        let n = 3 + (common::lcg(&mut rng) % 8) as u32;
        let idx = common::lcg(&mut rng) % level_size(n as usize, G::PITS);
        let pos = Position {
            pits: unrank(idx, n as usize, G::PITS),
            side: 0,
            opening: 0,
        };
        let want = full.value::<G>(&pos).unwrap();
        let moves = move_values::<G>(&full, &pos).unwrap();
        for d in [1, 3, 6] {
            let a = s.analyse_depth(&pos, d);
            assert!(
                a.value.lower <= want && want <= a.value.upper,
                "{pos:?} depth {d}: {:?} vs {want}",
                a.value
            );
            for m in &a.moves {
                let t = moves.iter().find(|x| x.mv == m.mv).unwrap().value;
                assert!(
                    m.value.lower <= t && t <= m.value.upper,
                    "{pos:?} depth {d} move {:?}",
                    m.mv
                );
            }
            total += 1;
            exact += a.value.exact() as usize;
        }
    }
    assert!(exact > 0 && exact < total, "{exact} of {total} exact");
}

#[test]
fn adjito_depth_limited_bounds_contain_the_exact_value() {
    depth_bounds_contain_exact::<Adjito>(41);
}

#[test]
fn adjiboto_depth_limited_bounds_contain_the_exact_value() {
    depth_bounds_contain_exact::<AdjiBoto>(43);
}

/// A node limit is honoured closely, whatever the thread count. It used to
/// be counted in steps of 1024 nodes per thread and per exact solve, so
/// `--threads 100 --nodes 1000` searched about a million nodes.
#[test]
fn node_limit_is_honoured_closely() {
    const LIMIT: u64 = 1000;
    for threads in [1usize, 2, 100] {
        let tt = AtomicTable::new(4);
        let mut o = opts(LoopRule::Start, threads > 1);
        o.limits.nodes = Some(LIMIT);
        let s = Searcher::<Adjito, _>::new(None, &tt, o).unwrap();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let a = pool.install(|| s.analyse(&Adjito::start()));
        assert!(!a.value.exact());
        // Each thread may finish the node it is in when another one
        // reaches the limit; beyond that, an eighth of the limit of slack.
        let most = LIMIT + LIMIT / 8 + threads as u64;
        assert!(
            a.stats.nodes <= most,
            "{threads} threads: {} nodes for a limit of {LIMIT}",
            a.stats.nodes
        );
    }
}

/// The bench's node count is the search's fingerprint: any change to move
/// generation, ordering or the table policy changes it. Recorded in
/// `tests/data/bench.txt` (the command line's `adji bench` is checked
/// against the same file).
#[test]
fn bench_fingerprint_matches_the_recorded_one() {
    let expected: u64 = include_str!("data/bench.txt").trim().parse().unwrap();
    let r = adji::bench::run(16);
    assert_eq!(
        r.nodes, expected,
        "search changed: update tests/data/bench.txt if intended"
    );
    assert_eq!(
        adji::bench::run(16).nodes,
        r.nodes,
        "the count must be deterministic"
    );
}

/// The search runs on stacks of its own, so a caller's small stack cannot
/// overflow however deep the search's paths go. It used to recurse on the
/// caller's thread: this solve overflowed a 64 KiB stack.
#[test]
fn search_does_not_need_the_callers_stack() {
    let solve = || analyse_adjito("2,0,3,1,2,0/1,3,0,2,1,3 A 10-20").value;
    let small = std::thread::Builder::new()
        .stack_size(64 << 10)
        .spawn(solve)
        .unwrap();
    let v = small.join().unwrap();
    assert!(v.exact());
    assert_eq!(v, solve());
}

/// The analysis of `pos` under rule set `G` and loop rule `rule` on table `tt`.
fn analyse_on<G: Game>(tt: &AtomicTable, rule: LoopRule, pos: &Position) -> Vec<(u8, i32, i32)> {
    let s = Searcher::<G, _>::new(None, tt, opts(rule, false)).unwrap();
    let a = s.analyse(pos);
    assert!(a.value.exact(), "{:?} {rule:?} {pos:?}", G::RULES);
    let mut v: Vec<(u8, i32, i32)> = a
        .moves
        .iter()
        .map(|m| (m.mv.0, m.value.lower, m.value.upper))
        .collect();
    v.sort_unstable();
    v.push((0xFF, a.value.lower, a.value.upper));
    v
}

/// One transposition table shared by searches under every game, rule set
/// and loop rule, in a random order, gives each search the values of a
/// search on a fresh table (issue 37, item 9: the table was keyed by the
/// board only, so a `slam-forbidden` solve, or one of the other game or
/// loop rule, left entries that the next search read as its own). Each
/// board is read as a position of both games (its pits 10 and 11 empty).
#[test]
fn a_table_shared_across_rules_gives_the_values_of_fresh_tables() {
    use adji::rules::RuleSet;
    let tt = AtomicTable::new(4);
    let mut rng = 37u64;
    let mut differ = 0;
    for _ in 0..24 {
        let n = 8 + (common::lcg(&mut rng) % 6) as usize;
        let idx = common::lcg(&mut rng) % level_size(n, 10);
        let pos = Position {
            pits: unrank(idx, n, 10),
            side: (idx & 1) as u8,
            opening: 0,
        };
        let mut runs: Vec<(RuleSet, LoopRule)> = RuleSet::ALL
            .into_iter()
            .flat_map(|r| [(r, LoopRule::Start), (r, LoopRule::Even)])
            .collect();
        // a random order (Fisher-Yates)
        for i in (1..runs.len()).rev() {
            runs.swap(i, (common::lcg(&mut rng) % (i as u64 + 1)) as usize);
        }
        let mut seen = std::collections::HashSet::new();
        for (r, rule) in runs {
            let shared = adji::with_rules!(r, G => analyse_on::<G>(&tt, rule, &pos));
            let fresh =
                adji::with_rules!(r, G => analyse_on::<G>(&AtomicTable::new(1), rule, &pos));
            assert_eq!(shared, fresh, "{r:?} {rule:?} {pos:?}");
            seen.insert(fresh);
        }
        differ += (seen.len() > 1) as usize;
    }
    // the rules give the same boards other values: the test can tell
    assert!(differ > 12, "only {differ} boards differ between rules");
}

/// The case of the report: after a `slam-forbidden` solve, the same table
/// gave the default reading's position the other value, marked exact.
#[test]
fn a_slam_forbidden_solve_leaves_nothing_for_the_default_reading() {
    use adji::adjito::AdjitoSlamForbidden;
    let st = adji::notation::parse_state::<Adjito>(
        "0,0,0,1,0,1/0,0,1,0,1,2 B 20-22",
        adji::notation::Stores::Required,
    )
    .unwrap();
    let tt = AtomicTable::new(4);
    let slam = analyse_on::<AdjitoSlamForbidden>(&tt, LoopRule::Start, &st.pos);
    let shared = analyse_on::<Adjito>(&tt, LoopRule::Start, &st.pos);
    let fresh = analyse_on::<Adjito>(&AtomicTable::new(1), LoopRule::Start, &st.pos);
    assert_ne!(slam, fresh, "the two readings differ here");
    assert_eq!(shared, fresh);
}

/// Profiled and plain analyses of `pos` with tables 0..=10: the profile's
/// rows add up to the search's own counters, the value phase is a part of
/// the whole, and profiling changes no node count and no value.
fn profile_counts_every_node<G: Game>(rule: LoopRule, pos: &Position) {
    let dir = tempfile::tempdir().unwrap();
    let set = tables::<G>(dir.path(), rule, 10);
    let run = |profile: bool| {
        let tt = AtomicTable::new(4);
        let o = Options {
            profile,
            ..opts(rule, false)
        };
        Searcher::<G, _>::new(Some(&set), &tt, o)
            .unwrap()
            .analyse(pos)
    };
    let (plain, profiled) = (run(false), run(true));
    assert!(plain.profile.is_none());
    let p = profiled.profile.expect("asked for");
    let t = p.total();
    assert_eq!(plain.stats.nodes, profiled.stats.nodes);
    assert_eq!(t.nodes, profiled.stats.nodes);
    assert_eq!(t.tt_probes, profiled.stats.tt_probes);
    assert_eq!(t.tt_hits, profiled.stats.tt_hits);
    assert!(
        t.nodes > 100,
        "{:?} {rule:?}: too small a search to test: {}",
        G::ID,
        t.nodes
    );
    assert!(p.value_nodes > 0 && p.value_nodes <= t.nodes);
    assert!(t.cuts >= t.first_cuts && t.expanded >= t.cuts && t.table_hits <= t.table_probes);
    assert_eq!(
        (plain.value, plain.lo, plain.hi),
        (profiled.value, profiled.lo, profiled.hi)
    );
}

#[test]
fn the_profile_counts_every_node_and_changes_nothing() {
    // Both games, both loop rules, a position above the tables (0..=10).
    let st = "0,3,1,2,0,2/2,0,1,1,2,0 B 18-16";
    let adjito = adji::notation::parse_state::<Adjito>(st, adji::notation::Stores::Required)
        .unwrap()
        .pos;
    let adjiboto = Position {
        pits: unrank(level_size(20, AdjiBoto::PITS) / 3, 20, AdjiBoto::PITS),
        side: 0,
        opening: 0,
    };
    for rule in [LoopRule::Start, LoopRule::Even] {
        profile_counts_every_node::<Adjito>(rule, &adjito);
        profile_counts_every_node::<AdjiBoto>(rule, &adjiboto);
    }
}
