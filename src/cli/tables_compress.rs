//! `tables compress` and `tables decompress`: a directory of levels to
//! compressed levels (`.adjz`) and back, with a plan printed first
//! (levels, disk needed, time projected from a measured sample) that is
//! refused when it does not fit the free disk, a progress bar, and a
//! line per level. The work is the library's
//! ([`adji::tables::convert::compress`]).

use std::ops::RangeInclusive;
use std::path::PathBuf;

use clap::Args;

use adji::rules::RuleSet;
use adji::tables::compressed::{Codec, Transform};
use adji::tables::convert::compress::{plan, run, Direction, Plan};

use crate::args::{RuleArg, TableGamesArgs, ThreadsArg};
use crate::error::CliError;
use crate::out;
use crate::setup::set_threads;
use crate::util::{bar, fmt_bytes, Bar};

/// Options of `tables compress` and `tables decompress`.
#[derive(Args, Debug)]
pub struct ConvertArgs {
    #[command(flatten)]
    pub game: TableGamesArgs,
    /// Directory of the levels to read.
    #[arg(long)]
    pub dir: PathBuf,
    /// Directory to write to (made when missing; may be --dir itself).
    #[arg(long)]
    pub out: PathBuf,
    /// Only these levels, e.g. 16-20 (also 16..20) or 18 [default: every
    /// level present].
    #[arg(long, value_name = "A-B", value_parser = crate::args::parse_levels)]
    pub levels: Option<std::ops::RangeInclusive<u32>>,
    #[command(flatten)]
    pub rule: RuleArg,
    #[command(flatten)]
    pub threads: ThreadsArg,
    /// Entries per block (compress; for tests and measurements).
    #[arg(long, hide = true, value_parser = clap::value_parser!(u32).range(1..=1 << 16))]
    pub block: Option<u32>,
    /// zstd level (compress; for tests and measurements).
    #[arg(long, hide = true, value_parser = clap::value_parser!(i32).range(1..=22))]
    pub zstd_level: Option<i32>,
    /// Transform before zstd (compress): none (the default), or dontcare:
    /// where a capture is best the byte stored is free, so levels shrink
    /// 1.4-1.5 times more, but a probe reads the levels below and a level
    /// is read only with them beside it (docs/TABLES.md); also delta,
    /// sides, sides+delta, for measurements.
    #[arg(long)]
    pub transform: Option<String>,
    /// Take the free disk as this many bytes instead of asking the file
    /// system (for tests of the refusal).
    #[arg(long, hide = true, value_parser = crate::util::parse_size)]
    pub free_disk: Option<u64>,
}

impl ConvertArgs {
    /// The codec asked for (compress).
    fn codec(&self) -> Result<Codec, CliError> {
        let c = Codec::chosen();
        let transform = match &self.transform {
            None => c.transform,
            Some(name) => *Transform::ALL
                .iter()
                .chain([&Transform::DontCare])
                .find(|t| t.name() == name)
                .ok_or_else(|| {
                    CliError::Input(format!(
                        "--transform {name}: not one of none, delta, sides, sides+delta, dontcare"
                    ))
                })?,
        };
        Ok(Codec {
            block: self.block.unwrap_or(c.block),
            level: self.zstd_level.unwrap_or(c.level),
            transform,
        })
    }
}

/// `tables compress`.
pub fn compress(a: &ConvertArgs) -> Result<(), CliError> {
    set_threads(a.threads)?;
    convert(a, Direction::Compress(a.codec()?))
}

/// `tables decompress`.
pub fn decompress(a: &ConvertArgs) -> Result<(), CliError> {
    set_threads(a.threads)?;
    convert(a, Direction::Decompress)
}

/// Plans every table family asked for (every one the directory holds,
/// without `--game`), prints the plans, checks the disk, and runs them.
fn convert(a: &ConvertArgs, direction: Direction) -> Result<(), CliError> {
    let rule = a.rule.rule();
    adji::fsutil::require_dir(&a.dir).map_err(|e| CliError::Input(format!("--dir: {e}")))?;
    let levels = a.levels.clone().map(|r| (*r.start(), *r.end()));
    let mut plans = Vec::new();
    for rules in a.game.families(&a.dir, rule)? {
        let p = plan(&a.dir, &a.out, rules, rule, levels, direction)?;
        // Without --game, a family with nothing of this form is no error.
        if !p.jobs.is_empty() || a.game.game.is_some() {
            plans.push((rules, p));
        }
    }
    let form = match direction {
        Direction::Compress(_) => "level files or shards",
        Direction::Decompress => "compressed levels (.adjz)",
    };
    let what = |rules: Option<RuleSet>| {
        format!(
            "{}--loop {}{} in {}",
            rules.map_or(String::new(), |r| format!("{} ", r.command_line())),
            rule.name(),
            a.levels.as_ref().map_or(String::new(), |r| format!(
                " at levels {}-{}",
                r.start(),
                r.end()
            )),
            a.dir.display()
        )
    };
    if plans.iter().all(|(_, p)| p.jobs.is_empty()) {
        let rules = plans.first().map(|(r, _)| *r);
        return Err(CliError::Input(format!("no {form} of {}", what(rules))));
    }
    let mut log = out::Log::default();
    for (rules, p) in &plans {
        print_plan(&mut log, *rules, p, a.levels.as_ref())?;
    }
    let need: u64 = plans.iter().map(|(_, p)| p.need).sum();
    if plans.iter().any(|(_, p)| p.jobs.iter().any(|j| !j.done)) {
        check_disk(a, need)?;
    }
    for (rules, p) in &plans {
        run_plan(&mut log, *rules, p, a)?;
    }
    Ok(())
}

