//! The estimate engine and the learned evaluation: proven bounds contain
//! the exact values, an estimate is never reported as a value, training is
//! deterministic, the shipped weights load, and the command line takes an
//! exclusion list and an evaluation per match engine.

use adji::engine::{Engine, EngineOptions};
use adji::eval::train::{exclusion_keys, train, Sampling, TrainConfig, TrainError};
use adji::eval::Model;
use adji::game::{mix64, Game, Position};
use adji::index::{level_size, unrank};
use adji::progress::NoProgress;
use adji::search::Limits;
use adji::tables::retrograde::build_tables;
use adji::tables::{move_values, TableSet};
use adji::value::LoopRule;
use adji::{AdjiBoto, Adjito};

fn tables<G: Game>(dir: &std::path::Path, rule: LoopRule, max: u32) -> TableSet {
    build_tables::<G>(dir, rule, max, &NoProgress, |_| {}).unwrap()
}

/// Tables `0..=cap` opened from a directory that holds more levels.
fn capped<G: Game>(dir: &std::path::Path, rule: LoopRule, cap: u32) -> TableSet {
    TableSet::open::<G>(dir, rule, cap).unwrap()
}

/// On random positions of levels 8..=12, searched with tables capped at 5
/// and small limits, every proven bound (root and moves) contains the exact
/// value from the full tables; a proven-exact answer equals it.
fn proven_bounds_hold<G: Game>(rule: LoopRule) {
    let dir = tempfile::tempdir().unwrap();
    let full = tables::<G>(dir.path(), rule, 12);
    let low = capped::<G>(dir.path(), rule, 5);
    let model = Model::default_for::<G>();
    let mut checked = 0;
    for i in 0..60u64 {
        let n = 8 + (i % 5) as u32;
        let size = level_size(n as usize, G::PITS);
        let pos = Position {
            pits: unrank(mix64(i ^ 0xABCD) % size, n as usize, G::PITS),
            side: (i % 2) as u8,
            opening: 0,
        };
        if G::legal_moves(&pos).is_empty() {
            continue;
        }
        let opts = EngineOptions {
            rule,
            limits: Limits {
                nodes: Some(2_000 + 500 * i),
                time: None,
            },
            max_depth: 1 + (i % 9) as u32,
        };
        let tables = if i % 3 == 0 { None } else { Some(&low) };
        let est = Engine::<G>::new(tables, &model, opts).analyse(&pos);
        let want = full.value::<G>(&pos).unwrap();
        let p = est.proven;
        assert!(
            p.lower <= want && want <= p.upper,
            "{pos:?}: {want} not in {p:?}"
        );
        if let Some(v) = est.exact() {
            assert_eq!(v, want);
        }
        let exact_moves = move_values::<G>(&full, &pos).unwrap();
        for m in &est.moves {
            let v = exact_moves.iter().find(|x| x.mv == m.mv).unwrap().value;
            assert!(
                m.proven.lower <= v && v <= m.proven.upper,
                "{pos:?} move {:?}: {v} not in {:?}",
                m.mv,
                m.proven
            );
        }
        checked += 1;
    }
    assert!(checked > 40);
}

#[test]
fn proven_bounds_contain_exact_values_adjito() {
    proven_bounds_hold::<Adjito>(LoopRule::Start);
    proven_bounds_hold::<Adjito>(LoopRule::Even);
}

#[test]
fn proven_bounds_contain_exact_values_adjiboto() {
    proven_bounds_hold::<AdjiBoto>(LoopRule::Start);
}

/// With the tables covering the position, the engine proves it exact.
#[test]
fn covered_positions_are_proven_exact() {
    let dir = tempfile::tempdir().unwrap();
    let set = tables::<Adjito>(dir.path(), LoopRule::Start, 8);
    let model = Model::default_for::<Adjito>();
    let pos = Position {
        pits: unrank(12345, 8, 12),
        side: 0,
        opening: 0,
    };
    let est = Engine::<Adjito>::new(Some(&set), &model, EngineOptions::default()).analyse(&pos);
    assert_eq!(est.exact(), set.value::<Adjito>(&pos));
}

/// Training on levels `4..=max_level`.
fn from_level_4(max_level: u32, per_level: u64, seed: u64) -> TrainConfig {
    TrainConfig {
        min_level: 4,
        max_level,
        per_level,
        seed,
        ..TrainConfig::default()
    }
}

