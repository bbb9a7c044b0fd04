//! Compressing and decompressing directories of levels: the plan (which
//! levels, which are already done and checked, the disk they need and
//! the time projected from a measured sample) and the run, one level at
//! a time, each written atomically. `adji tables compress | decompress`
//! print the plan and drive the run; this module has no terminal.

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::fsutil::write_atomic_with;
use crate::progress::Progress;
use crate::rules::RuleSet;
use crate::tables::compressed::codec::{decode_block, encode_block, BlockPlace};
use crate::tables::compressed::format::{
    level_path as zpath, raw_file_crc, write_compressed_with, Codec, ROUND_BYTES,
};
use crate::tables::compressed::reader::Compressed;
use crate::tables::dontcare::{fill, needs_lower, Fill};
use crate::tables::error::TableError;
use crate::tables::format::{level_path, pits_of};
use crate::tables::locate::{level_source, levels_present};
use crate::tables::lock::BuildLock;
use crate::tables::payload::OpenCheck;
use crate::tables::table::Table;
use crate::value::LoopRule;

/// Which way a plan converts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Raw (level file or shards) to `.adjz`, with this codec.
    Compress(Codec),
    /// `.adjz` to raw level files.
    Decompress,
}

/// One level of a plan.
#[derive(Clone, Debug)]
pub struct Job {
    /// The level.
    pub level: u32,
    /// The path the level is opened by (its level file's name when
    /// compressing, which the opener follows to the shards or the
    /// compressed file when there is no level file).
    pub from: PathBuf,
    /// What is read, as [`locate_level`](crate::tables::locate::locate_level)
    /// names it: the level file, the shards' manifest or the compressed file.
    pub source: PathBuf,
    /// What is written.
    pub to: PathBuf,
    /// Bytes of the raw level file.
    pub raw_bytes: u64,
    /// Whether the output is already there and checks (then skipped).
    pub done: bool,
}

/// What a conversion will do, before it does it.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Which way.
    pub direction: Direction,
    /// The directory written to.
    pub out: PathBuf,
    /// Every level asked for that is present, ascending.
    pub jobs: Vec<Job>,
    /// Disk bytes the levels to do will take (estimated from the sample
    /// ratio with a quarter's margin when compressing; exact when
    /// decompressing).
    pub need: u64,
    /// Raw bytes per second per core of the sample.
    pub rate: f64,
    /// Seconds projected on the current pool's threads.
    pub secs: f64,
}

/// The raw CRC-32 of a table's level file (from its header: no pass).
fn table_raw_crc(t: &Table) -> u32 {
    let payload = t.header.file_len() - crate::tables::format::HEADER_LEN as u64;
    raw_file_crc(&t.raw_header(), t.header.payload_crc, payload)
}

