"""A SIGTERM drains the server: no new Run is taken from then on (each is refused with a
sentence saying the server is restarting), the Runs in flight finish for up to
PLAYGROUND_DRAIN_S, those still running then are stopped and told that the server, not their
code, ended them; then the executors are closed (their workers and zygotes killed, the jobs'
uids swept), the sandbox's folders and the jobs' cgroups are removed, and the server stops.

Under `streamlit run` of an st.App, uvicorn owns SIGTERM: its handler asks the server to stop at
once (the listening socket closes, so a new Run would meet a refused connection instead of a
sentence), and once the server has stopped it raises the signal again under the default action,
which ends the process without atexit (the sandbox's folders were left behind that way). So
`install` (app.py's lifespan, in the main thread) puts its handler in front of uvicorn's: the
drain runs on a thread of its own, then calls uvicorn's handler, which stops the server as
before. A second SIGTERM during the drain goes to uvicorn's handler at once.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import shared

log = logging.getLogger(__name__)
_state = {"started": False, "cleaned": False}
_lock = threading.Lock()


def install(bound_s: float) -> bool:
    """Chains the drain in front of the SIGTERM handler there is now (uvicorn's). False where
    no handler can be set (not the main thread)."""
    try:
        previous = signal.getsignal(signal.SIGTERM)

        def handler(signum: int, frame: Any) -> None:
            with _lock:
                again, _state["started"] = _state["started"], True
            if again:  # a second SIGTERM: stop now
                _call(previous, signum, frame)
                return
            threading.Thread(
                target=_drain_then, args=(bound_s, lambda: _call(previous, signum, frame)), daemon=True
            ).start()

        signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread
        return False
    return True


def _call(previous: Any, signum: int, frame: Any) -> None:
    if callable(previous):
        previous(signum, frame)
    elif previous == signal.SIG_DFL:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)


def _drain_then(bound_s: float, stop: Callable[[], None]) -> None:
    started = time.monotonic()
    try:
        cut = drain(bound_s)
        clean_up()
        log.warning(
            "SIGTERM: drained in %.1f s (%d Run(s) cut short at the %.0f s bound); stopping",
            time.monotonic() - started,
            cut,
            bound_s,
        )
    except Exception:  # whatever failed, the server still stops
        log.exception("SIGTERM: the drain failed; stopping")
    finally:
        stop()


def drain(bound_s: float) -> int:
    """Drains every executor made (refusing new Runs at once); the Runs cut short."""
    executors = shared.made()
    for executor in executors:
        executor.draining = True  # all closed to new Runs before any is waited for
    return sum(executor.drain(bound_s) for executor in executors)


def clean_up() -> None:
    """Closes the executors (workers, zygotes, the jobs' uids), removes the sandbox's folders
    and this server's job cgroups. Once; also from the lifespan's end."""
    with _lock:
        if _state["cleaned"]:
            return
        _state["cleaned"] = True
    for executor in shared.made():
        executor.draining = True
        try:
            executor.close()
        except Exception:  # a broken pool: the sweeps below still run
            log.exception("closing an executor failed")
    from ..sandbox import layout

    layout.remove_base_dir()
    remove_job_cgroups()


def remove_job_cgroups() -> int:
    """Removes the job cgroups this server made that are still there (a job the drain cut
    short), killing what is left in them. Returns how many."""
    from ..contract.config import Settings
    from ..sandbox.job_cgroup import JobCgroup, JobCgroups

    jobs = JobCgroups.find(Settings.from_env().job_cgroup)
    if jobs is None:
        return 0
    names = {
        path.name for parent in jobs.parents.values() for path in Path(parent).glob(f"job-{os.getpid()}-*")
    }
    for name in names:
        JobCgroup(jobs.version, {c: Path(p) / name for c, p in jobs.parents.items()}).remove(timeout_s=2.0)
    return len(names)
