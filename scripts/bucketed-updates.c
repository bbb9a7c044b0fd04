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
#include "updates-common.h"

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
  uint32_t *c, *idx;
  if (random_cells("bucketed-updates", n, ops, &c, &idx)) return 1;
  Record *a = malloc(chunk * sizeof(Record)), *b = malloc(chunk * sizeof(Record));
  size_t *count = calloc(buckets + 1, sizeof(size_t));
  if (!a || !b || !count) {
    fprintf(stderr, "bucketed-updates: memory: cannot allocate the records\n");
    return 1;
  }
  madvise((void *)((uintptr_t)a & ~4095UL), chunk * sizeof(Record), MADV_HUGEPAGE);
  madvise((void *)((uintptr_t)b & ~4095UL), chunk * sizeof(Record), MADV_HUGEPAGE);
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
