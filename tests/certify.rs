//! Certificates (issue 26): the writer's proofs pass the independent
//! checker, quiet cycles are judged as docs/RULES.md §4 asks, and every
//! attack on a certificate or its tables is rejected naming the first bad
//! node.

use std::path::Path;

use assert_cmd::Command;

use adji::certify::check::{check, Rejected};
use adji::certify::write::Writer;
use adji::certify::{Certificate, Claim, FormatError, Proof};
use adji::game::{Game, Position};
use adji::progress::NoProgress;
use adji::rules::RuleSet;
use adji::search::{Options, Searcher};
use adji::tables::retrograde::build_tables;
use adji::tables::{level_path, level_positions, TableSet};
use adji::tt::AtomicTable;
use adji::value::LoopRule;
use adji::Adjito;

mod common;
use common::{forge, lcg, playout};

fn build<G: Game>(dir: &Path, rule: LoopRule, max: u32) {
    build_tables::<G>(dir, rule, max, &NoProgress, |_| {}).unwrap();
}

/// A certificate of `pos` with table levels `0..=max` of `dir`: of its
/// exact value, or, with `scored`, of `value` with the root's stretch
/// scored `scored` (a proof graph for the cycle rule's tests).
fn make<G: Game>(
    dir: &Path,
    rule: LoopRule,
    max: u32,
    pos: Position,
    scored: Option<(i32, i32)>,
) -> Certificate {
    let dir = dir.to_path_buf();
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || {
            let tables = TableSet::open::<G>(&dir, rule, max).unwrap();
            let tt = AtomicTable::new(16);
            let opts = Options {
                rule,
                parallel: false,
                ..Options::default()
            };
            let s = Searcher::<G, _>::new(Some(&tables), &tt, opts).unwrap();
            let mut w = Writer::new(&s, &tables, rule);
            match scored {
                Some((value, ws)) => w.certify_scored(&pos, value, ws).unwrap(),
                None => {
                    let v = w.value(&pos).unwrap();
                    w.certify(&pos, v).unwrap()
                }
            }
        })
        .unwrap()
        .join()
        .unwrap()
}

/// Loop-sensitive Adjito positions of `level` (`lo < hi` in the tables).
fn loop_sensitive(tables: &TableSet, level: u32) -> Vec<(Position, i32, i32)> {
    loop_sensitive_of::<Adjito>(tables, level)
}

fn loop_sensitive_of<G: Game>(tables: &TableSet, level: u32) -> Vec<(Position, i32, i32)> {
    let n = adji::index::level_size(level as usize, G::PITS);
    level_positions::<G>(level, 0..n)
        .filter_map(|(_, p)| {
            let b = tables.bounds::<G>(&p)?;
            (b.lo < b.hi).then_some((p, b.lo, b.hi))
        })
        .collect()
}

/// Adji-Boto at 16 seeds, where quiet cycles begin (no position there is
/// loop-sensitive): 41 positions certified with tables to 15 hold, with the
/// tables' values. (None of these proofs needs a cycle: they find exits;
/// cycles are tested on Adjito above.)
#[test]
fn adjiboto_positions_at_16_seeds_are_certified() {
    let dir = tempfile::tempdir().unwrap();
    let rule = LoopRule::Start;
    build::<adji::AdjiBoto>(dir.path(), rule, 16);
    let all = TableSet::open::<adji::AdjiBoto>(dir.path(), rule, 16).unwrap();
    let n = adji::index::level_size(16, adji::AdjiBoto::PITS);
    let mut certified = 0;
    for (_, p) in level_positions::<adji::AdjiBoto>(16, 0..n).step_by(n as usize / 40) {
        let want = all.value::<adji::AdjiBoto>(&p).unwrap();
        let cert = make::<adji::AdjiBoto>(dir.path(), rule, 15, p, None);
        assert_eq!(cert.value, want);
        check(&cert, dir.path()).unwrap();
        certified += 1;
    }
    assert_eq!(certified, 41);
}

