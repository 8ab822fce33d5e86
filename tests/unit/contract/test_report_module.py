"""Function mode's ModuleRun (what the module's own code did before the plan) as the host takes
it from a worker: decoded under the report's bounds (contract/protocol.py, contract/decode.py),
then cut to the output cap and held to counts a run can make (sandbox/outcome.py)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from playground.contract import protocol
from playground.contract.job import ModuleRun, Report, SandboxInfo, to_dict
from playground.sandbox.outcome import finish
from playground.sandbox.supervisor import Outcome

MODULE = ModuleRun("train_step", "module: start\n", calls=6, traces=6, retracing_warnings=["6 out of 6"])
REPORT = Report("2.21.0", "CPU", "ok", None, "module: start\n", [], [], module=MODULE)


def line(**module_changes) -> bytes:
    report = to_dict(REPORT)
    report["module"] = {**report["module"], **module_changes}
    return json.dumps({"event": "report", "report": report}).encode()


def test_a_module_run_round_trips_through_the_hosts_decoder() -> None:
    message = protocol.parse(line())
    assert isinstance(message, protocol.ReportMessage)
    assert message.report.module == MODULE
    assert Report.from_json(REPORT.to_json()) == REPORT  # the trusted path (saved reports) too


def test_a_report_without_one_decodes_to_none() -> None:
    report = to_dict(REPORT)
    del report["module"]
    message = protocol.parse(json.dumps({"event": "report", "report": report}).encode())
    assert isinstance(message, protocol.ReportMessage) and message.report.module is None


def test_the_modules_output_is_long_text_as_the_runs_is() -> None:
    printed = "x" * (protocol.REPORT_BOUNDS.text_chars + 1)  # past a short string's bound
    message = protocol.parse(line(stdout=printed))
    assert isinstance(message, protocol.ReportMessage) and message.report.module.stdout == printed


@pytest.mark.parametrize(
    "changes, field",
    [
        ({"stdout": "x" * (protocol.REPORT_BOUNDS.long_text_chars + 1)}, "module.stdout"),
        ({"calls": "six"}, "module.calls"),
        ({"traces": 2.5}, "module.traces"),
        ({"calls": 1 << 60}, "module.calls"),
        ({"wrapped": "yes"}, "module.wrapped"),
        ({"entry": "f" * 20_000}, "module.entry"),
        ({"retracing_warnings": ["w" * 20_000]}, "module.retracing_warnings[0]"),
        ({"retracing_warnings": "6 out of 6"}, "module.retracing_warnings"),
        ({"entry": None}, "module.entry"),
    ],
)
def test_a_module_run_that_does_not_fit_is_malformed_and_names_the_field(changes, field) -> None:
    with pytest.raises(protocol.MalformedMessage) as refused:
        protocol.parse(line(**changes))
    assert field in str(refused.value)


def test_a_field_the_worker_invents_is_dropped() -> None:
    message = protocol.parse(line(script="<script>"))
    assert isinstance(message, protocol.ReportMessage) and message.report.module == MODULE


LIMITS = SandboxInfo("process", limits={"output_bytes": 100, "memory_mb": 4096})


def test_the_host_cuts_the_modules_output_at_its_own_cap() -> None:
    report = dataclasses.replace(REPORT, module=dataclasses.replace(MODULE, stdout="y" * 500))
    module = finish(Outcome(report=report), LIMITS, 20.0).module
    assert module is not None
    assert module.stdout.startswith("y" * 100) and "y" * 101 not in module.stdout
    assert "[output cut at 100 bytes]" in module.stdout


def test_a_count_no_run_can_make_is_dropped_and_the_rest_kept() -> None:
    report = dataclasses.replace(REPORT, module=dataclasses.replace(MODULE, calls=-3, traces=4))
    module = finish(Outcome(report=report), LIMITS, 20.0).module
    assert module == dataclasses.replace(MODULE, calls=None, traces=4)


def test_a_job_that_claims_to_be_a_saved_trace_report_is_not_taken_at_its_word() -> None:
    """Report.trace says 'ran in your own process, no sandbox': only a file opened in the page
    may carry it, never a sandboxed job's report."""
    from playground.contract.job import SourceLine, TraceRun

    forged = TraceRun("train.py", [SourceLine("train.py", 1, "import os")])
    report = finish(Outcome(report=dataclasses.replace(REPORT, trace=forged)), LIMITS, 20.0)
    assert report.trace is None and report.module == MODULE
