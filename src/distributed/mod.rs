//! Running across processes: the narrow message-passing interface the
//! distributed algorithms use ([`Comm`]), an in-process implementation over
//! threads for tests ([`LocalComm`]), and, with the cargo feature `mpi`,
//! the implementation on MPI (`mpi::MpiComm`, rsmpi).
//!
//! Every MPI call of the crate lives in the `mpi` submodule; the algorithms
//! (`crate::tables::retrograde::dist`, the distributed openings run) see only
//! [`Comm`], so they are plain Rust and tested here without MPI.
//!
//! Collectives must be called by every rank in the same order, as in MPI.

use std::collections::VecDeque;
use std::sync::{Arc, Barrier, Condvar, Mutex};

#[cfg(feature = "mpi")]
pub mod mpi;

/// Message tags of the point-to-point messages the default collectives use;
/// [`Comm::send`] and [`Comm::recv`] users take [`TAG_USER`].
const TAG_ALL_TO_ALL: u32 = 1;
const TAG_SUM: u32 = 2;
const TAG_BCAST: u32 = 3;
const TAG_GATHER: u32 = 4;
/// The tag of [`Comm::send`] / [`Comm::recv`] / [`Comm::recv_any`].
pub const TAG_USER: u32 = 5;

/// What a process of a distributed run can do: its place in the run,
/// collectives (called by every rank in the same order) and point-to-point
/// messages of bytes. The collectives have default implementations over
/// point-to-point messages; the MPI implementation uses MPI's own.
pub trait Comm: Sync {
    /// This process's rank, `0..size()`.
    fn rank(&self) -> usize;
    /// Number of processes.
    fn size(&self) -> usize;
    /// Sends `bytes` to rank `to` with `tag`. Small messages never wait
    /// for the receiver; large ones may (MPI's standard mode), so the
    /// default collectives below, which send before they receive, are for
    /// implementations whose sends never wait ([`LocalComm`]); the MPI one
    /// uses MPI's collectives.
    fn send_tagged(&self, to: usize, tag: u32, bytes: &[u8]);
    /// Receives the next message with `tag` from rank `from` (messages of
    /// one sender and tag arrive in order).
    fn recv_tagged(&self, from: usize, tag: u32) -> Vec<u8>;
    /// Receives the next message with [`TAG_USER`] from any rank: its
    /// sender and bytes.
    fn recv_any(&self) -> (usize, Vec<u8>);
    /// Waits until every rank has called it.
    fn barrier(&self);
    /// Stops the whole run with exit code `code` (a failure on one rank
    /// must not leave the others waiting forever).
    fn abort(&self, code: i32) -> !;

    /// Sends `bytes` to rank `to` ([`TAG_USER`]).
    fn send(&self, to: usize, bytes: &[u8]) {
        self.send_tagged(to, TAG_USER, bytes)
    }

    /// Receives the next [`TAG_USER`] message from rank `from`.
    fn recv(&self, from: usize) -> Vec<u8> {
        self.recv_tagged(from, TAG_USER)
    }

    /// Exchanges one buffer with every rank: `send[d]` goes to rank `d`;
    /// returns what each rank sent to this one, by sender.
    fn all_to_all(&self, send: &[Vec<u8>]) -> Vec<Vec<u8>> {
        assert_eq!(send.len(), self.size(), "one buffer per rank");
        for (d, b) in send.iter().enumerate() {
            self.send_tagged(d, TAG_ALL_TO_ALL, b);
        }
        (0..self.size())
            .map(|s| self.recv_tagged(s, TAG_ALL_TO_ALL))
            .collect()
    }

    /// Element-wise sums of `x` over all ranks, on every rank.
    fn all_sum(&self, x: &mut [u64]) {
        if self.rank() != 0 {
            self.send_tagged(0, TAG_SUM, &words_to_bytes(x));
            x.copy_from_slice(&bytes_to_words(&self.recv_tagged(0, TAG_SUM)));
            return;
        }
        for s in 1..self.size() {
            for (a, b) in x
                .iter_mut()
                .zip(bytes_to_words(&self.recv_tagged(s, TAG_SUM)))
            {
                *a += b;
            }
        }
        for d in 1..self.size() {
            self.send_tagged(d, TAG_SUM, &words_to_bytes(x));
        }
    }

