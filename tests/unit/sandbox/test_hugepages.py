"""hugepages: which mappings the zygote collapses, that the kernel takes them, and that a fork
writing into a collapsed heap still copies small pages (a job's memory does not grow)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from playground.sandbox.hugepages import anonymous_regions

MAPS = """\
00400000-00421000 r--p 00000000 08:01 123  /usr/bin/python3.11
01000000-05000000 rw-p 00000000 00:00 0    [heap]
7f0000000000-7f0000400000 rw-p 00000000 00:00 0
7f0000400000-7f0000401000 rw-p 00000000 00:00 0
7f0000500000-7f0000900000 rw-s 00000000 00:01 77   /dev/zero (deleted)
7f0001000000-7f0001400000 rw-p 00200000 08:01 456  /usr/lib/libtensorflow_cc.so.2
7f0002000000-7f0002400000 r-xp 00000000 08:01 456  /usr/lib/libtensorflow_cc.so.2
7ffd00000000-7ffd00400000 rw-p 00000000 00:00 0    [stack]
"""


def test_only_private_anonymous_mappings_of_a_huge_page_or_more(tmp_path):
    maps = tmp_path / "maps"
    maps.write_text(MAPS)
    assert anonymous_regions(str(maps)) == [(0x01000000, 0x05000000), (0x7F0000000000, 0x7F0000400000)]


PROBE = textwrap.dedent(
    """
    import json, mmap, os
    from playground.sandbox.hugepages import collapse_heap

    def rollup(pid="self"):
        with open(f"/proc/{pid}/smaps_rollup") as lines:
            return {f[0].rstrip(":"): int(f[1]) for f in (l.split() for l in lines) if len(f) == 3}

    heap = bytearray(os.urandom(64 << 20))  # written: private anonymous pages, like TF's heap
    before = rollup()["AnonHugePages"]
    taken = collapse_heap()
    after = rollup()["AnonHugePages"]
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        start = rollup()["Private_Dirty"]
        for i in range(16):  # one byte in each of 16 different huge pages
            heap[(i * 4 + 1) << 20] ^= 1
        os.write(w, json.dumps(rollup()["Private_Dirty"] - start).encode())
        os._exit(0)
    os.waitpid(pid, 0)
    grown = json.loads(os.read(r, 64))
    print(json.dumps({"taken": taken, "before": before, "after": after, "child_grew_kb": grown}))
    """
)


def test_the_heap_is_collapsed_and_a_fork_still_copies_small_pages():
    if tuple(int(p) for p in os.uname().release.split(".")[:2] if p.isdigit()) < (6, 1):
        pytest.skip("MADV_COLLAPSE needs Linux 6.1")
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    probe = json.loads(done.stdout)
    assert probe["taken"] >= 1
    assert probe["after"] >= probe["before"] + 32 * 1024, probe  # most of the 64 MiB, in kB
    # 16 writes into 16 shared huge pages: 16 small copies (64 kB), not 16 huge ones (32 MB)
    assert probe["child_grew_kb"] < 2048, probe
