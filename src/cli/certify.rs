//! `certify` (write a certificate of a position's value) and `certify
//! check` (verify one with the independent checker); the format and the
//! proof rules are in `adji::certify`.

use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::{Args, Subcommand};
use serde::Serialize;

use adji::certify::check::{check_records, read_checksum_list, tables_status, TablesStatus};
use adji::certify::Records;
use adji::notation::Stores;
use adji::oracle::{jobs, Posed};
use adji::rules::RuleSet;
use adji::search::Options;
use adji::tables::OpenCheck;

use crate::args::{ComputeArgs, JsonArg, PosArgs, RuleArg};
use crate::error::CliError;
use crate::out;
use crate::setup::{set_threads, SearchPlan};

/// Options of `certify`.
#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct CertifyArgs {
    #[command(subcommand)]
    pub command: Option<CertifyCommand>,
    #[command(flatten)]
    pub make: MakeArgs,
}

/// `certify check`.
#[derive(Subcommand, Debug)]
pub enum CertifyCommand {
    /// Verify a certificate with the independent checker: exit 0 only if it
    /// holds and every table level it reads matches the checksum list named
    /// with --checksums (exit statuses: docs/CERTIFICATES.md).
    Check(CheckArgs),
}

/// Options of writing a certificate.
#[derive(Args, Debug)]
pub struct MakeArgs {
    #[command(flatten)]
    pub pos: PosArgs,
    /// Certify this move's value instead of the position's (e.g. 2B).
    #[arg(long = "move", value_name = "MOVE")]
    pub first: Option<String>,
    /// The value to prove [default: the exact value].
    #[arg(long, allow_negative_numbers = true)]
    pub value: Option<i32>,
    /// Endgame tables directory (the certificate's leaves name its entries).
    #[arg(long, value_name = "DIR", required = true)]
    pub tables: Option<PathBuf>,
    /// Use table levels 0..=N only [default: every level present].
    #[arg(long, value_name = "N")]
    pub max_level: Option<u32>,
    #[command(flatten)]
    pub rule: RuleArg,
    #[command(flatten)]
    pub compute: ComputeArgs,
    /// The certificate file to write (atomically).
    #[arg(long, value_name = "FILE", required = true)]
    pub out: Option<PathBuf>,
}

/// Options of `certify check`.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// The certificate file.
    pub file: PathBuf,
    /// Endgame tables directory.
    #[arg(long, value_name = "DIR")]
    pub tables: PathBuf,
    /// The SHA-256 list of the verified table files to trust (as `adji
    /// tables checksum` writes it); without it no table is trusted and the
    /// exit status says so.
    #[arg(long, value_name = "FILE")]
    pub checksums: Option<PathBuf>,
    #[command(flatten)]
    pub out: JsonArg,
}

/// The verdict of `certify check`, and its exit status (the table in
/// docs/CERTIFICATES.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Sound, and every table level it reads matches the named list (or it
    /// reads none): exit 0.
    Proved,
    /// Not sound, or not a certificate: exit 1.
    Rejected,
    /// Sound, but a level it reads differs from the named list, is not in
    /// it, or the list cannot be read whole: exit 3.
    TablesNotVerified,
    /// Sound, but it reads table levels and no list was named: exit 4.
    NoChecksumList,
}

impl Verdict {
    /// The exit status (2 is the usage error's).
    pub fn code(self) -> u8 {
        match self {
            Verdict::Proved => 0,
            Verdict::Rejected => 1,
            Verdict::TablesNotVerified => 3,
            Verdict::NoChecksumList => 4,
        }
    }
}

/// `certify` and `certify check`.
pub fn certify(a: &CertifyArgs) -> Result<(), CliError> {
    match &a.command {
        Some(CertifyCommand::Check(c)) => check_file(c),
        None => {
            let threads = set_threads(a.make.compute.threads)?;
            make(&a.make, a.make.pos.game.rule_set()?, threads)
        }
    }
}

