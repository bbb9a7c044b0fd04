//! Distributed runs (feature `mpi`): `tables build` and `openings` started by
//! an MPI launcher (`mpirun -np P adji …`) run over all its processes; the
//! README's "Running on a cluster" says how. Without a launcher nothing
//! changes: MPI is not even initialised.

use adji::distributed::mpi::{launched_by_mpirun, MpiComm};
use adji::distributed::Comm;
use adji::game::Game;
use adji::progress::{NoProgress, Progress};
use adji::tables::retrograde::dist::{build_tables_distributed, worst_rank_plan, DistLevelReport};
use adji::tables::retrograde::project;
use adji::tables::retrograde::BuildEvent;

use crate::error::CliError;
use crate::out;
use crate::tables::BuildArgs;
use crate::util::{bar, Bar};

/// MPI's world when this process was started by an MPI launcher.
pub fn world() -> Option<MpiComm> {
    if launched_by_mpirun() {
        MpiComm::init()
    } else {
        None
    }
}

/// Runs `f` on this rank. An error that every rank meets alike
/// ([`CliError::OnEveryRank`]) is reported once, by rank 0, before any rank
/// exits; any other error
/// is printed with the rank and, when other ranks run, stops them all (they
/// would wait for this one forever).
pub fn on_every_rank(
    comm: &MpiComm,
    f: impl FnOnce(&MpiComm) -> Result<(), CliError>,
) -> Result<(), CliError> {
    match f(comm) {
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
        Err(e) if comm.size() > 1 && !matches!(e, CliError::Closed) => {
            out::note(format_args!("error (rank {}): {e}", comm.rank()));
            comm.abort(1)
        }
        r => r,
    }
}

/// `tables build` over the ranks of `comm` (checked like the one-process
/// build before anything is built).
pub fn build_tables<G: Game>(a: &BuildArgs, comm: &MpiComm) -> Result<(), CliError> {
    crate::tables::check_max_seeds::<G>(a)?;
    let root = comm.rank() == 0;
    // The largest peak of any rank decides. Rank 0 prints the plan and
    // checks it first; the others wait for its word, so that the plan is
    // printed before any rank refuses and stops the job, before allocating.
    let mut p = worst_rank_plan::<G>(a.max_seeds, comm.size())?;
    let verdict = if root {
        let per = project::<G>(&mut p);
        crate::tables::print_plan::<G>(a, &p, per)
    } else {
        Ok(())
    };
    let mut refused = vec![verdict.is_err() as u8];
    comm.broadcast(&mut refused);
    let agreed = |e: CliError| CliError::OnEveryRank(Box::new(e));
    verdict.map_err(agreed)?;
    if refused[0] == 1 {
        crate::tables::check_plan(a, &p).map_err(agreed)?;
    }
    if root {
        out::print(format_args!(
            "Distributed build over {} processes: {} tables, levels 0..={}, loop rule `{}`, in {}\n\n\
             | level | positions | status | rank | slice | forward s | acyclic s | sweep s | compute s | compute CPU s | collectives s | bytes sent | rounds | level s |\n\
             |---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
            comm.size(),
            G::ID,
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
    let r = build_tables_distributed::<G>(
        comm,
        &a.dir.dir,
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
        return format!("| {n} | | kept (checksum OK) | | | | | | | | | | | |\n");
    };
    let mut s = String::new();
    for r in &rep.ranks {
        s += &format!(
            "| {n} | {} | built | {} | {} | {:.3} | {:.3} | {:.3} | {:.3} | {:.2} | {:.3} | {} | {} | {:.3} |\n",
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
            rep.total_secs
        );
    }
    s
}
