//! The default readings' tables are unchanged by rule sets: files built
//! now are byte-identical (header included) to the ones whose SHA-256 sums
//! `results/tables-checksums.txt` records, built before rule sets existed.
//! A change to a rule's home, a fast path or the header that alters any
//! default file fails here.

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

use adji::game::Game;
use adji::progress::NoProgress;
use adji::tables::retrograde::build_tables;
use adji::value::LoopRule;
use adji::{AdjiBoto, Adjito};

/// `name → sha256` from the committed list.
fn recorded() -> HashMap<String, String> {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("results/tables-checksums.txt"),
    )
    .unwrap();
    adji::certify::check::parse_checksum_list(&text).unwrap()
}

/// Builds levels `0..=max` of `G` and compares every file's SHA-256 with
/// the recorded one; returns how many files were compared.
fn same_as_recorded<G: Game>(max: u32) -> usize {
    let dir = tempfile::tempdir().unwrap();
    build_tables::<G>(dir.path(), LoopRule::Start, max, &NoProgress, |_| {}).unwrap();
    let want = recorded();
    let mut compared = 0;
    for n in 0..=max {
        let path = adji::tables::level_path(dir.path(), G::RULES, LoopRule::Start, n);
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let out = Command::new("sha256sum").arg(&path).output().unwrap();
        assert!(out.status.success(), "sha256sum {}", path.display());
        let got = String::from_utf8(out.stdout).unwrap();
        let got = got.split_whitespace().next().unwrap();
        let Some(sum) = want.get(&name) else {
            panic!("{name} is not in results/tables-checksums.txt");
        };
        assert_eq!(got, sum, "{name} differs from the recorded build");
        compared += 1;
    }
    compared
}

#[test]
fn default_adjito_tables_are_byte_identical_to_the_recorded_ones() {
    assert_eq!(same_as_recorded::<Adjito>(16), 17);
}

#[test]
fn default_adjiboto_tables_are_byte_identical_to_the_recorded_ones() {
    assert_eq!(same_as_recorded::<AdjiBoto>(20), 21);
}
