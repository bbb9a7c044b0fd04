/* How long the first write to fresh anonymous memory takes, on transparent
 * huge pages or on 4 KiB pages: the cost the builder pays when its forward
 * pass first writes a level's cells (results/tables.md §2, seventh round).
 *
 * Usage: cc -O2 scripts/first-touch.c -o /tmp/first-touch
 *        /tmp/first-touch MEGABYTES HUGE   (HUGE: 1 for huge pages, 0 not)
 * Prints the seconds of the first pass (one byte written per 4 KiB) and of
 * a second pass over the same memory. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s MEGABYTES HUGE\n", argv[0]);
    return 2;
  }
  size_t len = strtoull(argv[1], 0, 10) << 20;
  int huge = atoi(argv[2]);
  char *m = len ? mmap(0, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) : MAP_FAILED;
  if (m == MAP_FAILED) {
    fprintf(stderr, "first-touch: memory: cannot map %s MiB\n", argv[1]);
    return 1;
  }
  madvise(m, len, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  double t = now();
  for (size_t i = 0; i < len; i += 4096) m[i] = 1;
  double first = now() - t;
  t = now();
  for (size_t i = 0; i < len; i += 4096) m[i] = 2;
  double second = now() - t;
  printf("%zu MiB huge=%d: first touch %.2f s (%.2f GB/s), second pass %.3f s\n", len >> 20, huge,
         first, len / first / 1e9, second);
  return 0;
}
