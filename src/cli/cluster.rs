//! Distributed runs (feature `mpi`): `tables build` and `openings` started by
//! an MPI launcher (`mpirun -np P adji …`) run over all its processes; the
//! docs/TABLES.md ("Running on a cluster") says how. Without a launcher nothing
//! changes: MPI is not even initialised.

use adji::distributed::mpi::{
    chunk_bytes_from_env, launched_by_mpirun, MpiComm, DEFAULT_CHUNK_BYTES,
};
use adji::distributed::Comm;
use adji::oracle::jobs::{build_distributed, worst_rank_plan};
use adji::oracle::tables::project;
use adji::progress::{NoProgress, Progress};
use adji::rules::RuleSet;
use adji::tables::retrograde::dist::DistLevelReport;
use adji::tables::retrograde::BuildEvent;

use crate::error::CliError;
use crate::out;
use crate::tables_build::BuildArgs;
use crate::util::{bar, Bar};

/// MPI's world when this process was started by an MPI launcher, its
/// largest message set by `ADJI_MPI_CHUNK_BYTES`.
///
/// # Errors
/// A bad `ADJI_MPI_CHUNK_BYTES`, named with its value: every rank meets it,
/// rank 0 writes it once.
pub fn world() -> Result<Option<MpiComm>, CliError> {
    if !launched_by_mpirun() {
        return Ok(None);
    }
    let chunk = chunk_bytes_from_env();
    let Some(comm) = MpiComm::init_with_chunk(*chunk.as_ref().unwrap_or(&DEFAULT_CHUNK_BYTES))
    else {
        return Ok(None);
    };
    match chunk {
        Ok(_) => Ok(Some(comm)),
        Err(e) => on_every_rank(&comm, |_| {
            Err(CliError::OnEveryRank(Box::new(CliError::Input(e))))
        })
        .map(|()| None),
    }
}

/// How long a rank that met an error waits for the others to finish too
/// before it reports the error alone and stops the job.
const AGREE_WITHIN: std::time::Duration = std::time::Duration::from_secs(3);

/// Runs `f` on this rank, and reports its error once for the whole job:
/// - an error that every rank meets alike ([`CliError::OnEveryRank`]) is
///   written by rank 0 before any rank exits;
/// - any other error: if every rank finishes `f` within [`AGREE_WITHIN`] of
///   it, rank 0 collects the errors and writes one line (`error: …` when
///   all ranks failed alike, else one line per failed rank, with its rank);
///   if not, some rank still works or waits for this one, so this rank
///   writes its error with its rank and stops the job (MPI's abort).
pub fn on_every_rank(
    comm: &MpiComm,
    f: impl FnOnce(&MpiComm) -> Result<(), CliError>,
) -> Result<(), CliError> {
    let r = f(comm);
    if comm.size() == 1 {
        return r;
    }
    match r {
        Err(CliError::OnEveryRank(e)) => {
            if comm.rank() == 0 {
                crate::error::report(&e);
            }
            // No rank exits before rank 0 has written the error: the
            // launcher stops the job when the first process fails, and
            // could cut rank 0 off before it speaks (seen in CI).
            comm.barrier();
            Err(CliError::ReportedByRankZero)
        }
        Ok(()) | Err(CliError::Closed) => {
            comm.barrier();
            agree(comm, None)
        }
        Err(e) => {
            if comm.barrier_within(AGREE_WITHIN) {
                agree(comm, Some(&e))
            } else {
                crate::error::report_line(&format!("error (rank {}): {e}", comm.rank()));
                comm.abort(1)
            }
        }
    }
}

/// After every rank finished: rank 0 writes the errors (one line when all
/// ranks failed alike), and every rank learns whether any failed.
fn agree(comm: &MpiComm, err: Option<&CliError>) -> Result<(), CliError> {
    let mine = err.map_or_else(String::new, |e| e.to_string());
    let all = comm.gather(mine.as_bytes());
    let mut failed = vec![0u8];
    if comm.rank() == 0 {
        let texts: Vec<String> = all
            .iter()
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .collect();
        failed[0] = texts.iter().any(|t| !t.is_empty()) as u8;
        for line in error_lines(&texts) {
            crate::error::report_line(&line);
        }
    }
    comm.broadcast(&mut failed);
    match failed.first() {
        Some(1) => Err(CliError::ReportedByRankZero),
        _ => Ok(()),
    }
}

/// The lines rank 0 writes for the ranks' error texts (empty: no error):
/// one `error: …` when every rank failed alike, else one per failed rank.
fn error_lines(texts: &[String]) -> Vec<String> {
    match texts.first() {
        Some(t) if !t.is_empty() && texts.iter().all(|x| x == t) => vec![format!("error: {t}")],
        _ => texts
            .iter()
            .enumerate()
            .filter(|(_, t)| !t.is_empty())
            .map(|(r, t)| format!("error (rank {r}): {t}"))
            .collect(),
    }
}

