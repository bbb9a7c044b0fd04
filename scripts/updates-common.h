/* What scripts/random-updates.c and scripts/bucketed-updates.c share: a
 * clock, and the cells with the random sequence of cells to update. */
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

/* n 4-byte cells on transparent huge pages, touched, into *cells, and the
 * cells of ops updates (a fixed xorshift sequence per process) into *idx.
 * Returns 0, or 1 after an error message naming `prog`. */
static int random_cells(const char *prog, size_t n, size_t ops, uint32_t **cells, uint32_t **idx) {
  uint32_t *c = mmap(0, n * 4, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  uint32_t *x = malloc(ops * 4);
  if (c == MAP_FAILED || !x) {
    fprintf(stderr, "%s: memory: cannot allocate the cells\n", prog);
    return 1;
  }
  madvise(c, n * 4, MADV_HUGEPAGE);
  memset(c, 1, n * 4);
  uint64_t s = 88172645463325252ULL + getpid();
  for (size_t i = 0; i < ops; i++) {
    s ^= s << 13; s ^= s >> 7; s ^= s << 17;
    x[i] = s % n;
  }
  *cells = c;
  *idx = x;
  return 0;
}