    /// Rank 0's `bytes` on every rank (the others' `bytes` are replaced).
    fn broadcast(&self, bytes: &mut Vec<u8>) {
        if self.rank() == 0 {
            for d in 1..self.size() {
                self.send_tagged(d, TAG_BCAST, bytes);
            }
        } else {
            *bytes = self.recv_tagged(0, TAG_BCAST);
        }
    }

    /// Every rank's `bytes`, by rank, at rank 0 (empty elsewhere).
    fn gather(&self, bytes: &[u8]) -> Vec<Vec<u8>> {
        if self.rank() != 0 {
            self.send_tagged(0, TAG_GATHER, bytes);
            return Vec::new();
        }
        let mut all = vec![bytes.to_vec()];
        all.extend((1..self.size()).map(|s| self.recv_tagged(s, TAG_GATHER)));
        all
    }
}

/// `u64`s as little-endian bytes.
pub fn words_to_bytes(x: &[u64]) -> Vec<u8> {
    x.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Little-endian bytes as `u64`s (a partial last word is dropped).
pub fn bytes_to_words(b: &[u8]) -> Vec<u64> {
    b.chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect()
}

/// CPU seconds this process has used (user and system, all its threads),
/// from `/proc/self/stat` at its 10 ms resolution; 0 where there is none.
/// Distributed runs subtract the CPU time spent in collectives (where MPI
/// may busy-wait) to get their computation's.
pub fn process_cpu_secs() -> f64 {
    let Ok(s) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // Fields after the command name, which ends with the last ')':
    // state is field 3, utime field 14, stime field 15 (clock ticks, 100/s).
    let rest = s.rsplit_once(')').map_or("", |x| x.1);
    let f: Vec<f64> = rest
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|x| x.parse().ok())
        .collect();
    f.iter().sum::<f64>() / 100.0
}

/// The contiguous share of `0..len` that rank `r` of `p` owns: `p` slices
/// whose lengths differ by at most one, in rank order.
pub fn share(len: u64, r: usize, p: usize) -> std::ops::Range<u64> {
    let (r, p) = (r as u128, p as u128);
    let at = |k: u128| (len as u128 * k / p) as u64;
    at(r)..at(r + 1)
}

/// The rank owning position `i` of `0..len` split by [`share`] over `p`.
pub fn owner(i: u64, len: u64, p: usize) -> usize {
    // The largest r with share start ≤ i: start(r) = ⌊len·r/p⌋.
    let guess = ((i as u128 * p as u128) / len.max(1) as u128) as usize;
    let mut r = guess.min(p - 1);
    while r + 1 < p && share(len, r + 1, p).start <= i {
        r += 1;
    }
    while share(len, r, p).start > i {
        r -= 1;
    }
    r
}

/// The directory of rank `r`: `dir` with every `{rank}` replaced by `r`
/// (`--dir /local/t/rank-{rank}`), so that each rank of a distributed
/// build may have its own, node-local directory.
pub fn rank_dir(dir: &std::path::Path, r: usize) -> std::path::PathBuf {
    match dir.to_str() {
        Some(s) if s.contains("{rank}") => s.replace("{rank}", &r.to_string()).into(),
        _ => dir.to_path_buf(),
    }
}

/// One message in a [`LocalComm`] mailbox: sender, tag, bytes.
type Mail = (usize, u32, Vec<u8>);

/// The state the threads of a [`LocalComm`] share.
struct Shared {
    boxes: Vec<(Mutex<VecDeque<Mail>>, Condvar)>,
    barrier: Barrier,
}

/// An in-process [`Comm`]: `size` threads, one mailbox each. For tests of
/// the distributed algorithms without MPI.
pub struct LocalComm {
    rank: usize,
    shared: Arc<Shared>,
}