#[test]
fn training_is_deterministic_and_beats_the_split() {
    let dir = tempfile::tempdir().unwrap();
    let set = tables::<Adjito>(dir.path(), LoopRule::Start, 10);
    let cfg = from_level_4(10, 20_000, 7);
    let a = train::<Adjito>(&set, &cfg).unwrap();
    let b = train::<Adjito>(&set, &cfg).unwrap();
    assert_eq!(a, b);
    let c = train::<Adjito>(&set, &TrainConfig { seed: 8, ..cfg }).unwrap();
    assert_ne!(a.weights, c.weights);
    assert!(a.trained.validation_mae < a.trained.baseline_mae);
    // The model round-trips through its file format.
    let text = serde_json::to_string(&a).unwrap();
    assert_eq!(Model::from_json::<Adjito>(&text).unwrap(), a);
    assert!(Model::from_json::<AdjiBoto>(&text).is_err());
}

/// Playout sampling: deterministic for a seed, recorded in the model, and
/// it draws other positions than the uniform draw (Adji-Boto, whose
/// playouts leave the opening at 100 seeds and come down to levels 8..=12).
#[test]
fn playout_training_is_deterministic_and_differs_from_uniform() {
    let dir = tempfile::tempdir().unwrap();
    let set = tables::<AdjiBoto>(dir.path(), LoopRule::Start, 12);
    let cfg = TrainConfig {
        min_level: 8,
        max_level: 12,
        per_level: 2_000,
        seed: 5,
        sampling: Sampling::Playouts,
        ..TrainConfig::default()
    };
    let a = train::<AdjiBoto>(&set, &cfg).unwrap();
    assert_eq!(a, train::<AdjiBoto>(&set, &cfg).unwrap());
    assert_eq!(a.trained.sampling, Sampling::Playouts);
    assert!(a.trained.train_positions + a.trained.validation_positions > 9_000);
    let u = train::<AdjiBoto>(
        &set,
        &TrainConfig {
            sampling: Sampling::Uniform,
            ..cfg
        },
    )
    .unwrap();
    assert_eq!(u.trained.sampling, Sampling::Uniform);
    assert_ne!(a.weights, u.weights);
    // A model file from before `sampling` existed reads as uniform.
    let mut v = serde_json::to_value(&a).unwrap();
    v["trained"].as_object_mut().unwrap().remove("sampling");
    let old = Model::from_json::<AdjiBoto>(&v.to_string()).unwrap();
    assert_eq!(old.trained.sampling, Sampling::Uniform);
}

/// Positions on the exclusion list are neither fitted nor held out, however
/// they are written (mover, stores, a tab and more), and the draw stays
/// deterministic; the held-out errors per band add up to the whole.
#[test]
fn training_leaves_out_the_exclusion_list() {
    let dir = tempfile::tempdir().unwrap();
    let set = tables::<Adjito>(dir.path(), LoopRule::Start, 6);
    // More draws than positions per level: every position of 4..=6 is drawn.
    let cfg = from_level_4(6, 10_000, 3);
    let all = train::<Adjito>(&set, &cfg).unwrap();
    assert_eq!(all.trained.excluded, 0);
    // Two listed positions (the second twice: once from each mover's side);
    // the third has no legal move for B, so it is never drawn.
    let list = "# quality positions\n\
                1,0,2,0,0,0/0,1,0,0,0,0 B 20-24\t3\t3B\n\
                \n\
                0,0,0,1,0,1/2,0,0,1,0,0 B\n\
                2,0,0,1,0,0/0,0,0,1,0,1 A\n\
                1,1,1,1,0,0/0,0,0,0,0,0 B\n";
    let cfg = TrainConfig {
        exclude: exclusion_keys::<Adjito>(list).unwrap(),
        ..cfg
    };
    let some = train::<Adjito>(&set, &cfg).unwrap();
    assert_eq!(some.trained.excluded, 2);
    let total = |m: &Model| m.trained.train_positions + m.trained.validation_positions;
    assert_eq!(total(&some) + 2, total(&all));
    assert_eq!(train::<Adjito>(&set, &cfg).unwrap(), some);
    let bands = &some.trained.bands;
    assert_eq!(bands.first().map(|b| b.levels.0), Some(4));
    assert_eq!(bands.last().map(|b| b.levels.1), Some(6));
    let held: u64 = bands.iter().map(|b| b.positions).sum();
    assert_eq!(held, some.trained.validation_positions);
}

#[test]
fn a_bad_exclusion_line_is_named() {
    let err = exclusion_keys::<AdjiBoto>("# ok\n1,2,3,4,5/0,0,0,0,0 0 main\n1,2,x\n").unwrap_err();
    assert!(matches!(err, TrainError::Exclude { line: 3, .. }), "{err}");
}

