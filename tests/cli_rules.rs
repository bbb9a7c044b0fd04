//! `--rules NAME` on every command (issue 24): each command takes each rule
//! set of its game and names a non-default one in its report; the rule
//! sets change what they should (legal moves, captures, the early end);
//! an unknown name is one error line; tables and opening checkpoints of one
//! rule set are refused by another, naming both; `adji rules` lists them.

use std::path::Path;
use std::process::Output;
use std::time::Duration;

use assert_cmd::Command;

const RULES: [(&str, &str); 5] = [
    ("adjito", "default"),
    ("adjito", "must-reach"),
    ("adjito", "slam-forbidden"),
    ("adjiboto", "default"),
    ("adjiboto", "valdez"),
];

/// A small position of each game (few seeds, so every command is quick).
fn small(game: &str) -> &'static str {
    match game {
        "adjito" => "0,0,0,1,0,1/0,0,1,0,1,2 B 20-22",
        _ => "0,0,1,0,2/1,0,0,1,1 0 47-47 main",
    }
}

fn run_in(dir: &Path, args: &[&str]) -> Output {
    Command::cargo_bin("adji")
        .unwrap()
        .args(args)
        .current_dir(dir)
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).to_string()
}

/// `args`, which must succeed; its standard output.
fn ok(dir: &Path, args: &[&str]) -> String {
    let o = run_in(dir, args);
    assert!(o.status.success(), "adji {args:?}: {}", text(&o.stderr));
    text(&o.stdout)
}

/// `args --json`, parsed.
fn json(dir: &Path, args: &[&str]) -> serde_json::Value {
    let mut a = args.to_vec();
    a.push("--json");
    let out = ok(dir, &a);
    let line = out.lines().next().unwrap_or_default();
    serde_json::from_str(line).unwrap_or_else(|e| panic!("{args:?}: {e}: {out}"))
}

/// `args`, which must fail with exit 1 and one error line; that line.
fn fails(dir: &Path, args: &[&str]) -> String {
    let o = run_in(dir, args);
    assert_eq!(o.status.code(), Some(1), "adji {args:?}: {o:?}");
    let err = text(&o.stderr);
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(lines.len(), 1, "{err}");
    lines[0].to_string()
}