impl LocalComm {
    /// Runs `f` on `size` threads, each with its own [`LocalComm`]; returns
    /// their results by rank.
    pub fn run<T: Send>(size: usize, f: impl Fn(&LocalComm) -> T + Sync) -> Vec<T> {
        let shared = Arc::new(Shared {
            boxes: (0..size)
                .map(|_| (Mutex::new(VecDeque::new()), Condvar::new()))
                .collect(),
            barrier: Barrier::new(size),
        });
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..size)
                .map(|rank| {
                    let c = LocalComm {
                        rank,
                        shared: shared.clone(),
                    };
                    let f = &f;
                    s.spawn(move || f(&c))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a rank panicked"))
                .collect()
        })
    }

    /// Takes the first message of this rank's mailbox that `pick` accepts,
    /// waiting for one.
    fn take(&self, pick: impl Fn(&Mail) -> bool) -> Mail {
        let (m, cv) = &self.shared.boxes[self.rank];
        let mut q = m.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(i) = q.iter().position(&pick) {
                return q.remove(i).expect("index found");
            }
            q = cv.wait(q).unwrap_or_else(|e| e.into_inner());
        }
    }
}

impl Comm for LocalComm {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.shared.boxes.len()
    }

    fn send_tagged(&self, to: usize, tag: u32, bytes: &[u8]) {
        let (m, cv) = &self.shared.boxes[to];
        m.lock()
            .unwrap_or_else(|e| e.into_inner())
            .push_back((self.rank, tag, bytes.to_vec()));
        cv.notify_all();
    }

    fn recv_tagged(&self, from: usize, tag: u32) -> Vec<u8> {
        self.take(|&(s, t, _)| s == from && t == tag).2
    }

    fn recv_any(&self) -> (usize, Vec<u8>) {
        let (s, _, b) = self.take(|&(_, t, _)| t == TAG_USER);
        (s, b)
    }

    fn barrier(&self) {
        self.shared.barrier.wait();
    }

    fn abort(&self, code: i32) -> ! {
        panic!("rank {} aborted the run with code {code}", self.rank)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_time_grows_with_work() {
        let a = process_cpu_secs();
        let t = std::time::Instant::now();
        let mut x = 0u64;
        while t.elapsed().as_millis() < 300 {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
        }
        let b = process_cpu_secs();
        if cfg!(target_os = "linux") {
            assert!(b > a, "{a} then {b}");
        }
    }

    #[test]
    fn shares_cover_the_range_and_owner_inverts_them() {
        for len in [0u64, 1, 2, 7, 100, 1001] {
            for p in 1..=5 {
                let mut next = 0;
                for r in 0..p {
                    let s = share(len, r, p);
                    assert_eq!(s.start, next);
                    next = s.end;
                    for i in s.clone() {
                        assert_eq!(owner(i, len, p), r, "len {len} p {p} i {i}");
                    }
                }
                assert_eq!(next, len);
            }
        }
    }

    #[test]
    fn rank_dirs_replace_every_rank_placeholder() {
        use std::path::Path;
        assert_eq!(
            rank_dir(Path::new("/l/t/rank-{rank}/x{rank}"), 3),
            Path::new("/l/t/rank-3/x3")
        );
        assert_eq!(rank_dir(Path::new("/shared/t"), 2), Path::new("/shared/t"));
    }

    #[test]
    fn local_collectives_agree_with_their_definitions() {
        let out = LocalComm::run(3, |c| {
            let r = c.rank() as u8;
            let send: Vec<Vec<u8>> = (0..3).map(|d| vec![r, d as u8]).collect();
            let got = c.all_to_all(&send);
            let mut x = [c.rank() as u64 + 1, 10];
            c.all_sum(&mut x);
            let mut b = if c.rank() == 0 { vec![9, 9] } else { vec![] };
            c.broadcast(&mut b);
            let g = c.gather(&[r]);
            c.barrier();
            (got, x, b, g)
        });
        for (r, (got, x, b, g)) in out.into_iter().enumerate() {
            let want: Vec<Vec<u8>> = (0..3).map(|s| vec![s as u8, r as u8]).collect();
            assert_eq!(got, want);
            assert_eq!(x, [6, 30]);
            assert_eq!(b, vec![9, 9]);
            let wg: Vec<Vec<u8>> = if r == 0 {
                vec![vec![0], vec![1], vec![2]]
            } else {
                vec![]
            };
            assert_eq!(g, wg);
        }
    }
}