/// `tables build` over the ranks of `comm` (checked like the one-process
/// build before anything is built).
pub fn build_tables(a: &BuildArgs, rules: RuleSet, comm: &MpiComm) -> Result<(), CliError> {
    crate::tables_build::check_max_seeds(a, rules)?;
    if a.compress {
        return Err(CliError::Input(
            "--compress: a distributed build writes shards on every rank; compress the merged \
             levels after it with `adji tables compress`"
                .into(),
        ));
    }
    let root = comm.rank() == 0;
    // The largest peak of any rank decides. Rank 0 prints the plan and
    // checks it first; the others wait for its word, so that the plan is
    // printed before any rank refuses and stops the job, before allocating.
    // `{rank}` in --dir: each rank maps only its share of the lower levels.
    let own_dirs = a.dir.dir.to_string_lossy().contains("{rank}");
    let mut p = worst_rank_plan(rules, a.max_seeds, (comm.size(), own_dirs))?;
    let verdict = if root {
        let per = project(rules, &mut p);
        crate::tables_build::print_plan(a, rules, &p, per, &mut out::Log::default())
    } else {
        Ok(())
    };
    let mut refused = vec![verdict.is_err() as u8];
    comm.broadcast(&mut refused);
    let agreed = |e: CliError| CliError::OnEveryRank(Box::new(e));
    verdict.map_err(agreed)?;
    if refused[0] == 1 {
        crate::tables_build::check_plan(a, &p).map_err(agreed)?;
    }
    if root {
        out::print(format_args!(
            "Distributed build over {} processes: {} tables, levels 0..={}, loop rule `{}`, in {}\n\n\
             | level | positions | status | rank | slice | forward s | acyclic s | sweep s | compute s | compute CPU s | collectives s | bytes sent | rounds | lookup bytes | lookup rounds | level s | forward CPU s | acyclic CPU s | sweep CPU s |\n\
             |---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
            comm.size(),
            adji::report::tables_label(rules),
            a.max_seeds,
            a.rule.rule().name(),
            a.dir.dir.display()
        ))?;
    }
    // Rank 0's progress bar; the other ranks report nothing.
    let pb = root.then(|| Bar(bar(0, "positions")));
    let progress: &dyn Progress = match &pb {
        Some(b) => b,
        None => &NoProgress,
    };
    let t0 = std::time::Instant::now();
    let mut printed = Ok(());
    // `--dir /local/t/rank-{rank}`: each rank its own directory.
    let dir = adji::distributed::rank_dir(&a.dir.dir, comm.rank());
    let r = build_distributed(
        rules,
        comm,
        &dir,
        a.rule.rule(),
        a.max_seeds,
        progress,
        |ev, rep| {
            if let (Ok(()), Some(b)) = (&printed, &pb) {
                printed = b.0.suspend(|| out::print(level_rows(ev, rep)));
            }
        },
    );
    if let Some(b) = pb {
        b.0.finish_and_clear();
    }
    r?;
    printed?;
    if root {
        out::print(format_args!(
            "\nDone in {:.1}s.\n",
            t0.elapsed().as_secs_f64()
        ))?;
    }
    Ok(())
}

/// The rows of one level: one per rank for a built level.
fn level_rows(ev: &BuildEvent, rep: Option<&DistLevelReport>) -> String {
    let n = ev.level;
    let Some(rep) = rep else {
        return format!("| {n} | | kept (checksum OK) | | | | | | | | | | | | | | | | |\n");
    };
    let mut s = String::new();
    for r in &rep.ranks {
        s += &format!(
            "| {n} | {} | built | {} | {} | {:.3} | {:.3} | {:.3} | {:.3} | {:.2} | {:.3} | {} | {} | {} | {} | {:.3} | {:.2} | {:.2} | {:.2} |\n",
            rep.positions,
            r.rank,
            r.positions,
            r.forward_secs,
            r.kahn_secs,
            r.sweep_secs,
            r.compute_secs,
            r.compute_cpu_secs,
            r.comm_secs,
            r.bytes_sent,
            r.rounds,
            r.lookup_bytes,
            r.lookup_rounds,
            rep.total_secs,
            r.phase_cpu_secs[0],
            r.phase_cpu_secs[1],
            r.phase_cpu_secs[2]
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::error_lines;

    #[test]
    fn one_line_when_every_rank_failed_alike_else_one_per_failed_rank() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(error_lines(&s(&["bad", "bad", "bad"])), ["error: bad"]);
        assert_eq!(error_lines(&s(&["", "bad", ""])), ["error (rank 1): bad"]);
        assert_eq!(
            error_lines(&s(&["a", "b", "a"])),
            [
                "error (rank 0): a",
                "error (rank 1): b",
                "error (rank 2): a"
            ]
        );
        assert!(error_lines(&s(&["", "", ""])).is_empty());
    }
}
