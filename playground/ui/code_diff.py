"""Diff of a function against its AutoGraph conversion, ignoring AutoGraph's load/return noise."""

from __future__ import annotations

import ast
import difflib
import io
import re
import textwrap
import tokenize
from dataclasses import dataclass

# Noise that is not a rewrite: name loads, and the converted def's tf__ prefix.
_LOAD = re.compile(r"ag__\.ld\(([A-Za-z_][A-Za-z0-9_]*)\)")
_LOAD_UNDEFINED = re.compile(r"ag__\.ldu\(\s*lambda\s*:\s*([A-Za-z_][A-Za-z0-9_]*)\s*,\s*'[^']*'\s*\)")
_DEF = re.compile(r"^(async\s+)?def\s+tf__")
_RETVAL = re.compile(r"^retval_\s*=\s*(?!ag__\.UndefinedReturnValue\(\)$)")
# The wrapper every converted function gets: scope, return flag and the return plumbing.
_BOILERPLATE = (
    re.compile(r"^with ag__\.FunctionScope\("),
    re.compile(r"^do_return = (True|False)$"),
    re.compile(r"^retval_ = ag__\.UndefinedReturnValue\(\)$"),
    re.compile(r"^return fscope\.ret\(retval_, do_return\)$"),
)


# Line pairs a diff may compare. difflib's matcher (autojunk off) grows faster than their
# product on repetitive lines: 500 x 500 alternating lines took 0.55 CPU-s here, 700 x 700
# 1.5 and 1,500 x 1,500 14 CPU-s; a saved report (a file, not a run) can carry any converted
# code up to the upload cap. A real function converts to a few hundred lines (200 x 400 =
# 80,000 pairs).
MAX_PAIRS = 250_000


@dataclass(frozen=True)
class CodeDiff:
    """ndiff-style text ("+ " rewritten, "- " original replaced, "  " kept) and its counts;
    `compared` is False when the texts were too long to compare (text: b as it is)."""

    text: str
    added: int
    removed: int
    kept: int
    compared: bool = True


def _too_long(a: list, b: list, shown: list[str]) -> CodeDiff | None:
    """The uncompared result when a and b are over MAX_PAIRS, else None."""
    if len(a) * len(b) <= MAX_PAIRS:
        return None
    return CodeDiff("\n".join(f"  {line}" for line in shown), 0, 0, 0, compared=False)


def _lexed(text: str) -> str:
    """The line's tokens without comments or spacing, strings in one quote style."""
    parts: list[str] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type in (
                tokenize.COMMENT,
                tokenize.NL,
                tokenize.NEWLINE,
                tokenize.INDENT,
                tokenize.DEDENT,
                tokenize.ENDMARKER,
            ):
                continue
            value = token.string
            if token.type == tokenize.STRING:
                try:
                    value = repr(ast.literal_eval(value))
                except (ValueError, SyntaxError):
                    pass
            parts.append(value)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass  # an open bracket or string runs past this line: keep the tokens read so far
    return " ".join(parts) if parts else text.strip()


def normalise(line: str) -> str:
    """The comparison key of one line: AutoGraph's ag__.ld(x) reads as x, retval_ = as return."""
    text = line.strip()
    for _ in range(3):  # loads nest only as deep as attribute chains: ag__.ld(a).b
        text = _LOAD_UNDEFINED.sub(r"\1", _LOAD.sub(r"\1", text))
    text = _DEF.sub(r"\1def ", text)
    text = _RETVAL.sub("return ", text)
    return _lexed(text)


def _is_boilerplate(lines: list[str], index: int) -> bool:
    text = lines[index].strip()
    if any(p.match(text) for p in _BOILERPLATE):
        return True
    following = [line.strip() for line in lines[index + 1 : index + 3]]
    previous = [line.strip() for line in lines[max(0, index - 2) : index]]
    # try: do_return = True ... except: do_return = False; raise (AutoGraph's return guard)
    if text == "try:" and following[:1] == ["do_return = True"]:
        return True
    if text == "except:" and following[:2] == ["do_return = False", "raise"]:
        return True
    return text == "raise" and previous == ["except:", "do_return = False"]


def _compared(lines: list[str], *, converted: bool) -> list[tuple[int, str]]:
    """(index, key) of the lines that take part: no blanks, comments, decorators or wrapper."""
    out = []
    for index, line in enumerate(lines):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        if not converted and text.startswith("@"):
            continue  # to_code drops decorators; @tf.function is what asked for the conversion
        if converted and _is_boilerplate(lines, index):
            continue
        out.append((index, normalise(line)))
    return out


def diff(original: str, converted: str) -> CodeDiff:
    """Real difflib comparison of the user's function with tf.autograph.to_code's output."""
    old = textwrap.dedent(original).splitlines()
    new = converted.rstrip("\n").splitlines()
    old_items, new_items = _compared(old, converted=False), _compared(new, converted=True)
    uncompared = _too_long(old_items, new_items, new)
    if uncompared is not None:
        return uncompared
    matcher = difflib.SequenceMatcher(
        None, [k for _, k in old_items], [k for _, k in new_items], autojunk=False
    )
    status = {i: "  " for i in range(len(new))}  # boilerplate and blanks stay unmarked
    removed_before: dict[int, list[str]] = {}  # converted index -> original lines it replaced
    added = removed = kept = 0
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        for _, (index, _key) in zip(range(j1, j2), new_items[j1:j2]):
            status[index] = "  " if tag == "equal" else "+ "
        if tag == "equal":
            kept += j2 - j1
            continue
        added += j2 - j1
        removed += i2 - i1
        anchor = new_items[j1][0] if j1 < len(new_items) else len(new)
        removed_before.setdefault(anchor, []).extend(old[index] for index, _ in old_items[i1:i2])
    # Converted bodies sit one level deeper, inside the FunctionScope block: align the originals.
    pad = "    " if any(_BOILERPLATE[0].match(line.strip()) for line in new) else ""
    out = []
    for index in range(len(new) + 1):
        out += [f"- {pad}{line}" for line in removed_before.get(index, [])]
        if index < len(new):
            out.append(f"{status[index]}{new[index]}")
    return CodeDiff("\n".join(out), added, removed, kept)


def between(a: str, b: str) -> CodeDiff:
    """Two conversions of one function (compare mode's sides): "- " only in a, "+ " only in b."""
    old, new = a.rstrip("\n").splitlines(), b.rstrip("\n").splitlines()
    uncompared = _too_long(old, new, new)
    if uncompared is not None:
        return uncompared
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    out: list[str] = []
    added = removed = kept = 0
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            kept += i2 - i1
            out += [f"  {line}" for line in old[i1:i2]]
            continue
        removed += i2 - i1
        added += j2 - j1
        out += [f"- {line}" for line in old[i1:i2]] + [f"+ {line}" for line in new[j1:j2]]
    return CodeDiff("\n".join(out), added, removed, kept)
