//! The oracle answers as the generic calls it stands for, and refuses
//! what a front end could otherwise mix up.

use std::sync::Arc;

use super::*;
use crate::game::GameId;
use crate::notation::{parse_state, Stores};
use crate::progress::NoProgress;
use crate::tables::retrograde::build_tables;
use crate::tt::AtomicTable;
use crate::{AdjiBoto, Adjito};

/// Small tables of `G` in a fresh directory.
fn tables<G: Game>(rule: LoopRule, max: u32) -> (tempfile::TempDir, TableSet) {
    let d = tempfile::tempdir().unwrap();
    let set = build_tables::<G>(d.path(), rule, max, &NoProgress, |_| {}).unwrap();
    (d, set)
}

/// Positions of every rule set: the start, and the last few positions of
/// a game played by always taking the last legal move, down to at most
/// 12 seeds on the board (small enough to solve exactly at once).
fn positions(rules: RuleSet) -> Vec<Posed> {
    fn go<G: Game>() -> Vec<Posed> {
        let posed = |pos| {
            Posed::of::<G>(State {
                pos,
                stores: [0, 0],
            })
        };
        let mut line = vec![G::start()];
        let mut pos = G::start();
        while pos.level() > 12 && line.len() < 2000 {
            let Some(mv) = G::legal_moves(&pos).iter().last() else {
                break;
            };
            pos = G::try_play(&pos, mv).unwrap().pos;
            line.push(pos);
        }
        let tail = line.len().saturating_sub(4).max(1);
        let mut out = vec![posed(line[0])];
        out.extend(line[tail..].iter().map(|&p| posed(p)));
        out
    }
    crate::with_rules!(rules, go())
}

#[test]
fn parse_keeps_the_rule_set_and_refuses_another_games_board() {
    for r in RuleSet::ALL {
        let p = Posed::parse(r, "start", Stores::Required).unwrap();
        assert_eq!(p.rules(), r);
        fn start<G: Game>() -> State {
            parse_state::<G>("start", Stores::Required).unwrap()
        }
        assert_eq!(p.state(), &crate::with_rules!(r, start()));
    }
    // An Adjito board (12 pits) is not an Adji-Boto position.
    let adjito_board = "4,4,4,4,4,4/4,4,4,4,4,4 A 0-0";
    assert!(Posed::parse(RuleSet::AdjitoDefault, adjito_board, Stores::Required).is_ok());
    assert!(Posed::parse(RuleSet::AdjiBotoDefault, adjito_board, Stores::Required).is_err());
    // A state is accepted under its own rules only.
    let st = Posed::parse(RuleSet::AdjitoDefault, adjito_board, Stores::Required).unwrap();
    let st = *st.state();
    assert_eq!(
        Posed::new(RuleSet::AdjitoMustReach, st).unwrap().rules(),
        RuleSet::AdjitoMustReach
    );
    assert!(Posed::new(RuleSet::AdjiBotoDefault, st).is_err());
    let mut odd = st;
    odd.pos.side = 7;
    assert!(Posed::new(RuleSet::AdjitoDefault, odd).is_err());
}

#[test]
fn add_refuses_tables_of_another_loop_rule() {
    let (_d, set) = tables::<Adjito>(LoopRule::Even, 3);
    let mut o = Oracle::new(LoopRule::Start);
    let e = o.add(Arc::new(set)).unwrap_err();
    assert!(matches!(e, SearchError::TablesRule { .. }), "{e}");
    assert!(o.tables(RuleSet::AdjitoDefault).is_none());
}

#[test]
fn a_set_given_alone_refuses_another_game_with_the_searchs_words() {
    let (_d, set) = tables::<AdjiBoto>(LoopRule::Start, 3);
    let want = check_tables::<Adjito>(Some(&set), LoopRule::Start).unwrap_err();
    let o = Oracle::with_set(LoopRule::Start, Arc::new(set)).unwrap();
    let tt = AtomicTable::new(1);
    let p = &positions(RuleSet::AdjitoDefault)[0];
    let e = o.solve(p, &tt, SolveOptions::default(), None).unwrap_err();
    assert_eq!(e.to_string(), want.to_string());
    let e = o.estimate(p, Eval::Shipped, Limits::default(), 2, None);
    assert_eq!(e.unwrap_err().to_string(), want.to_string());
    // Valdez's reading reads the default's tables: accepted.
    let v = positions(RuleSet::AdjiBotoValdez).pop().unwrap();
    assert!(o.tables(RuleSet::AdjiBotoValdez).is_some());
    assert!(o.solve(&v, &tt, SolveOptions::default(), None).is_ok());
    // Tables of no family at all: every position searched without them.
    assert!(Oracle::new(LoopRule::Start)
        .solve(
            p,
            &tt,
            SolveOptions {
                limits: Limits {
                    nodes: Some(1000),
                    time: None
                },
                parallel: false,
                ..Default::default()
            },
            None
        )
        .is_ok());
}

