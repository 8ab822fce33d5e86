"""Job and Report survive the JSON round trip unchanged, nested dataclasses included."""

from __future__ import annotations

from playground.contract.job import (
    CallRecord,
    ErrorInfo,
    FunctionReport,
    GraphInfo,
    Job,
    ModeTiming,
    Report,
    SandboxInfo,
    Timing,
    Warning,
    job_from_json,
    job_to_json,
)


def test_job_round_trip():
    job = Job(
        source="x = 1\n", function="f", calls=("float32[3]", ""), signature="int32[None]", jit_compile=True
    )
    assert job_from_json(job_to_json(job)) == job


def test_report_round_trip_keeps_nested_types():
    timing = Timing(
        eager=ModeTiming(1e-3, [1e-3, 2e-3]),
        graph=ModeTiming(5e-4, [5e-4]),
        xla=None,
        first_call_s={"graph": 0.01, "xla": None},
        speedup_graph=2.0,
    )
    report = Report(
        tensorflow_version="2.21.0",
        device="CPU",
        status="error",
        error=ErrorInfo("ValueError", "bad", 3),
        stdout="hi\n",
        warnings=[Warning("print-at-trace", 4, "m", "f", "g")],
        functions=[
            FunctionReport(
                name="g",
                tracing_count=1,
                calls=[CallRecord(0, "float32[3]", True, "first call", "", "float32[3] [1. 2. 3.]")],
                concrete_signatures=["g(x)"],
                converted_code=None,
                graph=GraphInfo(3, 2, {"Mul": 1}),
                hlo=None,
                timing=timing,
            )
        ],
        sandbox=SandboxInfo("bubblewrap", {"cpu_s": 5}),
    )
    back = Report.from_json(report.to_json())
    assert back == report
    assert isinstance(back.functions[0].calls[0], CallRecord)
    assert isinstance(back.functions[0].timing.eager, ModeTiming)
    assert back.tracing_count == 1


def test_an_errors_headline_is_the_line_a_person_reads_first():
    from playground.contract.job import ErrorInfo

    user_code = (
        'in user code:\n\n    File "playground_input.py", line 5, in bad  *\n        y = x.numpy()\n\n'
        "    AttributeError: 'SymbolicTensor' object has no attribute 'numpy'"
    )
    assert (
        ErrorInfo("AttributeError", user_code).headline()
        == "'SymbolicTensor' object has no attribute 'numpy'"
    )
    assert ErrorInfo("ValueError", "bad value\ndetails").headline() == "bad value"
    assert ErrorInfo("ValueError", "").headline() == ""
