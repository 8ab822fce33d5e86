"""The page's URL grammar: a link that reproduces a run (the code compressed into one query
parameter, every setting, the language). The page keeps its URL in it (ui/state.py), and the HTTP
API answers each run with one (api/), so the same run opens in the page."""

from __future__ import annotations

import base64
import zlib
from collections.abc import Sequence
from urllib.parse import urlencode

from . import i18n
from .config import Settings
from .i18n import _
from .specs import NO_ARGUMENTS

# Query-param names: short, because the whole state lives in the URL.
P_CODE, P_FUNCTION, P_CALLS, P_SIGNATURE = "code", "fn", "calls", "sig"
P_REDUCE, P_JIT, P_TIMING, P_BUDGET, P_EXAMPLE = "rr", "jit", "timing", "budget", "example"
P_SWEEP, P_EXPORT = "sweep", "export"
P_COMPARE = "cmp"
P_LANG = "lang"


def encode_source(source: str) -> str:
    return base64.urlsafe_b64encode(zlib.compress(source.encode(), 9)).decode().rstrip("=")


def decode_source(text: str, max_bytes: int | None = None) -> str:
    """The code of a share link. Inflation stops at max_bytes, so a small link cannot make the
    server inflate a huge source (a zip bomb in the URL); over the limit is a ValueError."""
    limit = Settings.from_env().max_source_bytes if max_bytes is None else max_bytes
    padded = text + "=" * (-len(text) % 4)
    inflater = zlib.decompressobj()
    data = inflater.decompress(base64.urlsafe_b64decode(padded.encode()), limit + 1)
    if len(data) > limit or inflater.unconsumed_tail:
        raise ValueError(_("the shared code is over {limit} bytes").format(limit=limit))
    return data.decode()


def input_params(
    *,
    source: str,
    function: str,
    calls: str,
    reduce_retracing: bool,
    jit_compile: bool,
    timing: bool,
    timing_budget_s: float,
    signature: str = "",
    sweep: str = "",
    export: bool = False,
) -> dict[str, str]:
    """The query params of a run's inputs (`calls`: one call a line, as the page's plan)."""
    params = {
        P_CODE: encode_source(source),
        P_FUNCTION: function,
        P_CALLS: calls,
        P_REDUCE: "1" if reduce_retracing else "0",
        P_JIT: "1" if jit_compile else "0",
        P_TIMING: "1" if timing else "0",
        P_BUDGET: f"{float(timing_budget_s or 2.0):g}",
    }
    if signature:
        params[P_SIGNATURE] = signature
    if sweep:
        params[P_SWEEP] = sweep
    if export:
        params[P_EXPORT] = "1"
    return params


def url(base: str, params: dict[str, str]) -> str:
    return f"{base}?{urlencode(params)}"


def of_request(
    base: str,
    *,
    source: str,
    function: str | None,
    calls: Sequence[str],
    signature: str | None,
    reduce_retracing: bool,
    jit_compile: bool,
    timing: bool,
    timing_budget_s: float,
    sweep: str | None,
    compare: str | None,
    language: str,
) -> str:
    """The page's link for a run asked for by the API (the fields of a JobRequest)."""
    params = input_params(
        source=source,
        function=function or "",
        calls="\n".join(c.strip() or NO_ARGUMENTS for c in calls),
        signature=signature or "",
        sweep=sweep or "",
        reduce_retracing=reduce_retracing,
        jit_compile=jit_compile,
        timing=timing,
        timing_budget_s=timing_budget_s,
    )
    if compare:
        params[P_COMPARE] = compare
    params[P_LANG] = i18n.SHORT[i18n.normalise(language) or i18n.ENGLISH]
    return url(base, params)
