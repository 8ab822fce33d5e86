"""The call plan: per-parameter argument builder, the plain-text plan (key `calls`), and whether a
size sweep fits it; the run itself is checked by ui/request.py."""

from __future__ import annotations

import dataclasses

import streamlit as st

from ..contract import i18n, job_request, plan_fit, source_info, specs
from ..contract.config import Settings
from ..contract.errors import SpecError
from ..contract.i18n import _
from ..contract.options import FieldError
from ..contract.source_info import FunctionInfo
from ..reports.safe_text import code_span
from ..reports.safe_text import markdown_literal as md
from . import folded, keys

KINDS = ("tensor", "python")


def _shape_text(name: str) -> str:
    return str(st.session_state.get(keys.param("shape", name), "3")).strip().strip("[]")


def param_arg(name: str, *, dynamic: bool, info: FunctionInfo | None = None) -> str:
    """One parameter's argument text in the call grammar, e.g. "float32[3]" or "n=2"."""
    kind = st.session_state.get(keys.param("kind", name), "tensor")
    if kind == "python":
        return str(st.session_state.get(keys.param("value", name), "1")).strip() or "None"
    dtype = st.session_state.get(keys.param("dtype", name), default_dtype(name, info))
    shape = _shape_text(name)
    if not dynamic:
        shape = ",".join("1" if d.strip() == "None" else d.strip() for d in shape.split(",") if d.strip())
        if dtype in plan_fit.INTS:  # labels, classes, indices, counts: never negative
            return f"{dtype}[{shape}]{plan_fit.BOUNDS}"
    return f"{dtype}[{shape}]"


def default_dtype(name: str, info: FunctionInfo | None = None) -> str:
    """int32 for a parameter named as labels, classes or indices take (y, labels, idx) that the
    function does no arithmetic on (plan_fit.int_labels), else float32."""
    if not plan_fit.is_label(name):
        return "float32"
    if info is None:
        return "int32"
    return (
        "int32"
        if name in plan_fit.int_labels(info, str(st.session_state.get(keys.SOURCE, "")))
        else "float32"
    )


def append_call(info: FunctionInfo) -> None:
    """on_click: turn the per-parameter choices into one more line of the plan; a plan that
    does not fit the function is replaced, not added to."""
    line = ", ".join(
        f"{p}={param_arg(p, dynamic=False, info=info)}"
        if i and _is_python(p)
        else param_arg(p, dynamic=False, info=info)
        for i, p in enumerate(info.params)
    )
    current = str(st.session_state.get(keys.CALLS, "")).rstrip("\n")
    fits = plan_fit.fits(call_lines(current), info)
    st.session_state[keys.CALLS] = f"{current}\n{line}" if current and fits else line


def follow_code(info: FunctionInfo | None) -> None:
    """When the function to call, or its parameters, change, a plan that no longer fits it is
    replaced: by the plan last used with that function, else one built from its parameters
    (contract/plan_fit.py). The plan it replaced is kept for its own function, and shown under
    the new one. A first view keeps the plan it came with (an example's, a share link's)."""
    key = [info.name, list(info.params)] if info else None
    held = st.session_state.get(keys.PLAN_FOR, "first view")
    st.session_state[keys.PLAN_FOR] = key
    if info is None or held in ("first view", key) or info.wrapped:
        return
    old = str(st.session_state.get(keys.CALLS, ""))
    kept = st.session_state.setdefault(keys.PLANS_KEPT, {})
    if call_lines(old) and plan_fit.fits(call_lines(old), info):
        return
    if held is not None and call_lines(old):
        kept[repr(held)] = old  # back if that function comes back
    source = str(st.session_state.get(keys.SOURCE, ""))
    st.session_state[keys.CALLS] = kept.get(repr(key)) or plan_fit.suggested_call(info, source)
    st.session_state[keys.PLAN_REBUILT] = (info.text(), old, st.session_state[keys.CALLS])


def _rebuilt_note() -> None:
    rebuilt = st.session_state.get(keys.PLAN_REBUILT)
    if not rebuilt or rebuilt[2] != st.session_state.get(keys.CALLS):
        return  # edited since: the note no longer describes the plan
    function, old, _new = rebuilt
    note = _("A plan for {function}: the plan before did not fit it.").format(function=code_span(function))
    if old.strip():
        note += " " + _("It was: {plan}").format(plan=code_span(" · ".join(call_lines(old))))
    st.caption(note)


def problems(lines: list[str], info: FunctionInfo | None) -> list[str]:
    """What Run would refuse in the plan, said as it is typed and as Run words it: a plan over
    the sizes and counts Run refuses it by (then no line of it is parsed, here as at Run), a form
    the grammar cannot read, a call that does not fit the function, or a "?" still to fill in."""
    settings = Settings.from_env()
    over = job_request.plan_problem(lines, settings)
    if over:
        return [over]
    called = None if info is None or info.wrapped else info
    cap = settings.max_tensor_elements
    found = [(number, job_request.call_problem(line, called, cap)) for number, line in enumerate(lines)]
    return [
        job_request.described(FieldError(f"calls[{n}]", problem), lines) for n, problem in found if problem
    ]


def build_signature(info_params: tuple[str, ...]) -> None:
    """on_click: input_signature from the tensor parameters, keeping None for dynamic dims."""
    tensors = [p for p in info_params if not _is_python(p)]
    st.session_state[keys.SIGNATURE] = ", ".join(param_arg(p, dynamic=True) for p in tensors)


def _is_python(name: str) -> bool:
    return st.session_state.get(keys.param("kind", name), "tensor") == "python"


