/* The sweep's cell updates sorted by address before they are applied
 * (bucketed), against the random order the builder uses: a test of whether
 * sorting would pay (results/tables.md §2, sixth round).
 *
 * Usage: cc -O2 scripts/bucketed-updates.c -o /tmp/bucketed-updates
 *        /tmp/bucketed-updates CELLS SHIFT CHUNK
 * e.g.   /tmp/bucketed-updates 2000000000 20 16000000
 * 10^8 updates of random 4-byte cells (on transparent huge pages), CHUNK at
 * a time: each is written as a 16-byte record (cell, event, board) as the
 * builder's gather does, the records are distributed into buckets of
 * 2^SHIFT cells (counting sort), then applied bucket by bucket, each with a
 * prefetch 48 records ahead and an atomic add. Prints nanoseconds per
 * update for the three phases and in all. Compare with
 * scripts/random-updates.c on the same cells, run right before or after. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

typedef struct {
  uint32_t cell, event;
  uint64_t board;
} Record;

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s CELLS SHIFT CHUNK\n", argv[0]);
    return 2;
  }
  size_t n = strtoull(argv[1], 0, 10), chunk = strtoull(argv[3], 0, 10);
  int shift = atoi(argv[2]);
  size_t ops = 100000000ULL;
  if (n == 0 || n > (1ULL << 32) || shift < 0 || shift > 32 || chunk == 0) {
    fprintf(stderr, "bucketed-updates: 0 < CELLS <= 2^32, 0 <= SHIFT <= 32 and CHUNK > 0, please\n");
    return 2;
  }
  size_t buckets = (n >> shift) + 1;
  uint32_t *c = mmap(0, n * 4, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  uint32_t *idx = malloc(ops * 4);
  Record *a = malloc(chunk * sizeof(Record)), *b = malloc(chunk * sizeof(Record));
  if (a) madvise((void *)((uintptr_t)a & ~4095UL), chunk * sizeof(Record), MADV_HUGEPAGE);
  if (b) madvise((void *)((uintptr_t)b & ~4095UL), chunk * sizeof(Record), MADV_HUGEPAGE);
  size_t *count = calloc(buckets + 1, sizeof(size_t));
  if (c == MAP_FAILED || !idx || !a || !b || !count) {
    perror("bucketed-updates: memory");
    return 1;
  }
  madvise(c, n * 4, MADV_HUGEPAGE);
  memset(c, 1, n * 4);
  uint64_t s = 88172645463325252ULL + getpid();
  for (size_t i = 0; i < ops; i++) {
    s ^= s << 13; s ^= s >> 7; s ^= s << 17;
    idx[i] = s % n;
  }
  double t = now(), gen = 0, scatter = 0, apply = 0, x;
  uint64_t sink = 0;
  for (size_t i0 = 0; i0 < ops; i0 += chunk) {
    size_t m = ops - i0 < chunk ? ops - i0 : chunk;
    x = now();
    memset(count, 0, (buckets + 1) * sizeof(size_t));
    for (size_t j = 0; j < m; j++) {
      uint32_t r = idx[i0 + j];
      a[j] = (Record){r, (uint32_t)j, r * 7ULL};
      count[(r >> shift) + 1]++;
    }
    gen += now() - x;
    x = now();
    for (size_t k = 0; k < buckets; k++) count[k + 1] += count[k];
    for (size_t j = 0; j < m; j++) b[count[a[j].cell >> shift]++] = a[j];
    scatter += now() - x;
    x = now();
    for (size_t j = 0; j < m; j++) {
      if (j + 48 < m) __builtin_prefetch(&c[b[j + 48].cell], 1);
      uint32_t old = __atomic_fetch_add(&c[b[j].cell], 1, __ATOMIC_RELAXED);
      sink += old & b[j].board;
    }
    apply += now() - x;
  }
  double e = now() - t;
  printf("cells=%zu buckets=%zu chunk=%zu: generate %.2f, distribute %.2f, apply %.2f, in all %.2f ns/update (%d)\n",
         n, buckets, chunk, gen / ops * 1e9, scatter / ops * 1e9, apply / ops * 1e9, e / ops * 1e9, (int)(sink & 1));
  return 0;
}