/// Every few loop-sensitive position of levels 3–6, certified with tables
/// only below its level (so that its own stretch, with its quiet cycles, is
/// in the proof), under both loop rules: the value is the tables' and the
/// checker accepts; and some of the proofs do rest on (loop-safe) cycles.
#[test]
fn certificates_of_loop_sensitive_positions_hold_some_through_cycles() {
    let dir = tempfile::tempdir().unwrap();
    let mut with_cycles = 0;
    let mut certified = 0;
    for rule in [LoopRule::Start, LoopRule::Even] {
        build::<Adjito>(dir.path(), rule, 6);
        let all = TableSet::open::<Adjito>(dir.path(), rule, 6).unwrap();
        for level in 3..=6 {
            let found = loop_sensitive(&all, level);
            assert!(
                !found.is_empty(),
                "level {level} has loop-sensitive positions"
            );
            for &(p, lo, hi) in found.iter().step_by(found.len().div_ceil(6)) {
                let cert = make::<Adjito>(dir.path(), rule, level - 1, p, None);
                let w = rule.w::<Adjito>(&p);
                assert_eq!(cert.value, w.max(lo).min(hi), "{p:?} {rule:?}");
                assert_eq!(Certificate::decode(&cert.encode()), Ok(cert.clone()));
                let acc = check(&cert, dir.path()).unwrap();
                assert!(acc.levels.iter().all(|&l| l < level));
                with_cycles += (acc.on_cycles > 0) as usize;
                certified += 1;
            }
        }
    }
    assert!(certified >= 40, "{certified} certified");
    assert!(
        with_cycles > 0,
        "no proof used a cycle: the test would not test them"
    );
}

/// A proof of `value ≥ hi` for a loop-sensitive position whose `w` is below
/// `hi`, made by proving it with the root's stretch scored `hi` (where it
/// holds, through a cycle). The file stores no `w`: the checker places the
/// root's stretch at its real `w`, where every node's local check still
/// passes (nothing of the stretch is a leaf), so only the cycle rule stands
/// between it and a false claim. The checker rejects it, naming a node on
/// the cycle whose claim is not loop-safe.
#[test]
fn a_cycle_under_a_claim_endless_play_does_not_meet_is_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let rule = LoopRule::Start;
    build::<Adjito>(dir.path(), rule, 6);
    let all = TableSet::open::<Adjito>(dir.path(), rule, 6).unwrap();
    let mut tried = 0;
    for level in 4..=6 {
        for (p, _, hi) in loop_sensitive(&all, level) {
            let w = rule.w::<Adjito>(&p);
            if hi == 0 || hi > level as i32 || w >= hi || tried >= 6 {
                continue;
            }
            tried += 1;
            let cert = make::<Adjito>(dir.path(), rule, level - 1, p, Some((hi, hi)));
            let e = check(&cert, dir.path()).unwrap_err();
            assert!(e.what.contains("quiet cycle"), "{e}");
            assert!(e.what.contains("does not meet its claim"), "{e}");
        }
    }
    assert!(tried >= 3, "only {tried} positions tried");
}

/// Certificates of every move's value of loop-sensitive positions (levels
/// 5–6, tables below): each value is the tables' (`tables::move_values`),
/// each certificate holds, a wrong value is refused by the writer, and a
/// certificate moved to another first move is rejected, naming a node.
#[test]
fn every_moves_value_is_certified() {
    let dir = tempfile::tempdir().unwrap();
    let rule = LoopRule::Start;
    build::<Adjito>(dir.path(), rule, 6);
    let all = TableSet::open::<Adjito>(dir.path(), rule, 6).unwrap();
    let mut moves = 0;
    for level in 5..=6 {
        for (p, _, _) in loop_sensitive(&all, level).into_iter().step_by(7).take(4) {
            let want = adji::tables::move_values::<Adjito>(&all, &p).unwrap();
            for mv in &want {
                let cert = move_cert(dir.path(), level - 1, p, mv.mv, Some(mv.value)).unwrap();
                assert_eq!(cert.first, Some(mv.mv.0));
                check(&cert, dir.path()).unwrap();
                let wrong = move_cert(dir.path(), level - 1, p, mv.mv, Some(mv.value + 2));
                assert!(wrong.unwrap_err().contains("the value is not"));
                if let Some(other) = want.iter().find(|m| m.mv != mv.mv) {
                    let mut c = cert.clone();
                    c.first = Some(other.mv.0);
                    // Its nodes are placed at the other move's child,
                    // whose proof they are not.
                    let e = check(&c, dir.path()).unwrap_err();
                    assert!(e.node.is_some(), "{e}");
                }
                moves += 1;
            }
        }
    }
    assert!(moves >= 10, "{moves} moves");
}