def argument_builder(info: FunctionInfo | None) -> None:
    if info is None or not info.params:
        folded.hold(keys.ARGS_PANEL)  # open or folded, as it was once the code parses again
        return
    held = [keys.param(kind, name) for name in info.params for kind in ("kind", "dtype", "shape", "value")]
    box = folded.expander(
        _("Arguments of {signature}").format(signature=f"{info.name}({', '.join(info.params)})"),
        keys.ARGS_PANEL,
        held=held,
    )
    if box is None:  # folded: nothing drawn (a first visit renders no hidden widgets)
        return
    with box:
        st.caption(
            _(
                "Pick tensor or Python value per parameter, then add a call to the plan. "
                "Use None in a shape for a dynamic dim in the input_signature."
            )
        )
        for name in info.params:
            c1, c2, c3 = st.columns([1.4, 1, 2])  # room for "Python value" whole
            kind_key = keys.param("kind", name)
            st.session_state.setdefault(kind_key, "tensor")
            # The parameter's name as the label: plain, for screen readers (no backticks).
            c1.selectbox(name, KINDS, key=kind_key, format_func=i18n.bound(kind_label))
            if st.session_state[kind_key] == "tensor":
                st.session_state.setdefault(keys.param("dtype", name), default_dtype(name, info))
                st.session_state.setdefault(keys.param("shape", name), "3")
                c2.selectbox("dtype", specs.DTYPES, key=keys.param("dtype", name))
                c3.text_input(_("shape"), key=keys.param("shape", name), help=_("e.g. 3 or 2,3 or None,3"))
            else:
                st.session_state.setdefault(keys.param("value", name), "1")
                c3.text_input(_("Python value"), key=keys.param("value", name))
        b1, b2 = st.columns(2)
        b1.button(_("Add this call to the plan"), key=keys.APPEND_CALL, on_click=append_call, args=(info,))
        b2.button(
            _("Use as input_signature"),
            key=keys.BUILD_SIGNATURE,
            on_click=build_signature,
            args=(info.params,),
        )


def kind_label(kind: str) -> str:
    return {"tensor": _("tensor"), "python": _("Python value")}.get(kind, kind)


def plan_text(info: FunctionInfo | None = None) -> None:
    st.text_area(
        _("Call plan: one call per line"),
        key=keys.CALLS,
        height=110,
        help=_(
            "One call per line, its arguments as in Python. A tensor spec such as float32[2,3] "
            "makes a random tensor of that shape, `int32[8] in [0, 10)` one within bounds; "
            "tf.ones([3]), tf.zeros, tf.fill, tf.range(5), tf.eye(3), tf.random.uniform and "
            "tf.random.normal work as in TensorFlow; tf.constant(0.01) or tf.constant([[1, 2]], "
            "tf.float32) a tensor of those values; tf.Variable(0.01) a variable; make_batch(32) "
            "passes what that function of your code returns, and a line *make_batch(32) its items "
            'as the arguments; a Python literal (1, 0.5, True, "a", None) passes as it is; '
            'name=value passes by keyword. Example: "float32[2,3], lr=0.01". A line "()" is a '
            'call with no arguments; "?" marks an argument still to write.'
        ),
    )
    _rebuilt_note()
    # Said as the plan is typed, not only at Run, and gone once it is fixed. The last Run's
    # refusal stays only while the plan is as it was then, and is not said twice.
    found = problems(call_lines(str(st.session_state.get(keys.CALLS) or "")), info)
    refusal = field_error(keys.CALLS)
    if refusal and refusal not in found:
        show_error(keys.CALLS)
    elif found:
        st.html(f'<div id="{field_anchor(keys.CALLS)}"></div>')  # where "Show the field" leads
    for problem in found:
        st.warning(md(problem))


def field_anchor(key: str) -> str:
    """The id of the place by a field where its error is shown: "Show it" next to Run links here."""
    return f"field-{key}"


def field_error(key: str) -> str:
    """The last Run's refusal of a field, while the field still holds what was refused."""
    message = st.session_state.get(keys.FIELD_ERRORS, {}).get(key)
    refused = st.session_state.get(keys.FIELD_VALUES, {})
    if message and key in refused and refused[key] != st.session_state.get(key):
        return ""  # edited since: the message may describe a problem no longer there
    return str(message or "")


def show_error(key: str) -> None:
    """The field's refusal beside it, as text: it quotes what the field holds, which a share
    link may have filled with markdown."""
    message = field_error(key)
    if message:
        st.html(f'<div id="{field_anchor(key)}"></div>')
        st.error(md(message))


def call_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("#")]


def sweep_error(text: str, lines: list[str], source: str, function: str) -> str:
    """Why the size sweep cannot run (as the engine would resize the plan's last call), or "".
    A plan or sweep over Run's sizes and counts is not parsed here: Run refuses it by them."""
    if job_request.plan_problem(lines, Settings.from_env(), sweep=text):
        return ""
    try:
        sweep = specs.parse_sweep(text)
    except SpecError as error:
        return _("Size sweep: {error}").format(error=error)
    info = next((i for i in source_info.functions(source) if i.name == function), None)
    if isinstance(sweep.arg, str) and info is not None:
        if sweep.arg not in info.params:
            return _("Size sweep: {arg} is not a parameter of {signature}").format(
                arg=repr(sweep.arg), signature=f"{info.name}({', '.join(info.params)})"
            )
        sweep = dataclasses.replace(sweep, arg=info.params.index(sweep.arg))
    if not lines:
        return _("Size sweep: the call plan is empty; the sweep resizes its last call.")
    try:
        last = specs.parse_call(lines[-1])
        for size in sweep.sizes:
            specs.resize(last, sweep, size)
    except SpecError as error:
        return _("Size sweep on the last call ({call}): {error}").format(call=repr(lines[-1]), error=error)
    return ""