use crate::search::check_tables;

/// The oracle's solve is the generic searcher's, report for report and
/// node for node, for every rule set, with and without tables.
#[test]
fn solve_is_the_searchers_under_every_rule_set() {
    let (_a, ta) = tables::<Adjito>(LoopRule::Start, 8);
    let (_b, tb) = tables::<AdjiBoto>(LoopRule::Start, 8);
    let mut with = Oracle::new(LoopRule::Start);
    with.add(Arc::new(ta)).unwrap();
    with.add(Arc::new(tb)).unwrap();
    let without = Oracle::new(LoopRule::Start);
    // Exact solves of the small positions, and a budget on the start.
    let budget = Limits {
        nodes: Some(20_000),
        time: None,
    };
    for r in RuleSet::ALL {
        for (i, p) in positions(r).into_iter().enumerate() {
            let limits = if i == 0 { budget } else { Limits::default() };
            let opts = SolveOptions {
                limits,
                parallel: false,
                ..Default::default()
            };
            for o in [&with, &without] {
                let tt = AtomicTable::new(1);
                let got = o.solve(&p, &tt, opts, None).unwrap();
                fn direct<G: Game>(o: &Oracle, p: &Posed, limits: Limits) -> SolveReport {
                    let tt = AtomicTable::new(1);
                    let opts = Options {
                        rule: LoopRule::Start,
                        limits,
                        parallel: false,
                        ..Options::default()
                    };
                    let s = Searcher::<G, _>::new(o.tables(G::RULES), &tt, opts).unwrap();
                    SolveReport::new::<G>(p.state(), &s.analyse(&p.state().pos))
                }
                let want = crate::with_rules!(r, direct(o, &p, limits));
                let (g, w) = (json(&got.report), json(&want));
                if i == 0 {
                    // A budget stops at a flush, which may differ by one.
                    assert_eq!(
                        g["moves"].as_array().unwrap().len(),
                        w["moves"].as_array().unwrap().len()
                    );
                    continue;
                }
                assert!(got.report.exact, "{r:?} {p:?}");
                assert_eq!(strip_time(g), strip_time(w), "{r:?} {p:?}");
                assert_eq!(got.loop_flags.len(), want.moves.len());
            }
        }
    }
}

fn json<T: serde::Serialize>(t: &T) -> serde_json::Value {
    serde_json::to_value(t).unwrap()
}

/// A report without its timings (the only fields two runs may differ in).
fn strip_time(mut v: serde_json::Value) -> serde_json::Value {
    fn go(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(m) => {
                m.retain(|k, _| !k.contains("time") && k != "nps" && !k.contains("hit_rate"));
                m.values_mut().for_each(go);
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(go),
            _ => {}
        }
    }
    go(&mut v);
    v
}

#[test]
fn open_finds_each_family_and_reads_the_right_one() {
    let d = tempfile::tempdir().unwrap();
    build_tables::<Adjito>(d.path(), LoopRule::Start, 6, &NoProgress, |_| {}).unwrap();
    build_tables::<AdjiBoto>(d.path(), LoopRule::Start, 5, &NoProgress, |_| {}).unwrap();
    let o = Oracle::open(d.path(), LoopRule::Start, OpenCheck::Full).unwrap();
    assert_eq!(o.tables(RuleSet::AdjitoDefault).unwrap().covered(), 7);
    // Each reading with tables of its own finds none of another's.
    assert!(o.tables(RuleSet::AdjitoSlamForbidden).is_none());
    assert_eq!(
        o.tables(RuleSet::AdjiBotoValdez).unwrap().game,
        GameId::AdjiBoto
    );
    assert_eq!(o.tables(RuleSet::AdjiBotoDefault).unwrap().covered(), 6);
    // Nothing under the other loop rule.
    let even = Oracle::open(d.path(), LoopRule::Even, OpenCheck::Full).unwrap();
    assert!(even.tables(RuleSet::AdjitoDefault).is_none());
    let p = Posed::parse(
        RuleSet::AdjitoDefault,
        "1,0,0,0,0,0/0,0,2,0,0,0 A 20-25",
        Stores::Required,
    )
    .unwrap();
    let e = even.probe(&p).unwrap_err();
    assert!(
        e.to_string().contains("no adjito tables for --loop even"),
        "{e}"
    );
    // The probe is the table's.
    let r = o.probe(&p).unwrap();
    let want =
        ProbeReport::new::<Adjito>(o.tables(RuleSet::AdjitoDefault).unwrap(), &p.state().pos)
            .unwrap();
    assert_eq!(json(&r), json(&want));
    // A level the tables do not hold is the report's error.
    let big = &positions(RuleSet::AdjitoDefault)[0];
    assert!(matches!(o.probe(big), Err(OracleError::Probe(_))));
}

