//! The second attack on issue 23's fixes: each test here failed before its
//! fix. Output files never replace a device, FIFO or directory and never
//! create a missing folder; model and exclusion files are read with a bound;
//! a closed standard output no longer hides a failure.

use std::path::Path;
use std::process::{Command as Std, Stdio};
use std::time::Duration;

use assert_cmd::Command;

const ADJI: &str = env!("CARGO_BIN_EXE_adji");

fn adji(dir: &Path) -> Command {
    let mut c = Command::cargo_bin("adji").unwrap();
    c.current_dir(dir).timeout(Duration::from_secs(120));
    c
}

fn tables(dir: &Path, max: &str) {
    let o = adji(dir)
        .args(["tables", "build", "--game", "adjito", "--dir", "t"])
        .args(["--max-seeds", max])
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
}

fn mkfifo(p: &Path) {
    let ok = Std::new("mkfifo").arg(p).status().unwrap().success();
    assert!(ok, "mkfifo");
}

/// `--out` naming a FIFO (or a device, as `/dev/full` was, run as root) is
/// refused and left as it is; it used to be replaced by a regular file.
#[test]
fn an_output_file_never_replaces_a_fifo() {
    let d = tempfile::tempdir().unwrap();
    tables(d.path(), "4");
    let fifo = d.path().join("fifo");
    mkfifo(&fifo);
    let o = adji(d.path())
        .args([
            "tables", "stats", "--game", "adjito", "--dir", "t", "--out", "fifo",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("not a regular file"), "{err}");
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::symlink_metadata(&fifo)
        .unwrap()
        .file_type()
        .is_fifo());
}

/// `--out` in a folder that does not exist is an error naming it; the
/// folder used to be created.
#[test]
fn an_output_file_in_a_missing_folder_is_an_error() {
    let d = tempfile::tempdir().unwrap();
    tables(d.path(), "4");
    let o = adji(d.path())
        .args([
            "tables",
            "stats",
            "--game",
            "adjito",
            "--dir",
            "t",
            "--out",
            "nowhere/s.md",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("nowhere/s.md"));
    assert!(!d.path().join("nowhere").exists());
}

/// A huge `--eval` or `--exclude` file is refused before it is read; both
/// used to be read whole (2 GB of memory for a sparse 2 GB file).
#[test]
fn huge_model_and_exclusion_files_are_refused_unread() {
    let d = tempfile::tempdir().unwrap();
    let big = d.path().join("big");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(1 << 30)
        .unwrap();
    let refused = |args: &[&str], opt: &str| {
        let o = adji(d.path())
            .args(args)
            .timeout(Duration::from_secs(20))
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1), "{o:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(opt) && err.contains("more than"), "{err}");
    };
    let analyse = "analyse --game adjito --no-tables --nodes 1000 --eval big";
    refused(&analyse.split(' ').collect::<Vec<_>>(), "--eval");
    tables(d.path(), "4");
    let train = "eval train --game adjito --dir t --out m.json --min-level 3 --max-level 4 \
                 --per-level 10 --exclude big";
    refused(&train.split_whitespace().collect::<Vec<_>>(), "--exclude");
}

/// Runs `adji args` in `dir` with standard output closed before it writes.
fn with_stdout_closed(dir: &Path, args: &[&str]) -> std::process::ExitStatus {
    let mut child = Std::new(ADJI)
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    child.wait().unwrap()
}

/// `tables verify | head -1` exits 1 on bad tables: once the reader is
/// gone, verification goes on without printing. It used to stop at the
/// closed pipe and exit 0.
#[test]
fn verify_fails_on_bad_tables_with_its_output_closed() {
    let d = tempfile::tempdir().unwrap();
    tables(d.path(), "4");
    let f = d.path().join("t/adjito-start-003.adjt");
    let mut b = std::fs::read(&f).unwrap();
    b[64] ^= 1;
    std::fs::write(&f, b).unwrap();
    let args = ["tables", "verify", "--game", "adjito", "--dir", "t"];
    assert_eq!(with_stdout_closed(d.path(), &args).code(), Some(1));
    // Good tables still pass with the output closed.
    tables(d.path(), "4");
    assert_eq!(with_stdout_closed(d.path(), &args).code(), Some(0));
}

/// A batch whose first line fails still exits 1 when its output is closed
/// (it used to exit 0).
#[test]
fn a_failed_batch_line_fails_the_command_with_its_output_closed() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("pf.txt"),
        "garbage\n1,0,0,0,0,0/0,0,0,0,0,1 B 23-23\n",
    )
    .unwrap();
    let args = ["solve", "--no-tables", "--positions-file", "pf.txt"];
    assert_eq!(with_stdout_closed(d.path(), &args).code(), Some(1));
}

/// A size that is no whole number of bytes, or past 2^64, is a usage error
/// naming it: `--memory 0.5` read as 0 B, `--memory 99999999999999999999T`
/// was saturated.
#[test]
fn sizes_out_of_range_are_usage_errors() {
    let d = tempfile::tempdir().unwrap();
    for bad in ["0.5", "99999999999999999999T", "0"] {
        let o = adji(d.path())
            .args(["solve", "--no-tables", "--memory", bad])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{bad}: {o:?}");
        assert!(String::from_utf8_lossy(&o.stderr).contains(bad), "{o:?}");
    }
}

/// `--resume` into a folder holding another run's reports but no
/// checkpoint is refused: there is nothing to resume, and the reports were
/// silently overwritten.
#[test]
fn resume_without_a_checkpoint_does_not_overwrite_reports() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join("o")).unwrap();
    std::fs::write(d.path().join("o/lines.csv"), "mine\n").unwrap();
    let o = adji(d.path())
        .args([
            "openings",
            "--position",
            "1,0,0,0,0,1/0,1,0,2,1,1 B 20-21",
            "--plies",
            "1",
            "--exact",
            "--no-tables",
            "--out",
            "o",
            "--resume",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("no checkpoint"),
        "{o:?}"
    );
    assert_eq!(
        std::fs::read_to_string(d.path().join("o/lines.csv")).unwrap(),
        "mine\n"
    );
}

/// A huge move name is quoted with a bound in replay's error (it was echoed
/// whole, twice: 100,215 bytes of error for a 100,000-byte token).
#[test]
fn a_huge_move_name_is_quoted_short() {
    let d = tempfile::tempdir().unwrap();
    let token = "x".repeat(100_000);
    let o = adji(d.path())
        .args(["replay", "--moves", &token])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{:?}", o.status);
    assert!(o.stderr.len() < 1000, "{} bytes of error", o.stderr.len());
}

/// `perft --depth 0` counts one node and prints no rate (it printed
/// millions of nodes/s, a measure of the clock).
#[test]
fn perft_at_depth_zero_prints_no_rate() {
    let d = tempfile::tempdir().unwrap();
    let o = adji(d.path())
        .args(["perft", "--depth", "0"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), "nodes 1");
    assert!(
        !String::from_utf8_lossy(&o.stderr).contains("nodes/s"),
        "{o:?}"
    );
}
