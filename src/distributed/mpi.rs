//! [`Comm`] on MPI (the `mpi` crate, rsmpi): the only module of the crate
//! that calls MPI. Initialised with `MPI_THREAD_FUNNELED`: only the thread
//! that made the [`MpiComm`] calls MPI (worker threads never do).

use mpi::collective::SystemOperation;
use mpi::datatype::{Partition, PartitionMut};
use mpi::environment::Universe;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use mpi::Threading;

use super::{Comm, TAG_USER};

/// Whether this process was started by an MPI launcher (`mpirun`, `srun`…):
/// one of the environment variables Open MPI, MPICH/Hydra or PMIx set for
/// the processes they start is present. This is how the command line decides
/// to run distributed; a plain `adji` never initialises MPI.
pub fn launched_by_mpirun() -> bool {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"]
        .iter()
        .any(|v| std::env::var_os(v).is_some())
}

/// The world communicator of an initialised MPI (finalised on drop).
pub struct MpiComm {
    world: SimpleCommunicator,
    _universe: Universe,
}

impl MpiComm {
    /// Initialises MPI; `None` if it was already initialised.
    pub fn init() -> Option<MpiComm> {
        let (universe, _) = mpi::initialize_with_threading(Threading::Funneled)?;
        Some(MpiComm {
            world: universe.world(),
            _universe: universe,
        })
    }

    /// Waits at most `timeout` for every rank to reach this call (a
    /// non-blocking barrier, tested every millisecond); true if they all
    /// did. A rank that gets false must not call MPI again but abort: the
    /// barrier is still pending.
    pub fn barrier_within(&self, timeout: std::time::Duration) -> bool {
        let deadline = std::time::Instant::now() + timeout;
        let mut req = self.world.immediate_barrier();
        loop {
            match req.test() {
                Ok(_) => return true,
                Err(r) if std::time::Instant::now() >= deadline => {
                    // Dropping an incomplete request panics; the caller aborts.
                    std::mem::forget(r);
                    return false;
                }
                Err(r) => req = r,
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }
}

/// A byte that gives empty buffers a real address.
static SPARE: [u8; 1] = [0];

/// `b`, or an empty slice at a real address when empty: Rust's empty
/// slices point at address 1, which Open MPI reads as `MPI_IN_PLACE`.
fn addressed(b: &[u8]) -> &[u8] {
    if b.is_empty() {
        &SPARE[..0]
    } else {
        b
    }
}

/// A byte count as MPI's `int` count.
fn count(n: usize) -> i32 {
    i32::try_from(n).expect("an MPI message of at most 2 GiB")
}

/// Displacements of consecutive blocks of `counts`.
fn displs(counts: &[i32]) -> Vec<i32> {
    counts
        .iter()
        .scan(0i32, |acc, &c| {
            let d = *acc;
            *acc += c;
            Some(d)
        })
        .collect()
}

// SAFETY note: MpiComm is used from the thread that initialised MPI only
// (FUNNELED); `Sync` lets the algorithms hold `&dyn Comm` across scoped
// worker threads that never call it.
unsafe impl Sync for MpiComm {}

impl Comm for MpiComm {
    fn rank(&self) -> usize {
        self.world.rank() as usize
    }

    fn size(&self) -> usize {
        self.world.size() as usize
    }

    fn send_tagged(&self, to: usize, tag: u32, bytes: &[u8]) {
        self.world
            .process_at_rank(to as i32)
            .send_with_tag(addressed(bytes), tag as i32);
    }

    fn recv_tagged(&self, from: usize, tag: u32) -> Vec<u8> {
        self.world
            .process_at_rank(from as i32)
            .receive_vec_with_tag::<u8>(tag as i32)
            .0
    }

    fn recv_any(&self) -> (usize, Vec<u8>) {
        // Polled with short sleeps: a blocking receive spins a core, which
        // the ranks on the same node need.
        loop {
            if let Some(m) = self
                .world
                .any_process()
                .immediate_matched_probe_with_tag(TAG_USER as i32)
            {
                let from = m.1.source_rank() as usize;
                return (from, m.matched_receive_vec::<u8>().0);
            }
            std::thread::sleep(std::time::Duration::from_micros(200));
        }
    }

    fn barrier(&self) {
        self.world.barrier();
    }

    fn abort(&self, code: i32) -> ! {
        self.world.abort(code)
    }

    fn all_to_all(&self, send: &[Vec<u8>]) -> Vec<Vec<u8>> {
        let p = self.size();
        assert_eq!(send.len(), p, "one buffer per rank");
        let scounts: Vec<i32> = send.iter().map(|b| count(b.len())).collect();
        let mut rcounts = vec![0i32; p];
        self.world.all_to_all_into(&scounts[..], &mut rcounts[..]);
        // One spare byte each: an empty buffer would point at address 1,
        // Open MPI's `MPI_IN_PLACE`.
        let mut sbuf = send.concat();
        sbuf.push(0);
        let (sd, rd) = (displs(&scounts), displs(&rcounts));
        let total: usize = rcounts.iter().map(|&c| c as usize).sum();
        let mut rbuf = vec![0u8; total + 1];
        {
            let s = Partition::new(&sbuf[..], &scounts[..], &sd[..]);
            let mut r = PartitionMut::new(&mut rbuf[..], &rcounts[..], &rd[..]);
            self.world.all_to_all_varcount_into(&s, &mut r);
        }
        (0..p)
            .map(|k| rbuf[rd[k] as usize..(rd[k] + rcounts[k]) as usize].to_vec())
            .collect()
    }

    fn all_sum(&self, x: &mut [u64]) {
        let mine = x.to_vec();
        self.world
            .all_reduce_into(&mine[..], x, SystemOperation::sum());
    }

    fn broadcast(&self, bytes: &mut Vec<u8>) {
        let root = self.world.process_at_rank(0);
        let mut len = bytes.len() as u64;
        root.broadcast_into(&mut len);
        bytes.resize(len as usize, 0);
        if len > 0 {
            root.broadcast_into(&mut bytes[..]);
        }
    }

    fn gather(&self, bytes: &[u8]) -> Vec<Vec<u8>> {
        let root = self.world.process_at_rank(0);
        let n = count(bytes.len());
        if self.rank() != 0 {
            root.gather_into(&n);
            root.gather_varcount_into(addressed(bytes));
            return Vec::new();
        }
        let mut counts = vec![0i32; self.size()];
        root.gather_into_root(&n, &mut counts[..]);
        let d = displs(&counts);
        // A spare byte, as in `all_to_all`.
        let mut buf = vec![0u8; counts.iter().map(|&c| c as usize).sum::<usize>() + 1];
        {
            let mut r = PartitionMut::new(&mut buf[..], &counts[..], &d[..]);
            root.gather_varcount_into_root(addressed(bytes), &mut r);
        }
        (0..counts.len())
            .map(|k| buf[d[k] as usize..(d[k] + counts[k]) as usize].to_vec())
            .collect()
    }
}