/// Plans converting the levels of `rules`/`rule` in `dir` (those in
/// `levels`, when given) into `out`. The headers of the sources are
/// checked; an output already there is checked in full and marked done
/// when it stands for the same raw file.
///
/// # Errors
/// A source that does not open, or a directory that cannot be listed.
pub fn plan(
    dir: &Path,
    out: &Path,
    rules: RuleSet,
    rule: LoopRule,
    levels: Option<(u32, u32)>,
    direction: Direction,
) -> Result<Plan, TableError> {
    let rules = rules.tables();
    let pits = pits_of(rules.game());
    let mut jobs = Vec::new();
    for n in levels_present(dir, rules, rule)?.levels {
        if levels.is_some_and(|(a, b)| n < a || n > b) {
            continue;
        }
        let job = match direction {
            Direction::Compress(_) => {
                let from = level_path(dir, rules, rule, n);
                let t = Table::open_checked(&from, rules, rule, n, pits, OpenCheck::Header)?;
                let to = zpath(out, rules, rule, n);
                let done = Compressed::open(&to, rules, rule, n, OpenCheck::Full)
                    .is_ok_and(|c| c.raw_crc() == table_raw_crc(&t));
                Job {
                    level: n,
                    from,
                    source: level_source(dir, rules, rule, n),
                    to,
                    raw_bytes: t.header.file_len(),
                    done,
                }
            }
            Direction::Decompress => {
                let from = zpath(dir, rules, rule, n);
                if !from.exists() {
                    continue;
                }
                let c = Compressed::open(&from, rules, rule, n, OpenCheck::Header)?;
                let to = level_path(out, rules, rule, n);
                let done = Table::open(&to, rules, rule, n, pits)
                    .is_ok_and(|t| !t.is_compressed() && table_raw_crc(&t) == c.raw_crc());
                Job {
                    level: n,
                    source: from.clone(),
                    from,
                    to,
                    raw_bytes: c.header.file_len(),
                    done,
                }
            }
        };
        jobs.push(job);
    }
    let todo: Vec<&Job> = jobs.iter().filter(|j| !j.done).collect();
    let raw: u64 = todo.iter().map(|j| j.raw_bytes).sum();
    let (rate, ratio) = match todo.iter().max_by_key(|j| j.raw_bytes) {
        Some(j) => sample(j, rules, rule, direction)?,
        None => (f64::INFINITY, 1.0),
    };
    let need = match direction {
        Direction::Compress(_) => (raw as f64 / ratio * 1.25) as u64,
        Direction::Decompress => raw,
    };
    let threads = rayon::current_num_threads().max(1) as f64;
    Ok(Plan {
        direction,
        out: out.to_path_buf(),
        secs: raw as f64 / rate / threads,
        jobs,
        need,
        rate,
    })
}

/// Raw bytes per second on one core, and the ratio, of converting up to
/// 32 blocks spread over `job`'s level.
fn sample(
    job: &Job,
    rules: RuleSet,
    rule: LoopRule,
    direction: Direction,
) -> Result<(f64, f64), TableError> {
    let pits = pits_of(rules.game());
    let t = match direction {
        Direction::Compress(_) => {
            Table::open_checked(&job.from, rules, rule, job.level, pits, OpenCheck::Header)?
        }
        Direction::Decompress => {
            Table::open_compressed(&job.from, rules, rule, job.level, OpenCheck::Header)?
        }
    };
    let codec = match direction {
        Direction::Compress(c) => c,
        Direction::Decompress => t.codec().unwrap_or(Codec::chosen()),
    };
    // A don't-care level reads the levels below: writing it to find its
    // free entries, reading it whole to resolve them.
    let lower = match needs_lower(codec.transform) {
        true => Some(lower_of(&job.from, rules, rule)?),
        false => None,
    };
    let (lower, resolver) = match direction {
        Direction::Compress(_) => (lower, None),
        Direction::Decompress => (None, lower),
    };
    let (n, b) = (t.len() as u64, codec.block.max(1) as u64);
    let blocks = n.div_ceil(b);
    let step = (blocks / 32).max(1);
    let (mut raw, mut stored, mut secs) = (0u64, 0u64, 0f64);
    let mut v = Vec::new();
    for i in (0..blocks).step_by(step as usize) {
        let first = i * b;
        v.resize(b.min(n - first) as usize, 0);
        match direction {
            // A don't-care level's stored bytes time its decoding as well.
            Direction::Decompress => t.stored_into(first as usize, &mut v)?,
            Direction::Compress(_) => t.values_into(first as usize, &mut v)?,
        }
        let at = BlockPlace {
            first,
            level: job.level,
            pits,
        };
        let t0 = Instant::now();
        let io = |e| TableError::Io {
            path: job.from.clone(),
            source: e,
        };
        let s = match &lower {
            // The filling zstd codes shortest, as the writer keeps.
            Some(l) => {
                let free = l.free(job.level, first, &v)?;
                Fill::ALL.map(|how| fill(&v, &free, job.level, how))
            }
            .iter()
            .map(|f| encode_block(f, codec.transform, at, codec.level))
            .collect::<std::io::Result<Vec<_>>>()
            .map_err(io)?
            .into_iter()
            .min_by_key(Vec::len)
            .unwrap_or_default(),
            None => encode_block(&v, codec.transform, at, codec.level).map_err(io)?,
        };
        if direction == Direction::Decompress {
            let t1 = Instant::now();
            let _ = decode_block(&s, codec.transform, at, &mut v);
            if let Some(l) = &resolver {
                l.resolve(job.level, first, &mut v)?;
            }
            secs += t1.elapsed().as_secs_f64();
        } else {
            secs += t0.elapsed().as_secs_f64();
        }
        raw += v.len() as u64;
        stored += s.len() as u64;
    }
    Ok((
        raw as f64 / secs.max(1e-9),
        raw as f64 / stored.max(1) as f64,
    ))
}