#[test]
fn a_raised_watch_stops_the_solve_with_bounds_and_counts_its_nodes() {
    let o = Oracle::new(LoopRule::Start);
    let p = &positions(RuleSet::AdjitoDefault)[0];
    let tt = AtomicTable::new(1);
    let w = Watch::new();
    w.stop();
    let s = o.solve(p, &tt, SolveOptions::default(), Some(&w)).unwrap();
    assert!(
        !s.report.exact,
        "the start cannot be solved in a stopped search"
    );
    assert!(w.nodes() < 100_000, "{}", w.nodes());
    // Unraised, a small budget runs to its end and publishes its count.
    let w = Watch::new();
    let opts = SolveOptions {
        limits: Limits {
            nodes: Some(50_000),
            time: None,
        },
        parallel: false,
        ..Default::default()
    };
    let s = o.solve(p, &tt, opts, Some(&w)).unwrap();
    assert_eq!(w.nodes(), s.report.nodes);
    assert!(w.nodes() >= 50_000);
}

#[test]
fn estimate_is_the_engines_and_names_a_bad_model_file() {
    let o = Oracle::new(LoopRule::Start);
    for r in RuleSet::ALL {
        let p = &positions(r)[2];
        let limits = Limits {
            nodes: Some(5_000),
            time: None,
        };
        let got = o.estimate(p, Eval::Shipped, limits, 4, None).unwrap();
        fn direct<G: Game>(p: &Posed, limits: Limits) -> AnalyseReport {
            let model = Model::default_for::<G>();
            let opts = EngineOptions {
                rule: LoopRule::Start,
                limits,
                max_depth: 4,
            };
            AnalyseReport::new::<G>(
                p.state(),
                &Engine::<G>::new(None, &model, opts).analyse(&p.state().pos),
            )
        }
        let want = crate::with_rules!(r, direct(p, limits));
        assert_eq!(strip_time(json(&got)), strip_time(json(&want)), "{r:?}");
    }
    let missing = Path::new("no-such-model.json");
    let p = &positions(RuleSet::AdjitoDefault)[0];
    let e = o
        .estimate(p, Eval::File(missing), Limits::default(), 2, None)
        .unwrap_err();
    assert!(
        e.to_string().starts_with("eval no-such-model.json: "),
        "{e}"
    );
    // A model of the other game is refused, naming both.
    let boto = Model::default_for::<AdjiBoto>();
    let e = o
        .estimate(p, Eval::Model(&boto), Limits::default(), 2, None)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "the evaluation model is for adjiboto, not adjito"
    );
}

/// Every run-time answer of a `Posed` is the generic call's for its game
/// type, on the positions of every rule set, and a stoppable perft counts
/// as perft does until it is stopped.
#[test]
fn posed_answers_as_the_generic_calls() {
    fn check<G: Game>(p: &Posed) {
        let st = *p.state();
        let json = |v: &dyn erased::Json| v.json();
        assert_eq!(p.notation(), crate::notation::format_state::<G>(&st));
        assert_eq!(p.diagram(), crate::display::diagram::<G>(&st));
        assert_eq!(p.mover(), G::side_name(st.pos.side));
        let moves: Vec<_> = G::legal_moves(&st.pos).iter().collect();
        assert_eq!(p.legal_moves(), moves);
        for &m in &moves {
            let name = p.move_name(m);
            assert_eq!(p.parse_move(&name), Ok(m));
            let (after, captured) = p.play(m).unwrap();
            assert_eq!((*after.state(), captured), st.play::<G>(m));
        }
        assert_eq!(
            json(&p.moves_report()),
            json(&crate::report::MovesReport::new::<G>(&st))
        );
        let perft = crate::report::PerftReport::new::<G>(&st.pos, 3, true);
        assert_eq!(json(&p.perft_report(3, true)), json(&perft));
        let stop = AtomicBool::new(false);
        let stoppable = p.perft_stoppable(7, &stop).unwrap();
        assert_eq!(stoppable.nodes, crate::perft::perft::<G>(&st.pos, 7));
        stop.store(true, SeqCst);
        if stoppable.nodes > 0 && !moves.is_empty() {
            assert!(p.perft_stoppable(7, &stop).is_err());
        }
        assert_eq!(p.final_score(), crate::driver::final_score::<G>(&st));
    }
    for r in RuleSet::ALL {
        for p in positions(r) {
            crate::with_rules!(r, G => check::<G>(&p));
        }
    }
}

/// Reports compared by their JSON.
mod erased {
    /// A report as JSON.
    pub trait Json {
        fn json(&self) -> serde_json::Value;
    }
    impl<T: serde::Serialize> Json for T {
        fn json(&self) -> serde_json::Value {
            serde_json::to_value(self).unwrap()
        }
    }
}
