"""The page as one more client of the request path: its inputs become the JobRequest the API and
the CLI would send, checked and turned into a Job by contract/job_request.py, so the page and
they accept and refuse the same runs with the same limits. Only what the page alone knows is
checked here (an empty editor, a sweep that does not fit the plan)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import streamlit as st

from ..contract import job_request, options
from ..contract.config import Settings
from ..contract.errors import SourceError
from ..contract.i18n import _
from ..contract.job import Job
from ..contract.job_request import FieldError, JobRequest
from . import keys, plan


def page_request(values: Mapping[str, object]) -> JobRequest:
    """The inputs as a request (each option's widget key is its name)."""
    given = {}
    for o in options.OPTIONS:
        value = values.get(o.name)
        if isinstance(value, str):
            value = value.strip()
        # An empty text field is no option; a widget not drawn (Device without a GPU) its default.
        given[o.name] = o.default if value is None or value == "" else value
    if not values.get(keys.TIMING):
        given["sweep"] = None  # the sweep applies with timing on only
    return JobRequest(
        source=str(values.get(keys.SOURCE) or ""),
        function=str(values.get(keys.FUNCTION) or "") or None,
        calls=tuple(plan.call_lines(str(values.get(keys.CALLS) or ""))),
        tf_version=str(st.session_state.get(keys.TF_VERSION) or ""),
        **given,  # type: ignore[arg-type]
    )


def build_job(values: Mapping[str, object], language: str = "en", settings: Settings | None = None) -> Job:
    """The Job of the inputs; a FieldError (or SourceError) for one that cannot run."""
    job = job_request.to_job(page_request(values), settings or Settings.from_env(), hosted=True)
    return dataclasses.replace(job, export=bool(values.get(keys.EXPORT)), language=language)


def checked_job(
    values: Mapping[str, object], settings: Settings, language: str = "en"
) -> tuple[Job | None, dict[str, str]]:
    """The Job of the inputs, checked once; or None, with widget key -> message for each input
    that would be refused."""
    errors: dict[str, str] = {}
    source = str(values.get(keys.SOURCE) or "")
    if not source.strip():
        errors[keys.SOURCE] = _("The editor is empty: paste a function first.")
    lines = plan.call_lines(str(values.get(keys.CALLS) or ""))
    sweep = str(values.get(keys.SWEEP) or "").strip()
    if values.get(keys.TIMING) and sweep:
        message = plan.sweep_error(sweep, lines, source, str(values.get(keys.FUNCTION) or ""))
        if message:
            errors[keys.SWEEP] = message
    job = None
    try:
        job = build_job(values, language, settings)
    except FieldError as error:
        key, message = _as_page_field(error, lines)
        errors.setdefault(key, message)
    except SourceError as error:  # the code's text itself (a null byte): told by the editor
        errors.setdefault(keys.SOURCE, str(error))
    return (None if errors else job), errors


def _as_page_field(error: FieldError, lines: list[str]) -> tuple[str, str]:
    """The request's field as the page's widget, and its message as the page words it."""
    if error.field.startswith("calls["):
        return keys.CALLS, job_request.described(error, lines)
    if error.field == "signature":
        return keys.SIGNATURE, f"input_signature: {error}"
    return error.field, str(error)