/// The `rules` key a report must have: absent for a default, the name else.
fn check_rules_key(v: &serde_json::Value, rules: &str, what: &str) {
    if rules == "default" {
        assert!(v.get("rules").is_none(), "{what}: {v}");
    } else {
        assert_eq!(v["rules"], rules, "{what}: {v}");
    }
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// The text header of a non-default rule set.
fn label(game: &str, rules: &str) -> String {
    format!("{game} ({rules})")
}

#[test]
fn adji_rules_json_lists_all_five_with_their_fields() {
    let v = json(Path::new("."), &["rules"]);
    let list = v.as_array().expect("a list");
    let got: Vec<(String, String)> = list
        .iter()
        .map(|r| {
            (
                r["game"].as_str().unwrap().into(),
                r["name"].as_str().unwrap().into(),
            )
        })
        .collect();
    let want: Vec<(String, String)> = RULES
        .iter()
        .map(|(g, r)| (g.to_string(), r.to_string()))
        .collect();
    assert_eq!(got, want);
    for r in list {
        assert!(!r["source"].as_str().unwrap().is_empty());
        assert_eq!(r["default"], r["name"] == "default");
        assert_eq!(
            r["differences"].as_array().unwrap().is_empty(),
            r["name"] == "default"
        );
    }
    assert_eq!(list[4]["tables"], "default");
    assert_eq!(list[4]["early_end"], 50);
    assert_eq!(list[0]["early_end"], 24);
    assert!(list[3]["early_end"].is_null());
    let t = ok(Path::new("."), &["rules"]);
    assert!(
        t.contains("adjiboto --rules valdez") && t.contains("Valdez"),
        "{t}"
    );
}

#[test]
fn position_commands_take_every_rule_set_and_name_it() {
    let d = Path::new(".");
    for (game, rules) in RULES {
        let base = ["--game", game, "--rules", rules];
        let pos = small(game);
        let with = |cmd: &[&str], extra: &[&str]| -> Vec<String> {
            cmd.iter()
                .chain(&base)
                .chain(extra)
                .map(|s| s.to_string())
                .collect()
        };
        let sh = ok(d, &strs(&with(&["show"], &[])));
        assert_eq!(
            sh.starts_with(&label(game, rules)),
            rules != "default",
            "{sh}"
        );
        let m = json(d, &strs(&with(&["moves"], &["--position", pos])));
        check_rules_key(&m, rules, "moves");
        let p = json(d, &strs(&with(&["perft"], &["--depth", "3"])));
        check_rules_key(&p, rules, "perft");
        let r = json(
            d,
            &strs(&with(
                &["replay"],
                &[
                    "--moves",
                    m["moves"][0]["move"].as_str().unwrap(),
                    "--position",
                    pos,
                ],
            )),
        );
        check_rules_key(&r, rules, "replay");
        let s = json(
            d,
            &strs(&with(
                &["solve"],
                &[
                    "--position",
                    pos,
                    "--no-tables",
                    "--threads",
                    "1",
                    "--hash",
                    "1",
                ],
            )),
        );
        check_rules_key(&s, rules, "solve");
        assert!(s["exact"].as_bool().unwrap(), "{s}");
        let a = json(
            d,
            &strs(&with(
                &["analyse"],
                &["--position", pos, "--no-tables", "--nodes", "2000"],
            )),
        );
        check_rules_key(&a, rules, "analyse");
        let t = ok(
            d,
            &strs(&with(
                &["replay"],
                &[
                    "--moves",
                    m["moves"][0]["move"].as_str().unwrap(),
                    "--position",
                    pos,
                ],
            )),
        );
        assert_eq!(
            t.starts_with(&label(game, rules)),
            rules != "default",
            "{t}"
        );
        let mt = json(
            d,
            &strs(&with(
                &["match"],
                &[
                    "--no-tables",
                    "--a-nodes",
                    "200",
                    "--b-nodes",
                    "200",
                    "--openings",
                    "1",
                    "--random-plies",
                    "2",
                ],
            )),
        );
        check_rules_key(&mt, rules, "match");
        assert_eq!(mt["games"].as_array().unwrap().len(), 2);
    }
}

#[test]
fn an_unknown_rule_set_is_one_error_line_naming_the_choices() {
    let d = Path::new(".");
    for (game, choices) in [
        (
            "adjito",
            "expected one of default, must-reach, slam-forbidden",
        ),
        ("adjiboto", "expected one of default, valdez"),
    ] {
        for cmd in [
            vec!["show"],
            vec!["moves"],
            vec!["perft", "--depth", "1"],
            vec!["replay", "--moves", "1B"],
            vec!["solve", "--no-tables"],
            vec!["analyse", "--no-tables"],
            vec!["match", "--no-tables", "--a-nodes", "1", "--b-nodes", "1"],
            vec!["tables", "build", "--max-seeds", "1", "--dir", "never-made"],
            vec![
                "tables",
                "probe",
                "--dir",
                "never-made",
                "--position",
                "start",
            ],
            vec!["tables", "verify", "--dir", "."],
            vec!["tables", "stats", "--dir", "never-made"],
            vec![
                "openings",
                "--plies",
                "1",
                "--depth",
                "1",
                "--out",
                "never-made",
            ],
            vec![
                "eval",
                "train",
                "--dir",
                "never-made",
                "--out",
                "never-made.json",
            ],
        ] {
            let mut a = cmd.clone();
            a.extend(["--game", game, "--rules", "nope"]);
            let e = fails(d, &a);
            assert!(
                e.contains("unknown rule set 'nope'") && e.contains(choices),
                "{cmd:?}: {e}"
            );
        }
    }
    assert!(!Path::new("never-made").exists());
}

/// Moves each rule set makes illegal at a position where it matters.
#[test]
fn each_adjito_reading_changes_the_legal_moves_where_it_applies() {
    let d = Path::new(".");
    let names = |v: serde_json::Value| -> Vec<String> {
        v["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["move"].as_str().unwrap().to_string())
            .collect()
    };
    for (rules, pos, gone) in [
        // 1B (one seed) does not reach A's row while others can.
        ("must-reach", "2,1,7,7,1,0/3,7,7,0,7,1 B 0-5", "1B"),
        // 1A would take all of B's seeds while other moves do not.
        ("slam-forbidden", "4,2,0,2,0,3/0,1,0,0,0,0 A 12-24", "1A"),
    ] {
        let default = names(json(d, &["moves", "--game", "adjito", "--position", pos]));
        let other = names(json(
            d,
            &[
                "moves",
                "--game",
                "adjito",
                "--rules",
                rules,
                "--position",
                pos,
            ],
        ));
        assert!(default.contains(&gone.to_string()), "{default:?}");
        let mut want = default.clone();
        want.retain(|m| m != gone);
        assert_eq!(other, want, "{rules}");
    }
}

/// A greedy Adji-Boto game under Valdez's rules: the third move captures,
/// and move 39 brings a store to 51, which ends the game.
const VALDEZ_GAME: &str =
    "5 0 8 1 7 2 9 3 6 4 5 0 9 3 5 1 6 2 5 2 8 3 5 4 6 1 7 2 8 3 9 1 9 0 5 4 5 0 6";

#[test]
fn replay_plays_valdez_exactly_early_end_included() {
    let d = Path::new(".");
    let r = json(
        d,
        &[
            "replay",
            "--game",
            "adjiboto",
            "--rules",
            "valdez",
            "--moves",
            VALDEZ_GAME,
        ],
    );
    let steps = r["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 39);
    assert_eq!(
        steps[1]["captured"], 0,
        "no capture on each player's first move"
    );
    assert_eq!(steps[2]["captured"], 3, "captures from the third move");
    assert_eq!(steps[38]["position"], "2,6,2,2,1/1,2,0,0,0 1 33-51 main");
    let res = &r["result"];
    assert_eq!(res["reason"], "MoreThanHalf");
    assert_eq!(
        res["description"],
        "a store holds more than 50 seeds (Valdez's early end)"
    );
    // The seeds left go to their owners: 51 + 3 on the board, 33 + 13.
    assert_eq!(res["score"]["0"], 54);
    assert_eq!(res["score"]["1"], 46);
    let t = ok(
        d,
        &[
            "replay",
            "--game",
            "adjiboto",
            "--rules",
            "valdez",
            "--moves",
            VALDEZ_GAME,
        ],
    );
    assert!(t.starts_with("adjiboto (valdez)\n"), "{t}");
    assert!(
        t.contains("game over: a store holds more than 50 seeds (Valdez's early end)"),
        "{t}"
    );
    // One move more is after the end.
    let more = format!("{VALDEZ_GAME} 1");
    let e = fails(
        d,
        &[
            "replay", "--game", "adjiboto", "--rules", "valdez", "--moves", &more,
        ],
    );
    assert!(e.contains("move 40 comes after the end of the game"), "{e}");
    // By default no capture in the opening, and the game goes on.
    let r = json(d, &["replay", "--game", "adjiboto", "--moves", VALDEZ_GAME]);
    assert_eq!(r["steps"][2]["captured"], 0);
    assert!(r["result"].is_null(), "{r}");
}

#[test]
fn adjitos_early_end_names_its_rule() {
    let line = "1B 1A 3B 1A 4B 1A 6B 2A 2B 1A 3B 2A 1B";
    for rules in ["default", "slam-forbidden"] {
        let r = json(
            Path::new("."),
            &[
                "replay", "--game", "adjito", "--rules", rules, "--moves", line,
            ],
        );
        let res = &r["result"];
        assert_eq!(
            res["description"], "a store holds more than 24 seeds (Adjito's early end)",
            "{rules}: {r}"
        );
    }
    // Under must-reach, 1B (four seeds from the first pit) cannot open it.
    let e = fails(
        Path::new("."),
        &[
            "replay",
            "--game",
            "adjito",
            "--rules",
            "must-reach",
            "--moves",
            line,
        ],
    );
    assert!(
        e.contains("move 1 (1B) is illegal") && e.ends_with("legal moves: 3B 4B 5B 6B"),
        "{e}"
    );
}

#[test]
fn tables_of_each_rule_set_build_probe_verify_and_stats_and_others_refuse_them() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    for (game, rules) in RULES {
        let base = ["--game", game, "--rules", rules, "--dir", "t"];
        let mut a = vec!["tables", "build", "--max-seeds", "5", "--threads", "1"];
        a.extend(base);
        let plan = ok(dir, &a);
        let head = plan.lines().next().unwrap();
        assert_eq!(
            head.contains(&format!("({rules}")),
            rules != "default",
            "{head}"
        );
        let pos = if game == "adjito" {
            "0,0,0,1,0,1/0,0,1,0,1,1 B 20-23"
        } else {
            "0,0,1,0,2/1,0,0,0,1 0 47-48 main"
        };
        let mut p = vec!["tables", "probe", "--position", pos];
        p.extend(base);
        check_rules_key(&json(dir, &p), rules, "probe");
        let mut v = vec!["tables", "verify", "--threads", "1"];
        v.extend(base);
        ok(dir, &v);
        let mut s = vec!["tables", "stats"];
        s.extend(base);
        let md = ok(dir, &s);
        assert_eq!(
            md.lines().next().unwrap().contains(&format!("({rules}")),
            rules != "default",
            "{md}"
        );
    }
    // Must-reach's files under slam-forbidden's name: refused, naming both.
    let t = dir.join("t");
    for n in 0..=5 {
        let from = t.join(format!("adjito-must-reach-start-{n:03}.adjt"));
        let to = t.join(format!("adjito-slam-forbidden-start-{n:03}.adjt"));
        std::fs::rename(from, to).unwrap();
    }
    let e = fails(
        dir,
        &[
            "tables",
            "probe",
            "--game",
            "adjito",
            "--rules",
            "slam-forbidden",
            "--dir",
            "t",
            "--position",
            "0,0,0,1,0,1/0,0,1,0,1,1 B 20-23",
        ],
    );
    assert!(
        e.contains("must-reach") && e.contains("slam-forbidden"),
        "{e}"
    );
}

#[test]
fn openings_name_the_rule_set_and_refuse_a_resume_under_another() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    let args = [
        "openings",
        "--game",
        "adjiboto",
        "--rules",
        "valdez",
        "--plies",
        "1",
        "--depth",
        "1",
        "--no-tables",
        "--threads",
        "1",
        "--hash",
        "1",
    ];
    ok(dir, &args);
    let out = dir.join("openings-adjiboto-valdez-1");
    let tree: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("tree.json")).unwrap()).unwrap();
    assert_eq!(tree["rules"], "valdez");
    assert_eq!(tree["game"], "adjiboto");
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(
        md.starts_with("# Opening analysis: adjiboto (valdez), 1 plies"),
        "{md}"
    );
    let svg = std::fs::read_to_string(out.join("tree.svg")).unwrap();
    assert!(svg.contains("adjiboto (valdez) opening tree"), "{svg}");
    let e = fails(
        dir,
        &[
            "openings",
            "--game",
            "adjiboto",
            "--plies",
            "1",
            "--depth",
            "1",
            "--no-tables",
            "--threads",
            "1",
            "--hash",
            "1",
            "--resume",
            "--out",
            "openings-adjiboto-valdez-1",
        ],
    );
    assert!(e.contains("'valdez'") && e.contains("'default'"), "{e}");
    // The same rule set resumes.
    let mut again = args.to_vec();
    again.push("--resume");
    ok(dir, &again);
    // The default's directory keeps its name.
    ok(
        dir,
        &[
            "openings",
            "--game",
            "adjiboto",
            "--plies",
            "1",
            "--depth",
            "1",
            "--no-tables",
            "--threads",
            "1",
            "--hash",
            "1",
        ],
    );
    assert!(dir.join("openings-adjiboto-1").is_dir());
}