fn make(a: &MakeArgs, rules: RuleSet, threads: usize) -> Result<(), CliError> {
    let (dir, out_path) = (
        a.tables.as_deref().expect("required"),
        a.out.as_deref().expect("required"),
    );
    let rule = a.rule.rule();
    let t0 = Instant::now();
    let tables = match a.max_level {
        Some(n) => adji::oracle::tables::open_levels(rules, dir, rule, n)?,
        None => adji::oracle::tables::open(rules, dir, rule, OpenCheck::Full)?,
    };
    if tables.covered() == 0 {
        return Err(CliError::Input(format!(
            "--tables {}: {}",
            dir.display(),
            crate::setup::no_tables_found(dir, rules, rule)
        )));
    }
    let p = Posed::parse(rules, &a.pos.position, Stores::Optional)?;
    let first = match &a.first {
        Some(m) => Some(
            p.parse_move(m)
                .map_err(|e| CliError::Input(format!("--move: {e}")))?,
        ),
        None => None,
    };
    if let Some(m) = first.filter(|m| !p.legal_moves().contains(m)) {
        return Err(CliError::Input(format!(
            "--move: {} is not legal here",
            p.move_name(m)
        )));
    }
    let plan = SearchPlan::new(1, a.compute.hash, Some(&tables), a.compute.memory)?;
    let tt = plan.table()?;
    let opts = Options {
        rule,
        parallel: threads > 1,
        ..Options::default()
    };
    let mut last = Instant::now();
    let progress = Box::new(move |nodes, solves| {
        if last.elapsed().as_secs() >= 10 {
            last = Instant::now();
            out::note(format_args!(
                "{nodes} nodes made, {solves} oracle searches, {:.0} s",
                t0.elapsed().as_secs_f64()
            ));
        }
    });
    // The writer recurses once per move of a stretch: a thread with room.
    let made = std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(1 << 30)
            .spawn_scoped(s, || {
                jobs::certify(&p, &tables, &tt, opts, first, a.value, progress)
            })
            .map_err(|e| CliError::Failed(format!("starting the writer: {e}")))?
            .join()
            .map_err(|_| CliError::Failed("the writer panicked".into()))
    })??;
    // Damage first: a writer that failed on it says why.
    tables.check_damage()?;
    let (cert, solves) = made.map_err(|e| CliError::Failed(e.to_string()))?;
    let bytes = cert.encode();
    adji::fsutil::write_atomic(out_path, &bytes).map_err(CliError::file(out_path))?;
    out::print(format_args!(
        "wrote {}: value {} of {}{} ({} rules, --loop {}), {} nodes, {} bytes, tables 0..={}, \
         {solves} oracle searches, {:.1} s\n",
        out_path.display(),
        cert.value,
        first.map_or(String::new(), |m| format!("move {} of ", p.move_name(m))),
        p.notation(),
        rules.name(),
        rule.name(),
        cert.nodes.len(),
        bytes.len(),
        tables.covered() - 1,
        t0.elapsed().as_secs_f64()
    ))
}

/// What `certify check` reports (one JSON line with `--json`).
#[derive(Serialize)]
struct CheckReport {
    verdict: Verdict,
    file: String,
    /// Why the certificate was rejected.
    #[serde(skip_serializing_if = "Option::is_none")]
    rejected: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    game: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rules: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    loop_rule: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    value: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    of: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    nodes: Option<usize>,
    levels: Vec<u32>,
    /// The checksum list trusted, as named with `--checksums` (none: null).
    checksums: Option<String>,
    /// What the tables are: "none used", "verified", "not verified" or
    /// "no checksum list".
    tables: &'static str,
    /// The levels (or the list) that could not be verified, and why.
    not_verified: Vec<String>,
}

