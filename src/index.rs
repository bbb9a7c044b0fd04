//! Combinatorial (colex) indexing of the boards of one level.
//!
//! A board with `n` seeds on `k` pits is a composition `x_0 + … + x_{k−1} = n`.
//! It maps to the strictly increasing sequence `c_j = x_0 + … + x_j + j`
//! (`j < k − 1`) and is ranked as `Σ C(c_j, j + 1)`: a bijection onto
//! `0 .. C(n + k − 1, k − 1)`, so a table needs no holes and no hashing.
//! [`next_board`] steps through the boards in rank order without unranking.

use crate::game::MAX_PITS;

/// Largest level indexable (seeds on the board).
pub const MAX_LEVEL: usize = 127;
const ROWS: usize = MAX_LEVEL + MAX_PITS + 1;

/// Binomial coefficients `C(n, k)` for `n < 140`, `k ≤ 12`, saturating.
static BINOM: [[u64; MAX_PITS + 1]; ROWS] = build_binom();

const fn build_binom() -> [[u64; MAX_PITS + 1]; ROWS] {
    let mut t = [[0u64; MAX_PITS + 1]; ROWS];
    let mut n = 0;
    while n < ROWS {
        t[n][0] = 1;
        let mut k = 1;
        while k <= MAX_PITS {
            t[n][k] = if n == 0 {
                0
            } else {
                t[n - 1][k - 1].saturating_add(t[n - 1][k])
            };
            k += 1;
        }
        n += 1;
    }
    t
}

/// `C(n, k)` (0 when `k > n`).
#[inline]
pub fn binom(n: usize, k: usize) -> u64 {
    BINOM[n][k]
}

/// Number of boards with `n` seeds on `k` pits: `C(n + k − 1, k − 1)`.
///
/// `n ≤ MAX_LEVEL` and `1 ≤ k ≤ MAX_PITS` are required (callers check
/// levels from files with [`try_level_size`] first).
pub fn level_size(n: usize, k: usize) -> u64 {
    try_level_size(n, k).expect("level and pit count within the index's range")
}

/// [`level_size`], or `None` when `n > MAX_LEVEL` or `k` is not in
/// `1..=MAX_PITS`: the checked form for sizes from untrusted input.
pub fn try_level_size(n: usize, k: usize) -> Option<u64> {
    (n <= MAX_LEVEL && (1..=MAX_PITS).contains(&k)).then(|| binom(n + k - 1, k - 1))
}

/// Rank of a board among those with the same seed count, over its first `k` pits.
#[inline]
pub fn rank(board: &[u8; MAX_PITS], k: usize) -> u64 {
    let mut r = 0u64;
    let mut c = 0usize;
    for (j, &x) in board.iter().enumerate().take(k - 1) {
        c += x as usize;
        r += BINOM[c + j][j + 1];
    }
    r
}

/// The board of rank `r` with `n` seeds on `k` pits (inverse of [`rank`]).
pub fn unrank(r: u64, n: usize, k: usize) -> [u8; MAX_PITS] {
    // All seeds in pit 0: every c_j is at its largest, so each pit's
    // search runs down from the top.
    let mut top = [0u8; MAX_PITS];
    top[0] = n as u8;
    unrank_near(r, n, k, &top)
}

/// The board of rank `r` with `n` seeds on `k` pits, found by searching
/// from `near`, a board of the same level (inverse of [`rank`], like
/// [`unrank`]). When the two ranks are close, their boards share their high
/// pits and each pit costs one or two comparisons instead of a scan.
pub fn unrank_near(mut r: u64, n: usize, k: usize, near: &[u8; MAX_PITS]) -> [u8; MAX_PITS] {
    // c_j of `near`: prefix sums plus j.
    let mut hint = [0usize; MAX_PITS];
    let mut sum = 0usize;
    for j in 0..k - 1 {
        sum += near[j] as usize;
        hint[j] = sum + j;
    }
    let mut c = [0usize; MAX_PITS];
    let mut hi = n + k - 1;
    for j in (0..k - 1).rev() {
        // Largest v < hi with C(v, j + 1) <= r, searched from the hint.
        let mut v = hint[j].min(hi - 1);
        if BINOM[v][j + 1] <= r {
            while v + 1 < hi && BINOM[v + 1][j + 1] <= r {
                v += 1;
            }
        } else {
            while BINOM[v][j + 1] > r {
                v -= 1;
            }
        }
        c[j] = v;
        r -= BINOM[v][j + 1];
        hi = v;
    }
    let mut b = [0u8; MAX_PITS];
    let mut prev: isize = -1;
    let mut used = 0usize;
    for j in 0..k - 1 {
        let x = (c[j] as isize - prev - 1) as usize;
        b[j] = x as u8;
        used += x;
        prev = c[j] as isize;
    }
    b[k - 1] = (n - used) as u8;
    b
}

/// Steps `board` to the board of the next rank. Returns `false` after the last.
#[inline]
pub fn next_board(board: &mut [u8; MAX_PITS], k: usize) -> bool {
    let mut t = board[0] as u32;
    for m in 1..k {
        if board[m] > 0 {
            for x in board.iter_mut().take(m) {
                *x = 0;
            }
            board[m - 1] = (t + 1) as u8;
            board[m] -= 1;
            return true;
        }
        t += board[m] as u32;
    }
    false
}

/// The boards of ranks `ranks` of level `n` on `k` pits, in rank order,
/// with their ranks: one unrank, then [`next_board`] steps.
pub fn boards(
    ranks: std::ops::Range<u64>,
    n: usize,
    k: usize,
) -> impl Iterator<Item = (u64, [u8; MAX_PITS])> {
    let mut board = if ranks.start < ranks.end {
        unrank(ranks.start, n, k)
    } else {
        [0; MAX_PITS]
    };
    ranks.map(move |r| {
        let b = board;
        next_board(&mut board, k);
        (r, b)
    })
}