/// A certificate of move `mv` of `pos` (its exact value, or `value`).
fn move_cert(
    dir: &Path,
    max: u32,
    pos: Position,
    mv: adji::game::Move,
    value: Option<i32>,
) -> Result<Certificate, String> {
    let tables = TableSet::open::<Adjito>(dir, LoopRule::Start, max).unwrap();
    let tt = AtomicTable::new(16);
    let opts = Options {
        parallel: false,
        ..Options::default()
    };
    let s = Searcher::<Adjito, _>::new(Some(&tables), &tt, opts).unwrap();
    let mut w = Writer::new(&s, &tables, LoopRule::Start);
    let v = match value {
        Some(v) => v,
        None => w.move_value(&pos, mv).unwrap(),
    };
    w.certify_move(&pos, mv, v).map_err(|e| e.to_string())
}

/// A certificate of a 13–14-seed position with tables to 8, and its tables.
fn attacked() -> (tempfile::TempDir, Certificate) {
    let dir = tempfile::tempdir().unwrap();
    build::<Adjito>(dir.path(), LoopRule::Start, 8);
    let mut seed = 26u64;
    let pos = loop {
        let choices: Vec<u8> = (0..60).map(|_| (lcg(&mut seed) % 6) as u8).collect();
        let st = playout::<Adjito>(&choices);
        let n = st.pos.level();
        if (13..=14).contains(&n) && !Adjito::legal_moves(&st.pos).is_empty() {
            break st.pos;
        }
    };
    let cert = make::<Adjito>(dir.path(), LoopRule::Start, 8, pos, None);
    check(&cert, dir.path()).expect("the unaltered certificate holds");
    (dir, cert)
}

/// The nodes whose proofs refer to node `i`.
fn parents(cert: &Certificate, i: usize) -> Vec<usize> {
    (0..cert.nodes.len())
        .filter(|&p| adji::certify::children(&cert.nodes[p]).any(|c| c as usize == i))
        .collect()
}

/// The direction of node `i`'s claim (the file does not store it): the
/// opposite of a parent's, whose proof kind shows its own.
fn claim_of(cert: &Certificate, i: usize) -> Claim {
    let p = parents(cert, i)[0];
    match cert.nodes[p].proof {
        Proof::One { .. } => Claim::AtMost,
        Proof::All(_) => Claim::AtLeast,
        _ => unreachable!("a leaf has no children"),
    }
}

/// Checks a tampered certificate through its bytes (a valid checksum) and
/// returns the rejection.
fn rejected(cert: &Certificate, dir: &Path) -> Rejected {
    let back = Certificate::decode(&cert.encode()).unwrap();
    let e = check(&back, dir).unwrap_err();
    // Issue 37, item 4: the messages said "it claims claim value ≥ 2".
    let text = e.to_string();
    for slip in ["claims claim", "claim claim", "as claim", "value value"] {
        assert!(!text.contains(slip), "{text}");
    }
    e
}

/// Rejected naming node `i` or, when a parent's edge check meets it first,
/// a parent of `i` whose message names `i`.
fn names(e: &Rejected, cert: &Certificate, i: usize) {
    let at = e.node.expect("a node is named");
    assert!(
        at == i || (parents(cert, i).contains(&at) && e.what.contains(&format!("node {i} "))),
        "tampered node {i}, rejected: {e}"
    );
    assert!(e.to_string().starts_with(&format!("node {at}: ")));
}

