"""Measures each installed TF version's warm zygote: the memory one version's pool holds while it
waits for jobs (bubblewrap's process, the zygote that imported TF, and the warm worker it forked).

Run: /opt/tf-playground/venv/bin/python bench/bench_version_memory.py

RSS counts shared pages in every process; PSS splits them between the processes sharing them, so
PSS summed over a tree is what that tree costs the host. A forked worker shares most of its pages
with its zygote (copy on write), which is why the pool's PSS is far below twice the zygote's RSS.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from playground.contract import versions  # noqa: E402
from playground.contract.config import Settings  # noqa: E402
from playground.sandbox.pool import WorkerPool  # noqa: E402


def children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as handle:
                ppid = int(handle.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        tree.setdefault(ppid, []).append(int(name))
    return tree


def descendants(pid: int) -> list[int]:
    tree, found, todo = children(), [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo += tree.get(current, [])
    return found


def memory_kb(pid: int) -> dict[str, int]:
    """Rss and Pss of one process, from /proc/PID/smaps_rollup (root reads any uid's)."""
    out = {"Rss": 0, "Pss": 0}
    try:
        with open(f"/proc/{pid}/smaps_rollup") as handle:
            for line in handle:
                key = line.split(":")[0]
                if key in out:
                    out[key] = int(line.split()[1])
    except OSError:
        pass
    return out


def measure(version: versions.TFVersion, settings: Settings) -> dict[str, float]:
    pool_settings = dataclasses.replace(settings, python=version.python, pool_size=1, fork_workers="on")
    with WorkerPool(pool_settings) as pool:
        assert pool.wait_ready(1, 300.0), f"TF {version.version}: no warm worker"
        time.sleep(2.0)  # let the import's transient allocations settle
        zygote = pool._zygotes._slots[0]  # type: ignore[union-attr]
        tree = descendants(zygote.proc.pid)
        per = [memory_kb(p) for p in tree]
        return {
            "processes": len(tree),
            "zygote_rss_mb": max(p["Rss"] for p in per) / 1024,
            "tree_pss_mb": sum(p["Pss"] for p in per) / 1024,
        }


def main() -> None:
    settings = Settings.from_env()
    print(f"{'TF':>8} {'procs':>5} {'zygote RSS MB':>14} {'pool PSS MB':>12}")
    for version in versions.installed(settings):
        m = measure(version, settings)
        print(
            f"{version.version:>8} {m['processes']:>5} {m['zygote_rss_mb']:>14.0f} {m['tree_pss_mb']:>12.0f}"
        )


if __name__ == "__main__":
    main()
