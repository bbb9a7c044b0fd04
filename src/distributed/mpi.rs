//! [`Comm`] on MPI (the `mpi` crate, rsmpi): the only module of the crate
//! that calls MPI. Initialised with `MPI_THREAD_FUNNELED`: only the thread
//! that made the [`MpiComm`] calls MPI (worker threads never do).
//!
//! # Messages of any size
//!
//! MPI counts are C `int`s, so one message holds less than 2 GiB. Every
//! message here is cut into pieces of at most [`MpiComm::chunk`] bytes
//! (default [`DEFAULT_CHUNK_BYTES`]; the environment variable
//! [`CHUNK_ENV`] sets it, down to one byte, so that tests exercise the
//! cutting), and every length travels as a `u64`:
//! - a point-to-point message is its length, then its pieces in order
//!   (MPI never reorders messages of one sender, tag and communicator);
//! - an all-to-all first exchanges the `u64` lengths, then runs as many
//!   rounds as the longest buffer needs, each rank sending at most
//!   `chunk / P` bytes (at least one) to each rank per round, so no round's
//!   buffer exceeds about `chunk` bytes;
//! - a gather and a broadcast go the same way, in rounds of pieces.

use mpi::collective::SystemOperation;
use mpi::datatype::{Partition, PartitionMut};
use mpi::environment::Universe;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use mpi::Threading;

use super::{Comm, TAG_USER};

/// The largest message by default: 256 MiB, far under MPI's 2 GiB.
pub const DEFAULT_CHUNK_BYTES: usize = 1 << 28;

/// The environment variable that sets the largest message, in bytes.
pub const CHUNK_ENV: &str = "ADJI_MPI_CHUNK_BYTES";

/// The largest message [`CHUNK_ENV`] may set: MPI's largest `int` count.
pub const MAX_CHUNK_BYTES: usize = i32::MAX as usize;

/// The largest message from [`CHUNK_ENV`], or [`DEFAULT_CHUNK_BYTES`] when
/// it is not set.
///
/// # Errors
/// A message naming the variable and its value when it is not a whole
/// number of bytes from 1 to [`MAX_CHUNK_BYTES`].
pub fn chunk_bytes_from_env() -> Result<usize, String> {
    match std::env::var_os(CHUNK_ENV) {
        None => Ok(DEFAULT_CHUNK_BYTES),
        Some(v) => parse_chunk_bytes(&v.to_string_lossy()),
    }
}

/// A chunk size: a whole number of bytes from 1 to [`MAX_CHUNK_BYTES`].
fn parse_chunk_bytes(v: &str) -> Result<usize, String> {
    match v.trim().parse::<u64>() {
        Ok(n) if (1..=MAX_CHUNK_BYTES as u64).contains(&n) => Ok(n as usize),
        _ => Err(format!(
            "{CHUNK_ENV}={v:?} is not a message size: give a whole number of bytes \
             from 1 to {MAX_CHUNK_BYTES}"
        )),
    }
}

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
    chunk: usize,
    _universe: Universe,
}

impl MpiComm {
    /// Initialises MPI with messages of at most [`DEFAULT_CHUNK_BYTES`];
    /// `None` if it was already initialised.
    pub fn init() -> Option<MpiComm> {
        MpiComm::init_with_chunk(DEFAULT_CHUNK_BYTES)
    }

    /// Initialises MPI with messages of at most `chunk` bytes (clamped to
    /// 1 ..= [`MAX_CHUNK_BYTES`]); `None` if it was already initialised.
    pub fn init_with_chunk(chunk: usize) -> Option<MpiComm> {
        let (universe, _) = mpi::initialize_with_threading(Threading::Funneled)?;
        Some(MpiComm {
            world: universe.world(),
            chunk: chunk.clamp(1, MAX_CHUNK_BYTES),
            _universe: universe,
        })
    }

    /// The largest message this communicator sends, in bytes.
    pub fn chunk(&self) -> usize {
        self.chunk
    }

    /// The largest piece a rank sends to each rank in one round of an
    /// all-to-all or a gather: a `P`-th of the chunk, at least one byte.
    fn piece(&self) -> usize {
        (self.chunk / self.size()).max(1)
    }

    /// The largest of `x` over all ranks, on every rank.
    fn all_max(&self, x: u64) -> u64 {
        let mut m = 0u64;
        self.world
            .all_reduce_into(&x, &mut m, SystemOperation::max());
        m
    }

