"""The live status of a run: each event of the job as the label the page shows."""

from __future__ import annotations

from playground.reports.safe_text import unescape_markdown as shown


def test_progress_labels_name_queue_position_and_retrace_reason() -> None:
    from playground.ui.run import _describe

    assert _describe({"event": "queued", "position": 2}, 3)[0].startswith("Queued: 2 job(s) ahead")
    label, fraction = _describe(
        {"event": "call_finished", "index": 2, "retraced": True, "reason": "x: shape (3,) -> (2,)"}, 3
    )
    assert shown(label) == "Call 3 of 3: traced (x: shape (3,) -> (2,))" and fraction == 1.0
    assert _describe({"event": "demoted", "after_s": 5.0}, 3) == (
        "Still running after 5 s, so it now runs at low priority: shorter runs go first…",
        None,
    )


def test_queue_eta_is_shown_when_the_pool_sends_one() -> None:
    from playground.ui.run import _describe, eta_text

    assert (
        _describe({"event": "queued", "position": 2, "eta_s": 12.4}, 3)[0]
        == "Queued: 2 job(s) ahead of yours, about 12 s to start"
    )
    assert (
        _describe({"event": "queued", "position": 0, "eta_s": 0.2}, 3)[0]
        == "Waiting for a warm worker, starting in under a second…"
    )
    assert eta_text(None) == eta_text("soon") == eta_text(-1) == ""
    assert eta_text(300) == ", about 5 min to start"


class _Slot:
    """What st.empty() returns, recording what is drawn into it."""

    def __init__(self, drawn: list) -> None:
        self.drawn = drawn

    def caption(self, text: str) -> None:
        self.drawn.append(("caption", text))

    def progress(self, value: float) -> None:
        self.drawn.append(("progress", value))

    def empty(self) -> None:
        self.drawn.append(("empty",))


def test_the_status_is_drawn_at_the_tick_once_and_never_over_the_final_line(monkeypatch) -> None:
    from playground.ui import run

    drawn: list = []
    monkeypatch.setattr(run.st, "empty", lambda: _Slot(drawn))
    progress = run.RunProgress(3)
    first = {"event": "call_finished", "index": 0, "retraced": True, "reason": "first call"}
    progress.on_event(first)
    progress.on_event(dict(first, index=1))
    assert drawn == [("caption", "Submitting…")]  # events only record
    progress.flush()
    progress.flush()  # nothing new: nothing drawn
    assert [d[0] for d in drawn] == ["caption", "caption", "progress"]
    assert shown(drawn[1][1]).startswith("Call 2 of 3")
    progress.on_event(dict(first, index=2))
    progress.finish("Done")
    progress.flush()  # a tick after the end (a compare's side b): the final line stays
    assert drawn[-2:] == [("empty",), ("caption", "Done")]