#[test]
fn every_attack_is_rejected_naming_the_first_bad_node() {
    let (dir, cert) = attacked();
    let inner = |want: fn(&Proof) -> bool| {
        (1..cert.nodes.len())
            .find(|&i| want(&cert.nodes[i].proof))
            .unwrap()
    };

    // Flip a bound: the root's two nodes swapped (each then proves the
    // other direction), then a threshold made stronger by one.
    let mut c = cert.clone();
    (c.at_least, c.at_most) = (c.at_most, c.at_least);
    let e = rejected(&c, dir.path());
    assert!(
        [c.at_least, c.at_most].contains(&(e.node.unwrap() as u32)),
        "{e}"
    );
    assert!(e.what.contains("proves only a"), "{e}");
    let one = inner(|p| matches!(p, Proof::One { .. }));
    for (i, claim) in [
        (one, Claim::AtLeast),
        (inner(|p| matches!(p, Proof::All(_))), Claim::AtMost),
    ] {
        let mut c = cert.clone();
        c.nodes[i].t += if claim == Claim::AtLeast { 1 } else { -1 };
        let e = rejected(&c, dir.path());
        names(&e, &c, i);
        // The message says what the claims are, once (issue 37, item 4).
        assert!(e.what.contains("but it claims value "), "{e}");
    }

    // Drop a move of a node that must answer every move.
    let i = inner(|p| matches!(p, Proof::All(v) if v.len() >= 2));
    let mut c = cert.clone();
    if let Proof::All(v) = &mut c.nodes[i].proof {
        v.pop();
    }
    let e = rejected(&c, dir.path());
    assert_eq!(e.node, Some(i), "{e}");
    assert!(e.what.contains("legal moves"), "{e}");

    // Swap two table leaves' entries.
    let leaves: Vec<usize> = (0..cert.nodes.len())
        .filter(|&i| matches!(cert.nodes[i].proof, Proof::Table { .. }))
        .collect();
    let j = *leaves
        .iter()
        .find(|&&j| cert.nodes[j].proof != cert.nodes[leaves[0]].proof)
        .unwrap();
    let mut c = cert.clone();
    let (a, b) = (c.nodes[leaves[0]].proof.clone(), c.nodes[j].proof.clone());
    c.nodes[leaves[0]].proof = b;
    c.nodes[j].proof = a;
    let e = rejected(&c, dir.path());
    assert_eq!(e.node, Some(leaves[0]), "{e}");
    assert!(e.what.contains("table entry"), "{e}");

    // Point a proof at another node: a leaf stored before it, so placed
    // already, at another board.
    let i = (1..cert.nodes.len())
        .find(|&i| matches!(cert.nodes[i].proof, Proof::One { .. }) && leaves[0] < i)
        .unwrap();
    let mut c = cert.clone();
    if let Proof::One { child, .. } = &mut c.nodes[i].proof {
        *child = leaves
            .iter()
            .copied()
            .find(|&l| l as u32 != *child && l < i)
            .unwrap() as u32;
    }
    let e = rejected(&c, dir.path());
    assert_eq!(e.node, Some(i), "{e}");

    // A root that is no position of the game.
    let mut c = cert.clone();
    c.root = adji::game::Packed(u128::MAX);
    let e = rejected(&c, dir.path());
    assert_eq!(e.node, None, "{e}");
    assert!(e.what.contains("not a position"), "{e}");

    // A node no earlier node reaches: the last node made a copy of the
    // first leaf, with nothing pointing at it.
    let mut c = cert.clone();
    c.nodes.push(c.nodes[leaves[0]].clone());
    let e = rejected(&c, dir.path());
    assert_eq!(e.node, Some(cert.nodes.len()), "{e}");

    // Truncate the file: the first node lost is named; a cut inside the
    // last bytes fails the checksum; a cut header is too short.
    let bytes = cert.encode();
    let e = Certificate::decode(&bytes[..bytes.len() / 2]).unwrap_err();
    assert!(
        matches!(&e, FormatError::Node { what, .. } if what.contains("cut short")),
        "{e}"
    );
    assert!(e.to_string().starts_with("node "), "{e}");
    assert!(matches!(
        Certificate::decode(&bytes[..bytes.len() - 1]),
        Err(FormatError::Node { .. } | FormatError::Checksum { .. })
    ));
    assert_eq!(
        Certificate::decode(&bytes[..20]),
        Err(FormatError::Short(20))
    );
    // One altered byte anywhere after the header fails the checksum.
    let mut b = bytes.clone();
    b[bytes.len() - 10] ^= 1;
    assert!(Certificate::decode(&b).is_err());
}

/// A table entry a leaf reads, altered in a copy of the tables with both
/// checksums recomputed (so the reader accepts the file): the leaf that
/// reads it is rejected, by name.
#[test]
fn a_leaf_on_a_corrupted_table_entry_is_rejected() {
    let (dir, cert) = attacked();
    let tables = TableSet::open::<Adjito>(dir.path(), LoopRule::Start, 8).unwrap();
    // A leaf on an entry that is not loop-sensitive (its byte is its value),
    // whose claim a value one step off breaks.
    let (i, level, index, claim, t) = cert
        .nodes
        .iter()
        .enumerate()
        .find_map(|(i, n)| match n.proof {
            Proof::Table { level, index }
                if (n.t as i32).abs() < level as i32
                    && !tables
                        .level(level as u32)?
                        .bounds(index as usize)?
                        .loop_sensitive() =>
            {
                Some((i, level, index, claim_of(&cert, i), n.t as i32))
            }
            _ => None,
        })
        .unwrap();
    let copy = tempfile::tempdir().unwrap();
    for l in 0..=8 {
        let from = level_path(dir.path(), RuleSet::AdjitoDefault, LoopRule::Start, l);
        std::fs::copy(&from, copy.path().join(from.file_name().unwrap())).unwrap();
    }
    let wrong = match claim {
        Claim::AtLeast => t - 1,
        Claim::AtMost => t + 1,
    };
    let file = level_path(
        copy.path(),
        RuleSet::AdjitoDefault,
        LoopRule::Start,
        level as u32,
    );
    forge(&file, &[(index as usize, wrong as i8 as u8)]);
    let e = check(&cert, copy.path()).unwrap_err();
    let at = e.node.unwrap();
    assert!(at <= i, "{e}");
    assert!(
        matches!(cert.nodes[at].proof, Proof::Table { level: l, index: x } if (l, x) == (level, index)),
        "{e}"
    );
    assert!(
        e.what.contains(&format!("table entry {level}/{index}")),
        "{e}"
    );
    // The unaltered tables still accept it.
    check(&cert, dir.path()).unwrap();
}

/// Tables of another rule set under the default's file names are refused,
/// and so is a certificate whose header names no rule set of its game.
#[test]
fn tables_of_another_rule_set_are_refused() {
    let (dir, cert) = attacked();
    let other = tempfile::tempdir().unwrap();
    build::<adji::adjito::AdjitoMustReach>(other.path(), LoopRule::Start, 8);
    for l in 0..=8 {
        std::fs::rename(
            level_path(other.path(), RuleSet::AdjitoMustReach, LoopRule::Start, l),
            level_path(other.path(), RuleSet::AdjitoDefault, LoopRule::Start, l),
        )
        .unwrap();
    }
    let e = check(&cert, other.path()).unwrap_err();
    assert_eq!(e.node, None);
    assert!(e.what.starts_with("tables: "), "{e}");
    assert!(e.what.contains("must-reach"), "{e}");
    check(&cert, dir.path()).unwrap();
    let mut b = cert.encode();
    b[11] = 9;
    let n = b.len() - 4;
    let crc = crc32fast::hash(&b[..n]);
    b[n..].copy_from_slice(&crc.to_le_bytes());
    assert!(matches!(
        Certificate::decode(&b),
        Err(FormatError::Header(h)) if h.contains("rule set")
    ));
}

/// The command line: `certify` writes, `certify check` accepts (exit 0)
/// and rejects an altered file (exit 1, naming what is wrong).
#[test]
fn the_command_line_writes_checks_and_rejects() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let adji = || Command::cargo_bin("adji").unwrap();
    adji()
        .args(["tables", "build", "--game", "adjito", "--max-seeds", "6"])
        .args(["--dir", d])
        .assert()
        .success();
    let file = dir.path().join("p.cert");
    let f = file.to_str().unwrap();
    let out = adji()
        .args(["certify", "--game", "adjito", "--position"])
        .args(["0,1,0,2,1,0/1,0,2,1,0,1 B", "--tables", d, "--out", f])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    // Sound, but no checksum list named: no table is trusted (exit 4).
    let out = adji()
        .args(["certify", "check", f, "--tables", d])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(4), "{out:?}");
    assert!(text.starts_with("sound, tables not verified"), "{text}");
    assert!(text.contains("checksums: none named"), "{text}");
    let mut b = std::fs::read(&file).unwrap();
    let n = b.len();
    std::fs::write(&file, &b[..n / 2]).unwrap();
    let out = adji()
        .args(["certify", "check", f, "--tables", d])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("rejected: node "), "{err}");
    b[n - 1] ^= 0xFF;
    std::fs::write(&file, &b).unwrap();
    let out = adji()
        .args(["certify", "check", f, "--tables", d])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    // A FIFO in place of the certificate is refused, not waited on.
    #[cfg(unix)]
    {
        let fifo = dir.path().join("fifo.cert");
        let ok = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(ok.success());
        let out = adji()
            .args(["certify", "check", fifo.to_str().unwrap(), "--tables", d])
            .timeout(std::time::Duration::from_secs(20))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("not a regular file"));
    }
    // A value that is not the position's is refused by the writer.
    let out = adji()
        .args(["certify", "--game", "adjito", "--position"])
        .args(["0,1,0,2,1,0/1,0,2,1,0,1 B", "--value", "9", "--tables", d])
        .args(["--out", f])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("the value is not 9"));
}

