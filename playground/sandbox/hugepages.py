"""Backs the zygote's heap with transparent huge pages before it forks.

A fork copies the page tables of every private anonymous mapping, and the child's exit frees
them again: for a zygote holding about 240 MB of TensorFlow's and Python's heap, that is some
60,000 entries each way, about 15 ms of the machine's CPU per fork (two copies per job, see
zygote.py). Huge pages make it a few hundred. A page the child writes is still copied 4 KiB at a
time: the kernel splits a shared huge page on the first write (Linux 5.8 and later), so a job's
memory does not grow. MADV_COLLAPSE (Linux 6.1) collapses the pages already there, whatever the
system's THP setting; where the kernel lacks it, or refuses, nothing changes.
"""

from __future__ import annotations

import ctypes

MADV_COLLAPSE = 25
HUGE_PAGE = 2 << 20

_libc = ctypes.CDLL(None, use_errno=True)
_libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]


def anonymous_regions(maps: str = "/proc/self/maps") -> list[tuple[int, int]]:
    """(start, end) of each private, writable, anonymous mapping at least one huge page long."""
    regions = []
    with open(maps) as lines:
        for line in lines:
            fields = line.split()
            name = fields[5] if len(fields) > 5 else ""
            start, end = (int(bound, 16) for bound in fields[0].split("-"))
            if fields[1] == "rw-p" and name in ("", "[heap]") and end - start >= HUGE_PAGE:
                regions.append((start, end))
    return regions


def collapse_heap() -> int:
    """Collapses this process's heap into huge pages; returns how many regions the kernel took."""
    return sum(_libc.madvise(start, end - start, MADV_COLLAPSE) == 0 for start, end in anonymous_regions())
