//! The reports of the `adji` binary, pinned byte for byte: the JSON keys and
//! their order, and the text, as the tool printed them before the reports
//! became library types (`adji::report`).

use assert_cmd::Command;

fn stdout(args: &[&str]) -> String {
    let out = Command::cargo_bin("adji")
        .unwrap()
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// Replaces the number after `"key":` (or `key `) by `N`: timings vary.
fn mask(s: &str, key: &str) -> String {
    let Some(i) = s.find(key) else {
        return s.to_string();
    };
    let start = i + key.len();
    let len = s[start..]
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(s.len() - start);
    format!("{}N{}", &s[..start], &s[start + len..])
}

#[test]
fn moves_perft_replay_reports_are_unchanged() {
    let cases: [(&[&str], &str); 7] = [
        (
            &["moves", "--json"],
            r#"{"game_over":null,"moves":[{"captured":4,"move":"1B","position":"4,0,4,4,4,4/0,5,5,5,5,4 A 0-4"},{"captured":4,"move":"2B","position":"0,4,4,4,4,4/4,0,5,5,5,5 A 0-4"},{"captured":0,"move":"3B","position":"5,4,4,4,4,4/4,4,0,5,5,5 A 0-0"},{"captured":0,"move":"4B","position":"5,5,4,4,4,4/4,4,4,0,5,5 A 0-0"},{"captured":0,"move":"5B","position":"5,5,5,4,4,4/4,4,4,4,0,5 A 0-0"},{"captured":0,"move":"6B","position":"5,5,5,5,4,4/4,4,4,4,4,0 A 0-0"}],"position":"4,4,4,4,4,4/4,4,4,4,4,4 B 0-0"}
"#,
        ),
        (
            &["moves", "--json", "--position", "1,0,0,0,0,0/0,0,0,0,0,0 B 24-23"],
            r#"{"game_over":{"description":"the player to move has no seeds","reason":"MoverEmpty","split":{"A":25,"B":23}},"moves":[],"position":"1,0,0,0,0,0/0,0,0,0,0,0 B 24-23"}
"#,
        ),
        (
            &["moves"],
            "   1B  4,0,4,4,4,4/0,5,5,5,5,4 A 0-4  captures 4\n   2B  0,4,4,4,4,4/4,0,5,5,5,5 A 0-4  captures 4\n   3B  5,4,4,4,4,4/4,4,0,5,5,5 A 0-0  captures 0\n   4B  5,5,4,4,4,4/4,4,4,0,5,5 A 0-0  captures 0\n   5B  5,5,5,4,4,4/4,4,4,4,0,5 A 0-0  captures 0\n   6B  5,5,5,5,4,4/4,4,4,4,4,0 A 0-0  captures 0\n",
        ),
        (
            &["perft", "--depth", "2", "--divide", "--json"],
            "{\"divide\":{\"1B\":5,\"2B\":5,\"3B\":6,\"4B\":6,\"5B\":6,\"6B\":6},\"nodes\":34}\n",
        ),
        (
            &["perft", "--depth", "2", "--divide"],
            "1B: 5\n2B: 5\n3B: 6\n4B: 6\n5B: 6\n6B: 6\nnodes 34\n",
        ),
        (
            &["replay", "--moves", "2B 3A", "--json"],
            r#"{"result":null,"start":"4,4,4,4,4,4/4,4,4,4,4,4 B 0-0","steps":[{"captured":4,"move":"2B","position":"0,4,4,4,4,4/4,0,5,5,5,5 A 0-4"},{"captured":0,"move":"3A","position":"0,4,0,5,5,5/5,0,5,5,5,5 B 0-4"}]}
"#,
        ),
        (
            &["replay", "--moves", "2B 3A"],
            "      4,4,4,4,4,4/4,4,4,4,4,4 B 0-0\n  1.   2B  0,4,4,4,4,4/4,0,5,5,5,5 A 0-4  (captures 4)\n  2.   3A  0,4,0,5,5,5/5,0,5,5,5,5 B 0-4\ngame continues\n",
        ),
    ];
    for (args, expected) in cases {
        assert_eq!(stdout(args), expected, "{args:?}");
    }
    let end = "3,0,0,0,0/1,1,0,0,0 0 48-47 main";
    let boto = [
        "replay",
        "--game",
        "adjiboto",
        "--position",
        end,
        "--moves",
        "pass 0",
    ];
    assert_eq!(
        stdout(&[&boto[..], &["--json"]].concat()),
        r#"{"result":{"description":"neither player can move","reason":"NoMoves","score":{"0":49,"1":51},"winner":"1"},"start":"3,0,0,0,0/1,1,0,0,0 0 48-47 main","steps":[{"captured":0,"move":"pass","position":"3,0,0,0,0/1,1,0,0,0 1 48-47 main"},{"captured":0,"move":"0","position":"1,1,1,0,0/1,1,0,0,0 0 48-47 main"}]}
"#
    );
    assert_eq!(
        stdout(&boto),
        "      3,0,0,0,0/1,1,0,0,0 0 48-47 main\n  1. pass  3,0,0,0,0/1,1,0,0,0 1 48-47 main\n  2.    0  1,1,1,0,0/1,1,0,0,0 0 48-47 main\ngame over: neither player can move; final 0: 49 1: 51; player 1 wins\n"
    );
}

#[test]
fn solve_reports_are_unchanged() {
    let over = [
        "solve",
        "--no-tables",
        "--position",
        "1,0,0,0,0,0/0,0,0,0,0,0 B 24-23",
    ];
    let json = stdout(&[&over[..], &["--json"]].concat());
    assert_eq!(
        mask(&mask(&json, "\"time_ms\":"), "\"nps\":"),
        r#"{"best_moves":[],"exact":true,"final_score":{"A":25,"B":23},"from_tables":false,"game_over":"the player to move has no seeds","loop_sensitive":false,"lower":-1,"moves":[],"nodes":0,"nps":N,"position":"1,0,0,0,0,0/0,0,0,0,0,0 B 24-23","pv":[],"pv_end":"GameOver","table_hits":0,"time_ms":N,"tt_hit_rate":0.0,"upper":-1,"value":-1,"wdl":"loss"}
"#
    );
    let text = stdout(&over);
    assert_eq!(
        mask(&mask(&text, "time "), "ms, "),
        "  player A (top)    store 24\n        6A  5A  4A  3A  2A  1A\n         0   0   0   0   0   1\n         0   0   0   0   0   0\n        1B  2B  3B  4B  5B  6B\n  player B (bottom) store 23\n  to move: B\n  1,0,0,0,0,0/0,0,0,0,0,0 B 24-23\ngame over: the player to move has no seeds\nvalue: -1 (seeds on the board, mover minus opponent)\nprojected final score: B: 23 A: 25\nresult for the mover: loss\nloop-sensitive: no\nnodes 0, time N ms, N nodes/s, TT hit rate 0.0%, table hits 0\n"
    );
    // A searched position: every key, in the same order (the counts vary with the search).
    let pos = "0,0,0,0,0,1/0,1,0,1,0,0 B 22-23";
    let json = stdout(&["solve", "--no-tables", "--position", pos, "--json"]);
    let keys = [
        "{\"best_moves\":[",
        "],\"exact\":true,\"final_score\":{\"A\":22,\"B\":26},\"from_tables\":false,\"game_over\":null,\"loop_sensitive\":false,\"lower\":3,\"moves\":[{\"captured\":0,\"exact\":true,\"lower\":3,\"move\":",
        ",\"upper\":3,\"value\":3}",
        "],\"nodes\":",
        ",\"nps\":",
        ",\"position\":\"0,0,0,0,0,1/0,1,0,1,0,0 B 22-23\",\"pv\":[",
        "],\"pv_end\":\"GameOver\",\"table_hits\":0,\"time_ms\":",
        ",\"tt_hit_rate\":",
        ",\"upper\":3,\"value\":3,\"wdl\":\"win\"}\n",
    ];
    let mut at = 0;
    for k in keys {
        at = at
            + json[at..]
                .find(k)
                .unwrap_or_else(|| panic!("{k} in {json}"))
            + k.len();
    }
    let text = stdout(&["solve", "--no-tables", "--position", pos]);
    assert!(text.contains("  0,0,0,0,0,1/0,1,0,1,0,0 B 22-23\nvalue: +3 (seeds on the board, mover minus opponent)\nprojected final score: B: 26 A: 22\nresult for the mover: win\nloop-sensitive: no\nmoves (best first):\n     2B +3\n     4B +3\nprincipal variation: "), "{text}");
}

#[test]
fn probe_reports_are_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let build = "tables build --game adjito --max-seeds 3 --dir";
    stdout(&build.split(' ').chain([d]).collect::<Vec<_>>());
    let probe = [
        "tables",
        "probe",
        "--dir",
        d,
        "--position",
        "0,0,0,0,0,1/0,1,0,1,0,0 B",
    ];
    assert_eq!(
        stdout(&[&probe[..], &["--json"]].concat()),
        r#"{"best_moves":["2B","4B"],"game_over":null,"hi":3,"lo":3,"loop_sensitive":false,"moves":[{"move":"2B","value":3},{"move":"4B","value":3}],"position":"0,0,0,0,0,1/0,1,0,1,0,0 B","value":3}
"#
    );
    assert_eq!(
        stdout(&probe),
        "position 0,0,0,0,0,1/0,1,0,1,0,0 B\nvalue +3 (win for the mover), loop-sensitive: false\n     2B +3\n     4B +3\nbest: 2B 4B\n"
    );
}
