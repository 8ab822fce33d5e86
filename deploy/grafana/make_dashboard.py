"""Writes deploy/grafana/playground.json, the Grafana dashboard of the playground's /metrics
(docs/hosting.md, "What an operator sees"): import it in Grafana, with the compose profile's
Prometheus (or your own) as its data source. Each panel is one row of PANELS; a test checks
that every series they query is one /metrics serves (tests/unit/api/test_grafana_dashboard.py).

    python deploy/grafana/make_dashboard.py
"""

from __future__ import annotations

import json
import pathlib

OUT = pathlib.Path(__file__).with_name("playground.json")
RATE = "5m"

# (title, unit, [(PromQL, legend)]): in the order an operator reads them, two to a row.
PANELS = [
    (
        "Runs per second, by outcome",
        "reqps",
        [(f"sum by (outcome) (rate(playground_runs_total[{RATE}]))", "{{outcome}}")],
    ),
    (
        "Refusals per second, by reason",
        "reqps",
        [(f"sum by (reason) (rate(playground_refusals_total[{RATE}]))", "{{reason}}")],
    ),
    (
        "Waiting for a sandbox slot (p50, p95)",
        "s",
        [
            (
                f"histogram_quantile({q}, sum by (le) (rate(playground_run_wait_seconds_bucket[{RATE}])))",
                f"p{p}",
            )
            for q, p in ((0.5, 50), (0.95, 95))
        ],
    ),
    (
        "Running, slot to report (p50, p95)",
        "s",
        [
            (f"histogram_quantile({q}, sum by (le) (rate(playground_run_seconds_bucket[{RATE}])))", f"p{p}")
            for q, p in ((0.5, 50), (0.95, 95))
        ],
    ),
    (
        "Queue and slots",
        "short",
        [
            ("playground_queue_depth", "waiting"),
            ("playground_running", "running"),
            ("playground_workers_ready", "warm workers"),
        ],
    ),
    (
        "Sandbox kills per second, by cause",
        "ops",
        [(f"sum by (cause) (rate(playground_sandbox_kills_total[{RATE}]))", "{{cause}}")],
    ),
    (
        "Workers started, failed, pools rebuilt (per second)",
        "ops",
        [
            (f"rate(playground_worker_starts_total[{RATE}])", "started"),
            (f"rate(playground_worker_start_failures_total[{RATE}])", "failed to start"),
            (f"rate(playground_pool_restarts_total[{RATE}])", "pool rebuilt"),
        ],
    ),
    (
        "Visitors: page sessions and API streams",
        "short",
        [("playground_open_sessions", "page sessions"), ("playground_api_streams", "API streams")],
    ),
    (
        "Warm-up left, and the server's CPU",
        "s",
        [
            ("playground_warming_seconds", "warm-up left (s)"),
            (f'rate(process_cpu_seconds_total{{job="playground"}}[{RATE}])', "app process CPU (s/s)"),
        ],
    ),
    (
        "Memory of the app process",
        "bytes",
        [('process_resident_memory_bytes{job="playground"}', "resident")],
    ),
]


def panel(number: int, title: str, unit: str, queries: list[tuple[str, str]]) -> dict:
    return {
        "id": number + 1,
        "type": "timeseries",
        "title": title,
        "datasource": {"type": "prometheus", "uid": "${datasource}"},
        "gridPos": {"h": 8, "w": 12, "x": 12 * (number % 2), "y": 8 * (number // 2)},
        "fieldConfig": {"defaults": {"unit": unit}, "overrides": []},
        "targets": [
            {"refId": chr(ord("A") + i), "expr": expr, "legendFormat": legend}
            for i, (expr, legend) in enumerate(queries)
        ],
    }


def dashboard() -> dict:
    return {
        "title": "tf.function playground",
        "uid": "tf-playground",
        "tags": ["tf-playground"],
        "timezone": "utc",
        "refresh": "30s",
        "time": {"from": "now-6h", "to": "now"},
        "schemaVersion": 39,
        "templating": {
            "list": [
                {
                    "name": "datasource",
                    "label": "Prometheus",
                    "type": "datasource",
                    "query": "prometheus",
                }
            ]
        },
        "panels": [panel(i, *row) for i, row in enumerate(PANELS)],
    }


if __name__ == "__main__":
    OUT.write_text(json.dumps(dashboard(), indent=2) + "\n")
    print(f"wrote {OUT}")