    /// One round of a variable all-to-all: `send[d]` to rank `d`, `recv[s]`
    /// bytes expected from rank `s` (known beforehand), appended to `out[s]`.
    fn all_to_all_round(&self, send: &[&[u8]], recv: &[usize], out: &mut [Vec<u8>]) {
        let scounts: Vec<i32> = send.iter().map(|b| count(b.len())).collect();
        let rcounts: Vec<i32> = recv.iter().map(|&n| count(n)).collect();
        // One spare byte each: an empty buffer would point at address 1,
        // Open MPI's `MPI_IN_PLACE`.
        let mut sbuf = send.concat();
        sbuf.push(0);
        let (sd, rd) = (displs(&scounts), displs(&rcounts));
        let mut rbuf = vec![0u8; recv.iter().sum::<usize>() + 1];
        {
            let s = Partition::new(&sbuf[..], &scounts[..], &sd[..]);
            let mut r = PartitionMut::new(&mut rbuf[..], &rcounts[..], &rd[..]);
            self.world.all_to_all_varcount_into(&s, &mut r);
        }
        for (k, o) in out.iter_mut().enumerate() {
            o.extend_from_slice(&rbuf[rd[k] as usize..(rd[k] + rcounts[k]) as usize]);
        }
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

/// A byte count as MPI's `int` count (pieces are at most
/// [`MAX_CHUNK_BYTES`]).
fn count(n: usize) -> i32 {
    i32::try_from(n).expect("a piece of at most MAX_CHUNK_BYTES")
}

/// Piece `k` of `b` cut into pieces of `piece` bytes (empty past its end).
fn piece_of(b: &[u8], k: usize, piece: usize) -> &[u8] {
    let a = (k * piece).min(b.len());
    &b[a..(a + piece).min(b.len())]
}

/// Pieces of `piece` bytes that `len` bytes need.
fn pieces(len: usize, piece: usize) -> u64 {
    len.div_ceil(piece) as u64
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
        let dest = self.world.process_at_rank(to as i32);
        dest.send_with_tag(&(bytes.len() as u64), tag as i32);
        for c in bytes.chunks(self.chunk) {
            dest.send_with_tag(c, tag as i32);
        }
    }

    fn recv_tagged(&self, from: usize, tag: u32) -> Vec<u8> {
        let src = self.world.process_at_rank(from as i32);
        let (len, _) = src.receive_with_tag::<u64>(tag as i32);
        self.recv_pieces(from, tag, len)
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
                let (len, _) = m.0.matched_receive::<u64>();
                return (from, self.recv_pieces(from, TAG_USER, len));
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
        let slens: Vec<u64> = send.iter().map(|b| b.len() as u64).collect();
        let mut rlens = vec![0u64; p];
        self.world.all_to_all_into(&slens[..], &mut rlens[..]);
        let piece = self.piece();
        let mine = send.iter().map(|b| pieces(b.len(), piece)).max();
        let rounds = self.all_max(mine.unwrap_or(0));
        let mut out: Vec<Vec<u8>> = rlens
            .iter()
            .map(|&n| Vec::with_capacity(n as usize))
            .collect();
        for k in 0..rounds as usize {
            let s: Vec<&[u8]> = send.iter().map(|b| piece_of(b, k, piece)).collect();
            let r: Vec<usize> = rlens
                .iter()
                .map(|&n| (n as usize).saturating_sub(k * piece).min(piece))
                .collect();
            self.all_to_all_round(&s, &r, &mut out);
        }
        out
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
        for c in bytes.chunks_mut(self.chunk) {
            root.broadcast_into(c);
        }
    }

    fn gather(&self, bytes: &[u8]) -> Vec<Vec<u8>> {
        let root = self.world.process_at_rank(0);
        let piece = self.piece();
        let mut rounds = pieces(bytes.len(), piece);
        let len = bytes.len() as u64;
        if self.rank() != 0 {
            root.gather_into(&len);
            root.broadcast_into(&mut rounds);
            for k in 0..rounds as usize {
                root.gather_varcount_into(addressed(piece_of(bytes, k, piece)));
            }
            return Vec::new();
        }
        let mut lens = vec![0u64; self.size()];
        root.gather_into_root(&len, &mut lens[..]);
        rounds = lens
            .iter()
            .map(|&n| pieces(n as usize, piece))
            .max()
            .unwrap_or(0);
        root.broadcast_into(&mut rounds);
        let mut out: Vec<Vec<u8>> = lens
            .iter()
            .map(|&n| Vec::with_capacity(n as usize))
            .collect();
        for k in 0..rounds as usize {
            let counts: Vec<i32> = lens
                .iter()
                .map(|&n| count((n as usize).saturating_sub(k * piece).min(piece)))
                .collect();
            let d = displs(&counts);
            // A spare byte, as in `all_to_all_round`.
            let mut buf = vec![0u8; counts.iter().map(|&c| c as usize).sum::<usize>() + 1];
            {
                let mut r = PartitionMut::new(&mut buf[..], &counts[..], &d[..]);
                root.gather_varcount_into_root(addressed(piece_of(bytes, k, piece)), &mut r);
            }
            for (j, o) in out.iter_mut().enumerate() {
                o.extend_from_slice(&buf[d[j] as usize..(d[j] + counts[j]) as usize]);
            }
        }
        out
    }
}

impl MpiComm {
    /// The `len` bytes of a message from `from` with `tag` whose length
    /// was just received: its pieces, in order.
    fn recv_pieces(&self, from: usize, tag: u32, len: u64) -> Vec<u8> {
        let src = self.world.process_at_rank(from as i32);
        let mut out = Vec::with_capacity(len as usize);
        while (out.len() as u64) < len {
            let (c, _) = src.receive_vec_with_tag::<u8>(tag as i32);
            if c.is_empty() {
                break;
            }
            out.extend_from_slice(&c);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunk_sizes_parse_or_name_the_variable() {
        assert_eq!(parse_chunk_bytes("7"), Ok(7));
        assert_eq!(parse_chunk_bytes(" 1 "), Ok(1));
        assert_eq!(parse_chunk_bytes("2147483647"), Ok(MAX_CHUNK_BYTES));
        for bad in ["0", "-1", "2147483648", "1k", "", "x"] {
            let e = parse_chunk_bytes(bad).unwrap_err();
            assert!(
                e.contains(CHUNK_ENV) && e.contains("whole number"),
                "{bad}: {e}"
            );
        }
    }

    #[test]
    fn pieces_cover_a_buffer_in_order() {
        let b: Vec<u8> = (0..23).collect();
        for piece in [1, 2, 5, 23, 100] {
            let n = pieces(b.len(), piece) as usize;
            let joined: Vec<u8> = (0..n + 2)
                .flat_map(|k| piece_of(&b, k, piece).to_vec())
                .collect();
            assert_eq!(joined, b, "piece {piece}");
            assert!((0..n).all(|k| !piece_of(&b, k, piece).is_empty()));
        }
        assert_eq!(pieces(0, 4), 0);
    }
}
