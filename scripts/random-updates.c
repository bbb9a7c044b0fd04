/* Random atomic updates of 4-byte cells on transparent huge pages: the
 * memory access pattern of the table builder's sweep, without the builder
 * (results/tables.md §2, fifth round).
 *
 * Usage: cc -O2 scripts/random-updates.c -o /tmp/random-updates
 *        /tmp/random-updates CELLS BURST PREFETCH_FOR_WRITE
 * e.g.   /tmp/random-updates 2000000000 64 1   (8 GB of cells)
 * Prints nanoseconds per update: BURST prefetches of random cells, then
 * BURST atomic adds to the same cells, 10^8 updates in all. Run two at
 * once to see how two threads share the memory system. */
#include "updates-common.h"

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s CELLS BURST PREFETCH_FOR_WRITE\n", argv[0]);
    return 2;
  }
  size_t n = strtoull(argv[1], 0, 10);
  int burst = atoi(argv[2]), w = atoi(argv[3]);
  size_t ops = 100000000ULL;
  if (n == 0 || burst <= 0 || ops % burst != 0) {
    fprintf(stderr, "random-updates: CELLS > 0 and BURST dividing 10^8, please\n");
    return 2;
  }
  uint32_t *c, *idx;
  if (random_cells("random-updates", n, ops, &c, &idx)) return 1;
  double t = now();
  for (size_t i = 0; i < ops; i += burst) {
    for (int j = 0; j < burst; j++) {
      if (w) __builtin_prefetch(&c[idx[i + j]], 1);
      else __builtin_prefetch(&c[idx[i + j]], 0);
    }
    for (int j = 0; j < burst; j++) __atomic_fetch_add(&c[idx[i + j]], 1, __ATOMIC_RELAXED);
  }
  double e = now() - t;
  printf("cells=%zu burst=%d prefetch-for-write=%d: %.2f ns/update\n", n, burst, w, e / ops * 1e9);
  return 0;
}
