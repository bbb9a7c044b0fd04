//! `tables compress` and `tables decompress`: a directory of levels to
//! compressed levels (`.adjz`) and back, with a plan printed first
//! (levels, disk needed, time projected from a measured sample) that is
//! refused when it does not fit the free disk, a progress bar, and a
//! line per level. The work is the library's
//! ([`adji::tables::compressed::convert`]).

use std::path::PathBuf;

use clap::Args;

use adji::game::Game;
use adji::tables::compressed::convert::{plan, run, Direction, Plan};
use adji::tables::compressed::{Codec, Transform};

use crate::args::{GameRulesArgs, RuleArg, ThreadsArg};
use crate::error::CliError;
use crate::setup::set_threads;
use crate::util::{bar, fmt_bytes, Bar};
use crate::{dispatch, out};

/// Options of `tables compress` and `tables decompress`.
#[derive(Args, Debug)]
pub struct ConvertArgs {
    #[command(flatten)]
    pub game: GameRulesArgs,
    /// Directory of the levels to read.
    #[arg(long)]
    pub dir: PathBuf,
    /// Directory to write to (made when missing; may be --dir itself).
    #[arg(long)]
    pub out: PathBuf,
    /// Only these levels, e.g. 16-20 or 18 [default: every level present].
    #[arg(long, value_name = "A-B", value_parser = parse_levels)]
    pub levels: Option<(u32, u32)>,
    #[command(flatten)]
    pub rule: RuleArg,
    #[command(flatten)]
    pub threads: ThreadsArg,
    /// Entries per block (compress; for tests and measurements).
    #[arg(long, hide = true, value_parser = clap::value_parser!(u32).range(1..=1 << 20))]
    pub block: Option<u32>,
    /// zstd level (compress; for tests and measurements).
    #[arg(long, hide = true, value_parser = clap::value_parser!(i32).range(1..=22))]
    pub zstd_level: Option<i32>,
    /// Transform before zstd: none, delta, sides, sides+delta (compress;
    /// for tests and measurements).
    #[arg(long, hide = true)]
    pub transform: Option<String>,
    /// Take the free disk as this many bytes instead of asking the file
    /// system (for tests of the refusal).
    #[arg(long, hide = true, value_parser = crate::util::parse_size)]
    pub free_disk: Option<u64>,
}

/// `A-B` or `A`: a range of levels.
fn parse_levels(s: &str) -> Result<(u32, u32), String> {
    let num = |x: &str| {
        x.trim()
            .parse::<u32>()
            .map_err(|_| format!("`{s}` is not a level or a range of levels such as 16-20"))
    };
    let (a, b) = match s.split_once('-') {
        Some((a, b)) => (num(a)?, num(b)?),
        None => (num(s)?, num(s)?),
    };
    if a > b {
        return Err(format!("`{s}`: the range is empty ({a} > {b})"));
    }
    Ok((a, b))
}

impl ConvertArgs {
    /// The codec asked for (compress).
    fn codec(&self) -> Result<Codec, CliError> {
        let c = Codec::chosen();
        let transform = match &self.transform {
            None => c.transform,
            Some(name) => *Transform::ALL
                .iter()
                .find(|t| t.name() == name)
                .ok_or_else(|| {
                    CliError::Input(format!(
                        "--transform {name}: not one of none, delta, sides, sides+delta"
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
    let d = Direction::Compress(a.codec()?);
    dispatch!(a.game, convert(a, d))
}

/// `tables decompress`.
pub fn decompress(a: &ConvertArgs) -> Result<(), CliError> {
    set_threads(a.threads)?;
    dispatch!(a.game, convert(a, Direction::Decompress))
}

/// Plans, prints the plan, checks the disk, and runs.
fn convert<G: Game>(a: &ConvertArgs, direction: Direction) -> Result<(), CliError> {
    let (rules, rule) = (G::RULES.tables(), a.rule.rule());
    adji::fsutil::require_dir(&a.dir).map_err(|e| CliError::Input(format!("--dir: {e}")))?;
    let p = plan(&a.dir, &a.out, rules, rule, a.levels, direction)?;
    let form = match direction {
        Direction::Compress(_) => "level files or shards",
        Direction::Decompress => "compressed levels (.adjz)",
    };
    if p.jobs.is_empty() {
        return Err(CliError::Input(format!(
            "no {form} of {} --loop {}{} in {}",
            rules.command_line(),
            rule.name(),
            a.levels
                .map_or(String::new(), |(x, y)| format!(" at levels {x}-{y}")),
            a.dir.display()
        )));
    }
    let mut log = out::Log::default();
    print_plan(&mut log, &p)?;
    let todo = p.jobs.iter().filter(|j| !j.done).count();
    if todo > 0 {
        adji::fsutil::create_dir_all(&a.out).map_err(|e| CliError::File {
            path: a.out.clone(),
            source: e,
        })?;
        let free = match a.free_disk {
            Some(f) => f,
            None => adji::fsutil::free_bytes(&a.out).map_err(|e| CliError::File {
                path: a.out.clone(),
                source: e,
            })?,
        };
        if p.need > free {
            return Err(CliError::Input(format!(
                "the plan needs {} of disk in {} but only {} is free; free some space or \
                 convert fewer levels with --levels",
                fmt_bytes(p.need),
                a.out.display(),
                fmt_bytes(free)
            )));
        }
    }
    let pb = Bar(bar(0, "positions"));
    let mut lines = Vec::new();
    let done = run(&p, rules, rule, &pb, |c| {
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

/// The plan: one line per level, then the totals.
fn print_plan(log: &mut out::Log, p: &Plan) -> Result<(), CliError> {
    let what = match p.direction {
        Direction::Compress(c) => format!(
            "compress (zstd {}, blocks of {} entries, transform {})",
            c.level,
            c.block,
            c.transform.name()
        ),
        Direction::Decompress => "decompress".to_string(),
    };
    log.print(format_args!("plan: {what}\n"))?;
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
    ))
}