#[test]
fn training_refuses_uncovered_levels() {
    let dir = tempfile::tempdir().unwrap();
    let set = tables::<Adjito>(dir.path(), LoopRule::Start, 4);
    let cfg = TrainConfig {
        max_level: 6,
        ..TrainConfig::default()
    };
    assert!(train::<Adjito>(&set, &cfg).is_err());
}

#[test]
fn shipped_weights_load_and_beat_the_split() {
    for m in [
        Model::default_for::<Adjito>(),
        Model::default_for::<AdjiBoto>(),
    ] {
        assert!(m.trained.validation_mae < m.trained.baseline_mae, "{m:?}");
    }
}

#[test]
fn baseline_model_is_the_split() {
    let m = Model::baseline::<AdjiBoto>();
    let pos = Position {
        pits: [3, 0, 1, 0, 2, 5, 1, 1, 0, 0, 0, 0],
        side: 1,
        opening: 0,
    };
    assert_eq!(m.estimate::<AdjiBoto>(&pos), AdjiBoto::split(&pos) as f64);
}

/// The quality data set (exact values beyond the small tables, made as
/// results/analysis.md says): proven bounds from a short estimate search
/// without tables contain every stored value, and every stored optimal move
/// is legal.
fn quality_data_bounds<G: Game>(file: &str) {
    let text = std::fs::read_to_string(file).unwrap();
    let model = Model::default_for::<G>();
    let mut n = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split('\t').collect();
        let st = adji::notation::parse_state::<G>(f[0], adji::notation::Stores::Required).unwrap();
        let value: i32 = f[1].parse().unwrap();
        for m in f[2].split(',') {
            adji::notation::parse_move::<G>(&st.pos, m).unwrap();
        }
        let opts = EngineOptions {
            limits: Limits {
                nodes: Some(20_000),
                time: None,
            },
            ..EngineOptions::default()
        };
        let p = Engine::<G>::new(None, &model, opts).analyse(&st.pos).proven;
        assert!(p.lower <= value && value <= p.upper, "{line}: {p:?}");
        n += 1;
    }
    assert!(n >= 15, "{file}: only {n} positions");
}

#[test]
fn quality_data_values_lie_in_proven_bounds() {
    quality_data_bounds::<Adjito>("tests/data/quality-adjito.tsv");
    quality_data_bounds::<AdjiBoto>("tests/data/quality-adjiboto.tsv");
    quality_data_bounds::<AdjiBoto>("tests/data/quality-adjiboto-2.tsv");
    quality_data_bounds::<AdjiBoto>("tests/data/quality-adjiboto-3.tsv");
    quality_data_bounds::<AdjiBoto>("tests/data/quality-adjiboto-4.tsv");
}

fn adji() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("adji").unwrap()
}

/// `eval train --exclude FILE`: a bad line is named with its file and line
/// number, a missing file is named, and a good list is left out (counted in
/// the model file).
#[test]
fn eval_train_takes_an_exclusion_list() {
    let dir = tempfile::tempdir().unwrap();
    tables::<Adjito>(dir.path(), LoopRule::Start, 6);
    let (good, bad) = (dir.path().join("good.tsv"), dir.path().join("bad.tsv"));
    let line = "1,0,2,0,0,0/0,1,0,0,0,0 B 20-24\t3\t3B\n";
    std::fs::write(&good, line).unwrap();
    std::fs::write(&bad, format!("{line}not a position\n")).unwrap();
    let out = dir.path().join("model.json");
    let train = |list: &std::path::Path| {
        adji()
            .args(["eval", "train", "--game", "adjito", "--min-level", "4"])
            .args(["--per-level", "10000", "--dir"])
            .arg(dir.path())
            .arg("--exclude")
            .arg(list)
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap()
    };
    let o = train(&bad);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("bad.tsv") && err.contains("line 2"),
        "{err}"
    );
    let o = train(&dir.path().join("missing.tsv"));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("missing.tsv"), "{err}");
    assert!(train(&good).status.success());
    let model = Model::from_json::<Adjito>(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(model.trained.excluded, 1);
}

/// `match --a-eval/--b-eval`: each engine gets its own evaluation; a model
/// file that is not there is named, with its option.
#[test]
fn match_takes_an_evaluation_per_engine() {
    let args = [
        "match",
        "--game",
        "adjito",
        "--no-tables",
        "--openings",
        "1",
    ];
    let budgets = ["--a-nodes", "300", "--b-nodes", "300", "--json"];
    adji()
        .args(args)
        .args(budgets)
        .args(["--a-eval", "baseline"])
        .assert()
        .success();
    let o = adji()
        .args(args)
        .args(budgets)
        .args(["--b-eval", "no-such-model.json"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("--b-eval no-such-model.json"),
        "{err}"
    );
}