/// Refuses a run that needs more than the free disk in `--out`.
fn check_disk(a: &ConvertArgs, need: u64) -> Result<(), CliError> {
    let file = |source| CliError::File {
        path: a.out.clone(),
        source,
    };
    adji::fsutil::create_dir_all(&a.out).map_err(file)?;
    let free = match a.free_disk {
        Some(f) => f,
        None => adji::fsutil::free_bytes(&a.out).map_err(file)?,
    };
    if need > free {
        return Err(CliError::Input(format!(
            "the plan needs {} of disk in {} but only {} is free; free some space or \
             convert fewer levels with --levels",
            fmt_bytes(need),
            a.out.display(),
            fmt_bytes(free)
        )));
    }
    Ok(())
}

/// Runs one family's plan, a line per level.
fn run_plan(log: &mut out::Log, rules: RuleSet, p: &Plan, a: &ConvertArgs) -> Result<(), CliError> {
    let pb = Bar(bar(0, "positions"));
    let mut lines = Vec::new();
    let done = run(p, rules, a.rule.rule(), &pb, |c| {
        lines.push(if c.skipped {
            format!(
                "level {:>3}: already done, checked ({})\n",
                c.level,
                fmt_bytes(c.to_bytes)
            )
        } else {
            format!(
                "level {:>3}: {} -> {} ({:.2}x) in {:.1}s\n",
                c.level,
                fmt_bytes(c.from_bytes),
                fmt_bytes(c.to_bytes),
                c.from_bytes as f64 / c.to_bytes.max(1) as f64,
                c.secs
            )
        });
    });
    pb.0.finish_and_clear();
    for l in &lines {
        log.print(l)?;
    }
    let done = done?;
    let written = done.iter().filter(|c| !c.skipped).count();
    log.print(format_args!(
        "{written} written, {} already done, in {}\n",
        done.len() - written,
        a.out.display()
    ))?;
    Ok(())
}

/// The plan: one line per level, then the totals; the levels asked for
/// with `--levels` that are not there are named.
fn print_plan(
    log: &mut out::Log,
    rules: RuleSet,
    p: &Plan,
    asked: Option<&RangeInclusive<u32>>,
) -> Result<(), CliError> {
    let what = match p.direction {
        Direction::Compress(c) => format!(
            "compress (zstd {}, blocks of {} entries, transform {})",
            c.level,
            c.block,
            c.transform.name()
        ),
        Direction::Decompress => "decompress".to_string(),
    };
    log.print(format_args!(
        "plan: {what}, {} tables\n",
        adji::report::tables_label(rules)
    ))?;
    for j in &p.jobs {
        log.print(format_args!(
            "  level {:>3}: {} raw, {} -> {}{}\n",
            j.level,
            fmt_bytes(j.raw_bytes),
            j.source.display(),
            j.to.display(),
            if j.done { " (already done)" } else { "" }
        ))?;
    }
    let todo = p.jobs.iter().filter(|j| !j.done).count();
    log.print(format_args!(
        "  {todo} of {} levels to do: about {} of disk, about {:.0}s ({:.1} MB/s a core measured on a sample, {} threads)\n",
        p.jobs.len(),
        fmt_bytes(p.need),
        p.secs,
        p.rate / 1e6,
        rayon::current_num_threads()
    ))?;
    if let Some(r) = asked {
        let absent: Vec<u32> = r
            .clone()
            .filter(|n| p.jobs.iter().all(|j| j.level != *n))
            .collect();
        if !absent.is_empty() {
            log.print(format_args!(
                "  not there, so not converted: level{} {}\n",
                if absent.len() > 1 { "s" } else { "" },
                ranges(&absent)
            ))?;
        }
    }
    Ok(())
}

/// Ascending levels as runs: `3, 5-9, 12`.
fn ranges(levels: &[u32]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < levels.len() {
        let mut j = i;
        while j + 1 < levels.len() && levels[j + 1] == levels[j] + 1 {
            j += 1;
        }
        out.push(match i == j {
            true => levels[i].to_string(),
            false => format!("{}-{}", levels[i], levels[j]),
        });
        i = j + 1;
    }
    out.join(", ")
}