/// `certify check` on tables whose levels are sharded (a manifest and
/// shards, no level file) reads them as every command does, and hashes
/// each sharded level as the level file its shards merge into: the
/// checksums recorded for the level files verify it. (It failed with
/// "No such file or directory", naming the directory.) A shard whose value
/// byte is altered is not verified.
#[test]
fn certify_check_reads_and_hashes_sharded_levels() {
    use adji::certify::check::{file_sha256, level_sha256};
    let t = tempfile::tempdir().unwrap();
    let (single, sharded) = (t.path().join("single"), t.path().join("sharded"));
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let adji = || Command::cargo_bin("adji").unwrap();
    build::<Adjito>(&single, LoopRule::Start, 6);
    adji()
        .args(["tables", "split", "--shards", "3", "--dir", &s(&single)])
        .args(["--out", &s(&sharded)])
        .assert()
        .success();
    let (rules, rule) = (RuleSet::AdjitoDefault, LoopRule::Start);
    let mut sums = String::new();
    for n in 0..=6 {
        let file = level_path(&single, rules, rule, n);
        assert!(!level_path(&sharded, rules, rule, n).exists());
        let want = file_sha256(&file).unwrap();
        assert_eq!(level_sha256(&sharded, rules, rule, n).unwrap(), want);
        let hex: String = want.iter().map(|b| format!("{b:02x}")).collect();
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        sums += &format!("{hex}  {name}\n");
    }
    let sums_file = t.path().join("sums.txt");
    std::fs::write(&sums_file, &sums).unwrap();
    let cert = t.path().join("p.cert");
    adji()
        .args(["certify", "--game", "adjito", "--position"])
        .args(["0,1,0,2,1,0/1,0,2,1,0,1 B", "--tables", &s(&sharded)])
        .args(["--out", &s(&cert)])
        .assert()
        .success();
    let check = || {
        adji()
            .args(["certify", "check", &s(&cert), "--tables", &s(&sharded)])
            .args(["--checksums", &s(&sums_file)])
            .output()
            .unwrap()
    };
    let out = check();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    assert!(text.contains("tables: verified"), "{text}");
    // A list with a line it cannot read verifies nothing, naming the line
    // (the lenient parser skipped it, and the tables were "verified"); the
    // certificate is sound, the tables not verified (exit 3).
    std::fs::write(&sums_file, format!("{sums}garbage\n")).unwrap();
    let out = check();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    assert!(text.contains("tables: not verified"), "{text}");
    assert!(
        text.contains("line 8: expected 64 hexadecimal digits"),
        "{text}"
    );
    std::fs::write(&sums_file, &sums).unwrap();
    // A value byte of a shard of level 6 altered, its checksums recomputed
    // by no one: refused, and never "verified".
    let shard = sharded.join("adjito-start-006.shard-00001-of-00003.adjs");
    let mut b = std::fs::read(&shard).unwrap();
    b[64] ^= 1;
    std::fs::write(&shard, b).unwrap();
    let out = check();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("tables: verified"), "{out:?}");
    assert!(!out.status.success(), "{out:?}");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
}