fn check_file(a: &CheckArgs) -> Result<(), CliError> {
    let t0 = Instant::now();
    let bytes = read_certificate(&a.file)?;
    let sums_name = a.checksums.as_ref().map(|p| p.display().to_string());
    let rejected = |e: String| {
        if a.out.json {
            out::print(format_args!(
                "{}\n",
                serde_json::to_string(&CheckReport {
                    verdict: Verdict::Rejected,
                    file: a.file.display().to_string(),
                    rejected: Some(e),
                    game: None,
                    rules: None,
                    loop_rule: None,
                    value: None,
                    of: None,
                    nodes: None,
                    levels: Vec::new(),
                    checksums: sums_name.clone(),
                    tables: "none used",
                    not_verified: Vec::new(),
                })?
            ))?;
            return Err(CliError::Status(Verdict::Rejected.code()));
        }
        Err(CliError::Failed(format!(
            "{}: rejected: {e}",
            a.file.display()
        )))
    };
    // The records stay in the file's bytes: a check holds at most about 4
    // times the file (adji::certify::Records).
    let rec = match Records::parse(&bytes) {
        Ok(r) => r,
        Err(e) => return rejected(e.to_string()),
    };
    let cert = rec.head;
    let acc = match check_records(&rec, &a.tables) {
        Ok(acc) => acc,
        Err(e) => return rejected(e.to_string()),
    };
    let checked = t0.elapsed().as_secs_f64();
    // Only the list the user named is trusted; a list that cannot be read
    // whole verifies nothing. The certificate's check stands either way.
    let status = match (&a.checksums, acc.levels.is_empty()) {
        (_, true) => TablesStatus::Unused,
        (None, false) => TablesStatus::NotVerified(Vec::new()),
        (Some(path), false) => match read_checksum_list(path) {
            Ok(recorded) => tables_status(cert.rules, cert.rule, &a.tables, &acc.levels, &recorded)
                .unwrap_or_else(|e| TablesStatus::NotVerified(vec![e.to_string()])),
            Err(why) => TablesStatus::NotVerified(vec![why.to_string()]),
        },
    };
    let (verdict, tables, not_verified) = match (&status, &a.checksums) {
        (TablesStatus::Unused, _) => (Verdict::Proved, "none used", Vec::new()),
        (TablesStatus::Verified, _) => (Verdict::Proved, "verified", Vec::new()),
        (TablesStatus::NotVerified(_), None) => {
            (Verdict::NoChecksumList, "no checksum list", Vec::new())
        }
        (TablesStatus::NotVerified(why), Some(_)) => {
            (Verdict::TablesNotVerified, "not verified", why.clone())
        }
    };
    let report = CheckReport {
        verdict,
        file: a.file.display().to_string(),
        rejected: None,
        game: Some(cert.game().to_string()),
        rules: Some(cert.rules.name().to_string()),
        loop_rule: Some(cert.rule.name().to_string()),
        value: Some(cert.value),
        of: Some(jobs::certificate_root(&cert)),
        nodes: Some(acc.nodes),
        levels: acc.levels.clone(),
        checksums: sums_name,
        tables,
        not_verified,
    };
    if a.out.json {
        out::print(format_args!("{}\n", serde_json::to_string(&report)?))?;
    } else {
        out::print(format_args!(
            "{}: {} ({} rules, --loop {}): value {} of {}\n\
             {} nodes: {} table leaves, {} game ends, {} on loop-safe quiet cycles; table levels {}\n\
             checksums: {}\ntables: {}\nchecked in {checked:.2} s (checksums {:.2} s more)\n",
            verdict_text(verdict),
            a.file.display(),
            cert.rules.name(),
            cert.rule.name(),
            cert.value,
            jobs::certificate_root(&cert),
            acc.nodes,
            acc.table_leaves,
            acc.end_leaves,
            acc.on_cycles,
            levels_text(&acc.levels),
            a.checksums
                .as_ref()
                .map_or("none named (--checksums LIST)".into(), |p| p
                    .display()
                    .to_string()),
            status_text(&status, &a.tables, a.checksums.as_deref()),
            t0.elapsed().as_secs_f64() - checked
        ))?;
    }
    match verdict {
        Verdict::Proved => Ok(()),
        v => Err(CliError::Status(v.code())),
    }
}

/// The first word of the text report.
fn verdict_text(v: Verdict) -> &'static str {
    match v {
        Verdict::Proved => "proved",
        Verdict::Rejected => "rejected",
        Verdict::TablesNotVerified => "sound, tables not verified",
        Verdict::NoChecksumList => "sound, tables not verified (no checksum list)",
    }
}

/// The largest certificate file read ([`adji::certify::MAX_BYTES`]).
const MAX_CERT_BYTES: u64 = adji::certify::MAX_BYTES as u64;

/// A certificate file's bytes: a regular file (a FIFO or device is refused
/// before it is opened, so nothing blocks) of at most [`MAX_CERT_BYTES`].
fn read_certificate(path: &Path) -> Result<Vec<u8>, CliError> {
    use std::io::Read;
    let f = adji::fsutil::open_regular(path).map_err(CliError::file(path))?;
    let len = f.metadata().map_err(CliError::file(path))?.len();
    if len > MAX_CERT_BYTES {
        return Err(CliError::Input(format!(
            "{}: {len} bytes, more than a certificate may hold ({MAX_CERT_BYTES})",
            path.display()
        )));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    f.take(MAX_CERT_BYTES)
        .read_to_end(&mut bytes)
        .map_err(CliError::file(path))?;
    Ok(bytes)
}

fn levels_text(levels: &[u32]) -> String {
    match (levels.first(), levels.last()) {
        (Some(a), Some(b)) => format!("{a}..={b} ({} levels read)", levels.len()),
        _ => "none".into(),
    }
}

fn status_text(s: &TablesStatus, dir: &Path, sums: Option<&Path>) -> String {
    match (s, sums) {
        (TablesStatus::Unused, _) => "none used".into(),
        (TablesStatus::Verified, Some(sums)) => format!(
            "verified: every level read has the SHA-256 listed in {}",
            sums.display()
        ),
        (TablesStatus::Verified, None) | (TablesStatus::NotVerified(_), None) => {
            "not verified: no checksum list named, so no table is trusted".into()
        }
        (TablesStatus::NotVerified(why), Some(_)) => {
            let more = match why.len() {
                0..=3 => String::new(),
                n => format!(" and {} more", n - 3),
            };
            format!(
                "not verified ({}{more}) — run adji tables verify --dir {}",
                why[..why.len().min(3)].join(", "),
                dir.display()
            )
        }
    }
}
