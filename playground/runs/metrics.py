"""What an operator sees: the server's numbers in Prometheus' text format, for `GET /metrics`
(api/operator.py serves it to the addresses PLAYGROUND_METRICS_ALLOW names, and the proxy never
passes it on). Every figure is the host's own count; nothing a worker reports is read here.

Counted as they happen (log_run and the fair executor call these):
  playground_runs_total{outcome}            ok | error | timeout | memory | killed | refused
  playground_refusals_total{reason}         warming | maintenance | limit | sandbox | cancelled | ...
  playground_run_wait_seconds               from the press to a slot (histogram)
  playground_run_seconds                    from the slot to the report (histogram)
Read when scraped (the shared executor's own counters, and what the doors register):
  playground_queue_depth, playground_running, playground_warming_seconds,
  playground_worker_starts_total, playground_worker_start_failures_total,
  playground_pool_restarts_total, playground_sandbox_kills_total{cause},
  playground_open_sessions, playground_api_streams
and the process's own (CPU, memory, file descriptors) from prometheus_client.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from prometheus_client import CollectorRegistry, Counter, Histogram, PlatformCollector, ProcessCollector
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest

REGISTRY = CollectorRegistry()
ProcessCollector(registry=REGISTRY)
PlatformCollector(registry=REGISTRY)

# Seconds: a warm Run is a few tenths; a queue under load, seconds; a timeout, tens.
_BUCKETS = (0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 40.0, 80.0, 160.0)
RUNS = Counter("playground_runs", "Runs, by how they ended.", ["outcome"], registry=REGISTRY)
REFUSALS = Counter(
    "playground_refusals",
    "Runs refused or stopped before a report, by reason.",
    ["reason"],
    registry=REGISTRY,
)
WAITING = Histogram(
    "playground_run_wait_seconds", "From the press to a sandbox slot.", buckets=_BUCKETS, registry=REGISTRY
)
RUNNING = Histogram(
    "playground_run_seconds", "From the sandbox slot to the report.", buckets=_BUCKETS, registry=REGISTRY
)
OUTCOMES = ("ok", "error", "timeout", "memory", "killed")  # a report's statuses, as the host finishes them

# Gauges a door registers (the page's open sessions, the API's open streams): name -> (help, read).
_GAUGES: dict[str, tuple[str, Callable[[], float]]] = {}
# The executors to read when scraped (runs/shared.py registers the server's).
_EXECUTORS: list[Callable[[], list[dict]]] = []


def count_run(status: str) -> None:
    RUNS.labels(status if status in OUTCOMES else "error").inc()


def count_refusal(reason: str) -> None:
    RUNS.labels("refused").inc()
    REFUSALS.labels(reason).inc()


def gauge(name: str, help_text: str, read: Callable[[], float]) -> None:
    """Registers (or replaces) a gauge read at each scrape, e.g. the page's open sessions."""
    _GAUGES[name] = (help_text, read)


def executor_stats(read: Callable[[], list[dict]]) -> None:
    """Registers an executor's stats() (fairness.FairExecutor.stats: one dict per queue and
    pool) to be read at each scrape."""
    _EXECUTORS.append(read)


class _Server:
    """The numbers read at scrape time, summed over the registered executors."""

    def collect(self) -> Iterator[Metric]:
        stats = _summed(_read_all())
        for name, help_text, key in (
            ("playground_queue_depth", "Runs waiting for a sandbox slot.", "waiting"),
            ("playground_running", "Runs holding a sandbox slot.", "running"),
            ("playground_warming_seconds", "Seconds of warm-up left (0: Runs are taken).", "warming_s"),
            ("playground_workers_ready", "Warm workers waiting for a job.", "ready"),
        ):
            yield GaugeMetricFamily(name, help_text, value=stats.get(key, 0))
        for name, help_text, key in (
            ("playground_worker_starts", "Workers started (forked from a zygote, or fresh).", "starts"),
            ("playground_worker_start_failures", "Workers that failed to start.", "start_failures"),
            ("playground_pool_restarts", "Worker pools rebuilt after they stopped working.", "restarts"),
            (
                "playground_disk_full_refusals",
                "Runs refused because the jobs' disk (the server's TMPDIR) was full.",
                "disk_full_refusals",
            ),
        ):
            yield CounterMetricFamily(name, help_text, value=stats.get(key, 0))
        kills = CounterMetricFamily(
            "playground_sandbox_kills", "Jobs the host stopped, by cause.", labels=["cause"]
        )
        for cause, count in sorted(stats.get("kills", {}).items()):
            kills.add_metric([cause], count)
        yield kills
        for name, (help_text, read) in sorted(_GAUGES.items()):
            try:
                value = float(read())
            except Exception:  # noqa: BLE001 - a door's gauge that cannot be read is left out
                continue
            yield GaugeMetricFamily(name, help_text, value=value)


def _read_all() -> list[dict]:
    found: list[dict] = []
    for read in list(_EXECUTORS):
        try:
            found.extend(read())
        except Exception:  # noqa: BLE001 - a pool being rebuilt: its numbers next time
            continue
    return found


def _summed(all_stats: Iterable[dict]) -> dict:
    total: dict = {"kills": {}}
    for stats in all_stats:
        for key, value in stats.items():
            if key == "kills":
                for cause, count in value.items():
                    total["kills"][cause] = total["kills"].get(cause, 0) + count
            elif isinstance(value, (int, float)):
                total[key] = total.get(key, 0) + value
    return total


REGISTRY.register(_Server())


def exposition() -> tuple[bytes, str]:
    """The page Prometheus scrapes, and its content type."""
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST
