"""Report codes in the reader's language: a trace reason as the engine records it ("x: shape
(3,) -> (2,)"), and the timing modes (eager, graph, xla).

The report keeps reasons in one fixed, parseable form (pitfalls read "Python value" out of
them), so they are data; this renders their few fixed words at display time. Pure: the engine
uses it too.
"""

from __future__ import annotations

import re

from .i18n import N_, _

_PART = re.compile(
    r"^(?P<name>[^:;]+): (?P<what>dtype|shape|Python value) (?P<change>.+?)"
    r"(?: \(reduce_retracing traced it as (?P<traced>.+)\))?$"
)
_KIND = re.compile(r"^(?P<name>[^:;]+): (?P<change>.+)$")
MODE_NAMES = {"eager": N_("eager"), "graph": N_("graph")}  # "xla" is a name in every language
OTHER = N_(
    "no argument changed: TF traced again for another reason "
    "(e.g. a variable was created on the first trace, or a captured value changed)"
)


def _part(text: str) -> str:
    if text == "first call":
        return _("first call")
    if text == OTHER:
        return _(OTHER)
    if text.endswith(": new argument"):
        return _("{name}: new argument").format(name=text.removesuffix(": new argument"))
    match = _PART.match(text)
    if match:
        what = {
            "dtype": _("dtype {change}"),
            "shape": _("shape {change}"),
            "Python value": _("Python value {change}"),
        }[match["what"]]
        out = f"{match['name']}: " + what.format(change=match["change"])
        if match["traced"]:
            out += _(" (reduce_retracing traced it as {shape})").format(shape=match["traced"])
        return _colon(out)
    match = _KIND.match(text)
    if match:
        change = re.sub(r"\btensor\b", _("tensor"), match["change"])
        return _colon(f"{match['name']}: {change}")
    return text


def _colon(text: str) -> str:
    """The name's colon as the language writes it ("x：形状" in Chinese)."""
    name, _sep, rest = text.partition(": ")
    return _("{name}: {change}").format(name=name, change=rest)


def text(reason: str) -> str:
    """The reason in the current language; unknown forms pass through unchanged."""
    return "; ".join(_part(part) for part in (reason or "").split("; ")) if reason else ""


def python_values(reason: str | None) -> list[tuple[str, str]]:
    """(argument, "0.01 -> 0.005") for each Python value a trace reason says changed."""
    found = []
    for part in (reason or "").split("; "):
        arg, _sep, change = part.partition(": ")
        if change.startswith("Python value"):
            found.append((arg, change.removeprefix("Python value ")))
    return found


def causes(reason: str | None) -> set[str]:
    """What a retrace reason says made the new trace: "value" (a Python value changed, or a
    tensor became one), "shape" (a shape or dtype, or a new argument), "other" (no argument
    changed). None for a first call or no trace."""
    found: set[str] = set()
    if not reason or reason == "first call":
        return found
    for part in reason.split("; "):
        _arg, _sep, change = part.partition(": ")
        if "Python value" in change:
            found.add("value")
        elif change.startswith(("shape", "dtype", "new argument")) or " -> " in change:
            found.add("shape")
        else:
            found.add("other")
    return found


def mode_name(mode: str) -> str:
    """eager, graph, xla as the reader says them; the JSON and the CSV keep the codes."""
    return _(MODE_NAMES[mode]) if mode in MODE_NAMES else mode
