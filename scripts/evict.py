#!/usr/bin/env python3
"""Evicts files from the page cache (posix_fadvise DONTNEED), for cold measurements."""
import os, sys
for p in sys.argv[1:]:
    fd = os.open(p, os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)