/// What one level's conversion did.
#[derive(Clone, Debug)]
pub struct Converted {
    /// The level.
    pub level: u32,
    /// Bytes read (raw file, or the compressed file).
    pub from_bytes: u64,
    /// Bytes written.
    pub to_bytes: u64,
    /// Seconds it took (0 when skipped).
    pub secs: f64,
    /// Skipped: the output was already there and checked.
    pub skipped: bool,
}

/// Carries out `plan`: each level not done is read (checked in full),
/// converted and written atomically, then the output is opened and
/// checked in full against the raw file's checksum. `progress` counts
/// entries of each level; `on_level` is told each level as it ends.
///
/// While it writes it holds the output directory's build lock of the
/// file set ([`BuildLock`]), as `tables build` does: a build of the same
/// files there is refused meanwhile (and cannot take this run's temporary
/// files for stale ones), and the temporary files a killed conversion
/// left are removed when the lock is taken.
///
/// # Errors
/// The first level that fails, naming its file (and block);
/// [`TableError::Locked`] when another command writes the same files in
/// the output directory.
pub fn run(
    plan: &Plan,
    rules: RuleSet,
    rule: LoopRule,
    progress: &dyn Progress,
    on_level: impl FnMut(&Converted),
) -> Result<Vec<Converted>, TableError> {
    let _lock = match plan.jobs.iter().any(|j| !j.done) {
        true => Some(BuildLock::acquire(&plan.out, rules.tables(), rule)?),
        false => None,
    };
    run_held(plan, rules, rule, progress, on_level)
}

/// [`run`] for a caller that holds the output directory's build lock
/// already (`tables build --compress`).
fn run_held(
    plan: &Plan,
    rules: RuleSet,
    rule: LoopRule,
    progress: &dyn Progress,
    mut on_level: impl FnMut(&Converted),
) -> Result<Vec<Converted>, TableError> {
    let rules = rules.tables();
    let pits = pits_of(rules.game());
    let mut out = Vec::new();
    for j in &plan.jobs {
        let t0 = Instant::now();
        if j.done {
            let c = converted(plan.direction, j, 0.0, true);
            on_level(&c);
            out.push(c);
            continue;
        }
        if let Some(d) = j.to.parent() {
            crate::fsutil::create_dir_all(d).map_err(|e| TableError::Io {
                path: d.to_path_buf(),
                source: e,
            })?;
        }
        let what = format!("level {}", j.level);
        match plan.direction {
            Direction::Compress(codec) => {
                let t = Table::open(&j.from, rules, rule, j.level, pits)?;
                progress.start(&what, t.len() as u64);
                let lower = match needs_lower(codec.transform) {
                    true => Some(lower_of(&j.from, rules, rule)?),
                    false => None,
                };
                write_compressed_with(&t, &j.to, codec, lower.as_deref(), &|n| progress.inc(n))?;
                let c = Compressed::open(&j.to, rules, rule, j.level, OpenCheck::Full)?;
                if c.raw_crc() != table_raw_crc(&t) {
                    return Err(crate::tables::payload::corrupted(
                        &j.to,
                        "written file does not stand for its source".into(),
                    ));
                }
            }
            Direction::Decompress => {
                let c = Compressed::open(&j.from, rules, rule, j.level, OpenCheck::Full)?;
                progress.start(&what, c.header.count);
                write_raw(&c, &j.to, progress)?;
                let t = Table::open(&j.to, rules, rule, j.level, pits)?;
                if t.is_compressed() || table_raw_crc(&t) != c.raw_crc() {
                    return Err(crate::tables::payload::corrupted(
                        &j.to,
                        "written file differs from the compressed level".into(),
                    ));
                }
            }
        }
        progress.finish(&what);
        let c = converted(plan.direction, j, t0.elapsed().as_secs_f64(), false);
        on_level(&c);
        out.push(c);
    }
    Ok(out)
}