/// Issue 37, items 1 and 2: `certify check` trusts only the checksum list
/// its user names, says which it used, and exits 0 only when the
/// certificate is sound and every level it reads matches that list: 4 with
/// no list (even run from a directory that holds a list at
/// `results/tables-checksums.txt`, which it used to read), 3 when a level
/// differs from the named list or is not in it, 1 when rejected; the JSON
/// verdict says which. (Before, all three of the first cases exited 0,
/// "accepted", the first with "tables: verified".)
#[test]
fn certify_check_exits_0_only_over_tables_of_a_named_list() {
    use adji::certify::check::file_sha256;
    let t = tempfile::tempdir().unwrap();
    let tables = t.path().join("tables");
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let adji = || Command::cargo_bin("adji").unwrap();
    build::<Adjito>(&tables, LoopRule::Start, 6);
    let (rules, rule) = (RuleSet::AdjitoDefault, LoopRule::Start);
    let mut sums = String::new();
    for n in 0..=6 {
        let file = level_path(&tables, rules, rule, n);
        let hex: String = file_sha256(&file)
            .unwrap()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        sums += &format!("{hex}  {name}\n");
    }
    // A directory holding a list where the old default looked for one.
    let cwd = t.path().join("cwd");
    std::fs::create_dir_all(cwd.join("results")).unwrap();
    std::fs::write(cwd.join("results/tables-checksums.txt"), &sums).unwrap();
    let good = t.path().join("good.txt");
    std::fs::write(&good, &sums).unwrap();
    let cert = t.path().join("p.cert");
    adji()
        .args(["certify", "--game", "adjito", "--position"])
        .args(["0,1,0,2,1,0/1,0,2,1,0,1 B", "--tables", &s(&tables)])
        .args(["--out", &s(&cert)])
        .assert()
        .success();
    let run = |extra: &[&str]| {
        let out = adji()
            .current_dir(&cwd)
            .args(["certify", "check", &s(&cert), "--tables", &s(&tables)])
            .args(extra)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        (out.status.code(), text)
    };
    let json = |text: &str| -> serde_json::Value { serde_json::from_str(text.trim()).unwrap() };

    // No list named: not the one in the current directory.
    let (code, text) = run(&[]);
    assert_eq!(code, Some(4), "{text}");
    assert!(!text.contains("tables: verified"), "{text}");
    assert!(text.contains("checksums: none named"), "{text}");
    let (code, text) = run(&["--json"]);
    assert_eq!(code, Some(4), "{text}");
    let v = json(&text);
    assert_eq!(v["verdict"], "no-checksum-list", "{text}");
    assert!(v["checksums"].is_null(), "{text}");

    // The named list, matching: proved, exit 0, and the list named.
    let (code, text) = run(&["--checksums", &s(&good)]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.starts_with("proved: "), "{text}");
    assert!(text.contains(&format!("checksums: {}", s(&good))), "{text}");
    let (code, text) = run(&["--checksums", &s(&good), "--json"]);
    assert_eq!(code, Some(0), "{text}");
    let v = json(&text);
    assert_eq!(v["verdict"], "proved", "{text}");
    assert_eq!(v["checksums"], s(&good), "{text}");
    assert_eq!(v["tables"], "verified", "{text}");

    // A named list the levels differ from, or that lacks them: exit 3.
    let wrong = t.path().join("wrong.txt");
    let flipped: String = sums
        .lines()
        .map(|l| {
            format!(
                "{}{}\n",
                if l.starts_with('0') { "1" } else { "0" },
                &l[1..]
            )
        })
        .collect();
    std::fs::write(&wrong, flipped).unwrap();
    let short = t.path().join("short.txt");
    std::fs::write(&short, "# no level listed\n").unwrap();
    for (list, why) in [(&wrong, "differs"), (&short, "not recorded")] {
        let (code, text) = run(&["--checksums", &s(list)]);
        assert_eq!(code, Some(3), "{text}");
        assert!(text.contains(why), "{text}");
        let (code, text) = run(&["--checksums", &s(list), "--json"]);
        assert_eq!(code, Some(3), "{text}");
        let v = json(&text);
        assert_eq!(v["verdict"], "tables-not-verified", "{text}");
        assert!(
            v["not_verified"][0].as_str().unwrap().contains(why),
            "{text}"
        );
    }

    // Rejected: exit 1, and the JSON says so.
    let mut b = std::fs::read(&cert).unwrap();
    let n = b.len();
    b[n - 1] ^= 0xFF;
    std::fs::write(&cert, &b).unwrap();
    let (code, text) = run(&["--checksums", &s(&good), "--json"]);
    assert_eq!(code, Some(1), "{text}");
    let v = json(&text);
    assert_eq!(v["verdict"], "rejected", "{text}");
    assert!(
        v["rejected"].as_str().unwrap().contains("checksum"),
        "{text}"
    );
}
