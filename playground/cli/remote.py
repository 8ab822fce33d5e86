"""`analyze --server URL`: the job goes to a hosted playground's HTTP API (docs/api.md) instead of
a local sandbox, and the answer is printed exactly as a local run prints it. Standard library
only: this path needs neither TensorFlow nor Streamlit on the user's machine."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

from ..contract import job_request
from ..contract.errors import LimitError, PlaygroundError, SandboxError, SpecError
from ..contract.i18n import _
from ..contract.job_request import JobRequest
from ..contract.protocol import OnEvent

ANALYZE = "/api/v1/analyze"
TIMEOUT_S = 600  # the server's own limits end a run long before this


def analyze(
    server: str, request: JobRequest, on_event: OnEvent | None = None, token: str = ""
) -> dict[str, Any]:
    """The server's answer: a report's JSON (or {"compare": ...}), with its share_url. A refusal
    raises the error a local run would: SpecError (400: exit 2), LimitError (429),
    SandboxError (503, or no answer), PlaygroundError (anything else)."""
    body = json.dumps(job_request.as_mapping(request)).encode()
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/x-ndjson",
        "Accept-Language": request.language,
    }
    if token:
        headers["Authorization"] = f"Bearer {token}"
    asked = urllib.request.Request(server.rstrip("/") + ANALYZE, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(asked, timeout=TIMEOUT_S) as answer:
            for event in _events(answer):
                kind = event.get("event")
                if kind in ("report", "compare"):
                    return {
                        **(event[kind] if kind == "report" else {"compare": event[kind]}),
                        "share_url": event.get("share_url", ""),
                    }
                if kind == "error":
                    raise _error(event)
                if on_event is not None:
                    on_event(event)
    except urllib.error.HTTPError as refused:
        raise _error(_json(refused.read())) from None
    except (urllib.error.URLError, OSError) as unreachable:
        raise SandboxError(
            _("{server}: no answer ({why})").format(
                server=server, why=getattr(unreachable, "reason", unreachable)
            )
        ) from None
    raise SandboxError(_("{server}: the answer ended before the report").format(server=server))


def _events(answer: Any) -> Iterator[dict]:
    for line in answer:
        if line.strip():
            yield _json(line)


def _json(data: bytes) -> dict:
    try:
        value = json.loads(data)
    except ValueError:
        value = None
    return (
        value
        if isinstance(value, dict)
        else {"error": {"status": 502, "message": _("the server's answer is not the playground's")}}
    )


def _error(answer: dict) -> PlaygroundError:
    error = answer.get("error") or {}
    status, message = int(error.get("status") or 0), str(error.get("message") or "")
    if status == 400:  # the CLI's own message for the flag: exit 2
        return SpecError(message)
    if status == 429:
        return LimitError(message)
    if status == 503:
        return SandboxError(message)
    return PlaygroundError(message or _("the server refused the run ({status})").format(status=status))
