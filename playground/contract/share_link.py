"""The page's URL grammar: a link that reproduces a run (the code compressed into one query
parameter, every setting, the language). The page keeps its URL in it (ui/state.py), and the HTTP
API answers each run with one (api/), so the same run opens in the page."""

from __future__ import annotations

import base64
import zlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from . import i18n, options
from .config import Settings
from .i18n import _
from .specs import NO_ARGUMENTS

if TYPE_CHECKING:
    from .job_request import JobRequest

# Query-param names: short, because the whole state lives in the URL. The options' own are in
# their table (contract/options.py: "sig", "rr", "jit", "timing", "budget", "sweep").
P_CODE, P_FUNCTION, P_CALLS, P_EXAMPLE, P_EXPORT = "code", "fn", "calls", "example", "export"
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
    *, source: str, function: str, calls: str, values: Mapping[str, Any], export: bool = False
) -> dict[str, str]:
    """The query params of a run's inputs (`calls`: one call a line, as the page's plan;
    `values`: the run's options by name, contract/options.py)."""
    params = {P_CODE: encode_source(source), P_FUNCTION: function, P_CALLS: calls, **options.params(values)}
    if export:
        params[P_EXPORT] = "1"
    return params


def url(base: str, params: dict[str, str]) -> str:
    return f"{base}?{urlencode(params)}"


def of_request(base: str, request: JobRequest) -> str:
    """The page's link for a run asked for by the API."""
    params = input_params(
        source=request.source,
        function=request.function or "",
        calls="\n".join(c.strip() or NO_ARGUMENTS for c in request.calls),
        values=options.values_of(request),
    )
    if request.compare:
        params[P_COMPARE] = request.compare
    params[P_LANG] = i18n.SHORT[i18n.normalise(request.language) or i18n.ENGLISH]
    return url(base, params)