/// Compresses level `level` of `rules` under `rule` in `dir` in place, as
/// `tables build --compress` does once the level is built: its `.adjz` is
/// written beside the raw form (or kept, if one is there that stands for
/// it) and checked in full against it, and only then is the raw form
/// removed (the level file, or the shards and their manifest). Returns
/// what was done; `None` when the level was compressed already and has no
/// raw form left. The caller holds `dir`'s build lock of these files.
///
/// # Errors
/// As [`run`]; an I/O error removing the raw form (the `.adjz`, checked,
/// then stands beside it, and a rerun finishes the job).
pub fn compress_in_place(
    dir: &Path,
    rules: RuleSet,
    rule: LoopRule,
    level: u32,
    codec: Codec,
    progress: &dyn Progress,
) -> Result<Option<Converted>, TableError> {
    let rules = rules.tables();
    let raw = raw_forms(dir, rules, rule, level)?;
    if raw.is_empty() {
        return Ok(None);
    }
    let p = plan(
        dir,
        dir,
        rules,
        rule,
        Some((level, level)),
        Direction::Compress(codec),
    )?;
    let done = run_held(&p, rules, rule, progress, |_| {})?;
    for f in raw {
        std::fs::remove_file(&f).map_err(|e| TableError::Io { path: f, source: e })?;
    }
    Ok(done.into_iter().next())
}

/// The files of the raw form of a level in `dir`: its level file, or its
/// shards and their manifest (manifest last), whichever are there.
fn raw_forms(
    dir: &Path,
    rules: RuleSet,
    rule: LoopRule,
    level: u32,
) -> Result<Vec<PathBuf>, TableError> {
    let mut files = Vec::new();
    let file = level_path(dir, rules, rule, level);
    if std::fs::symlink_metadata(&file).is_ok_and(|m| m.is_file()) {
        files.push(file);
    }
    let manifest = crate::tables::shard::manifest_path(dir, rules, rule, level);
    if manifest.is_file() {
        let m = crate::tables::shard::read_manifest(&manifest, rules, rule, level)?;
        files.extend(m.shards.iter().map(|s| dir.join(&s.file)));
        files.push(manifest);
    }
    Ok(files)
}

/// The ratio of the compressed levels of `rules` under `rule` in `dir`:
/// the raw bytes they stand for over their files' bytes, `None` when
/// there is none (what a build that compresses as it goes projects its
/// disk from: this codec's ratio on these tables, measured here).
///
/// # Errors
/// The directory cannot be listed; a compressed file whose header does
/// not check.
pub fn measured_ratio(
    dir: &Path,
    rules: RuleSet,
    rule: LoopRule,
) -> Result<Option<f64>, TableError> {
    let (mut raw, mut stored) = (0u64, 0u64);
    for n in levels_present(dir, rules, rule)?.levels {
        let z = zpath(dir, rules, rule, n);
        if !z.is_file() {
            continue;
        }
        let c = Compressed::open(&z, rules, rule, n, OpenCheck::Header)?;
        raw += c.header.file_len();
        stored += c.file_len();
    }
    Ok((stored > 0).then(|| raw as f64 / stored as f64))
}

/// What a job did, its sizes read once its output is there. The raw side
/// counts as the raw level file it is or stands for ([`Job::raw_bytes`]):
/// a level read from its shards has no file at `from`.
fn converted(direction: Direction, j: &Job, secs: f64, skipped: bool) -> Converted {
    let size = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    let (from_bytes, to_bytes) = match direction {
        Direction::Compress(_) => (j.raw_bytes, size(&j.to)),
        Direction::Decompress => (size(&j.from), j.raw_bytes),
    };
    Converted {
        level: j.level,
        from_bytes,
        to_bytes,
        secs,
        skipped,
    }
}

/// Bytes of decoded blocks that the levels below a don't-care level may
/// cache while it is read whole or written ([`lower_of`]): the smallest
/// levels whole, as [`crate::tables::TableSet::fit_caches`] shapes them.
pub const LOWER_CACHE: u64 = 4 << 30;

/// The levels below the level file or compressed file at `path`, read
/// from its directory ([`crate::tables::dontcare::lower`]).
///
/// # Errors
/// A level there that does not open.
pub fn lower_of(
    path: &Path,
    rules: RuleSet,
    rule: LoopRule,
) -> Result<Box<dyn crate::tables::dontcare::Lower>, TableError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    crate::tables::dontcare::lower(dir, rules, rule, LOWER_CACHE)
}

/// Writes the raw level file `c` stands for at `to`, atomically
/// ([`stream_raw`]).
fn write_raw(c: &Compressed, to: &Path, progress: &dyn Progress) -> Result<(), TableError> {
    let mut failed = None;
    write_atomic_with(to, |w| {
        stream_raw(c, w, to, progress).map_err(|e| {
            failed = Some(e);
            std::io::Error::other("the compressed level does not decode")
        })
    })
    .map_err(|e| {
        failed.take().unwrap_or_else(|| TableError::Io {
            path: to.to_path_buf(),
            source: e,
        })
    })
}

/// Writes the raw level file `c` stands for to `w` (the file `to`, named
/// in write errors), a round of blocks at a time (decoded in parallel,
/// at most [`ROUND_BYTES`] held), and checks its CRC-32 at the end (the
/// caller drops what it wrote when this fails).
///
/// # Errors
/// A block that does not decode, naming the file and block; the raw
/// checksum; or a write error, naming `to`.
pub fn stream_raw(
    c: &Compressed,
    w: &mut dyn std::io::Write,
    to: &Path,
    progress: &dyn Progress,
) -> Result<(), TableError> {
    use rayon::prelude::*;
    let lower = match c.dont_care() {
        true => Some(lower_of(c.path(), c.header.rules, c.header.rule)?),
        false => None,
    };
    let level = c.header.level as u32;
    let block = c.codec().block as u64;
    let round = (ROUND_BYTES / c.codec().block.max(1) as u64).max(1);
    let io = |e: std::io::Error| TableError::Io {
        path: to.to_path_buf(),
        source: e,
    };
    let mut crc = crc32fast::Hasher::new();
    let head = c.raw_header();
    crc.update(&head);
    w.write_all(&head).map_err(io)?;
    for first in (0..c.blocks()).step_by(round as usize) {
        let ids: Vec<u64> = (first..(first + round).min(c.blocks())).collect();
        let got: Vec<Vec<u8>> = ids
            .par_iter()
            .map(|&i| {
                let mut v = Vec::new();
                c.decode(i, &mut v)?;
                if let Some(l) = &lower {
                    l.resolve(level, i * block, &mut v)?;
                }
                Ok(v)
            })
            .collect::<Result<_, TableError>>()?;
        for v in got {
            crc.update(&v);
            w.write_all(&v).map_err(io)?;
            progress.inc(v.len() as u64);
        }
    }
    crc.update(c.records());
    w.write_all(c.records()).map_err(io)?;
    if crc.finalize() != c.raw_crc() {
        return Err(crate::tables::payload::corrupted(
            c.path(),
            "decoded level differs from the raw file it stands for (checksum mismatch)".into(),
        ));
    }
    Ok(())
}
