"""What a notebook shows for a run: one rich display object per report, with HTML for Jupyter,
JupyterLab, VS Code and Colab (no front-end extension: plain HTML, and plotly.js loaded by a
script in the output) and the CLI's own text as the plain-text fallback. Built from the Report's
data only, in the run's language; no TensorFlow, no IPython."""

from __future__ import annotations

import dataclasses
import html
import json
import uuid
from typing import Any

from ..contract import i18n, reasons
from ..contract.i18n import _, sentences
from ..contract.job import FunctionReport, Report
from ..contract.source_info import function_source
from ..reports import failure, hlo_passes, line_map, tables
from ..reports.compare import Comparison

# Each rule under `.tfp.tfp`: twice the class outranks the notebook's own output styles (JupyterLab
# right-aligns table cells and wraps <pre> mid-word in outputs).
_CSS = (
    ".tfp{font-family:system-ui,sans-serif;font-size:13px;line-height:1.45;max-width:100%}"
    ".tfp h3{font-size:15px;margin:14px 0 6px}.tfp h4{font-size:13px;margin:10px 0 4px}"
    ".tfp.tfp table{border-collapse:collapse;margin:4px 0}"
    ".tfp.tfp th,.tfp.tfp td{border:1px solid #ddd;padding:2px 8px;text-align:left;"
    "vertical-align:top}.tfp.tfp th{background:#f4f4f4}"
    ".tfp.tfp pre{background:#f7f7f7;padding:6px 8px;border-radius:4px;overflow-x:auto;"
    "margin:4px 0;white-space:pre;word-break:normal}.tfp .tfp-traced{color:#b3261e;font-weight:600}"
    ".tfp .tfp-status{display:inline-block;padding:0 6px;border-radius:4px;color:#fff;"
    "background:#2e7d32}.tfp .tfp-status-error,.tfp .tfp-status-killed,"
    ".tfp .tfp-status-timeout,.tfp .tfp-status-memory{background:#b3261e}"
    ".tfp .tfp-fix{color:#2e7d32}.tfp details{margin:6px 0}"
)


# The run's data beside the HTML, as `analyze --json` prints it: notebook front-ends ignore a type
# they do not know, and a program reading the .ipynb (or nbclient) gets the numbers, not a page.
REPORT_MIME = "application/vnd.tf-playground.report+json"
EXPLAIN_MIME = "application/vnd.tf-playground.explanation+json"


def escape(text: Any) -> str:
    return html.escape(str(text), quote=True)


def table(rows: list[dict], css_class: str = "") -> str:
    """An HTML table of rows that share their keys (the first row's keys are the header)."""
    if not rows:
        return ""
    head = "".join(f"<th>{escape(k)}</th>" for k in rows[0])
    body = "".join(
        "<tr>" + "".join(f"<td>{escape('' if v is None else v)}</td>" for v in row.values()) + "</tr>"
        for row in rows
    )
    return f'<table class="{css_class}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def chart(figure: Any) -> str:
    """A plotly figure as a div and the script that draws it. plotly.js is fetched once per page
    from plotly's CDN (require.js's loader in the classic Notebook, which has one); a page that
    cannot reach it keeps the tables, which hold the same numbers."""
    from plotly.offline import get_plotlyjs_version

    element = f"tfp-{uuid.uuid4().hex}"
    # JSON in a script element: <, > and & as \u escapes (as Django's json_script), whatever
    # plotly's encoder does, so no text in the figure (a report's strings) can end the script.
    spec = figure.to_json().replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    url = f"https://cdn.plot.ly/plotly-{get_plotlyjs_version()}.min.js"
    # Shown until the script draws: a notebook that does not run the output's scripts (one not
    # trusted) or cannot reach the CDN keeps this sentence and the tables.
    missing = escape(
        _(
            "The chart is drawn by plotly.js from cdn.plot.ly, which this page did not "
            "run or could not load; the table above holds the same numbers."
        )
    )
    return f"""<div id="{element}" class="tfp-chart"><p>{missing}</p></div>
<script type="text/javascript">(function () {{
  var spec = {spec}, element = document.getElementById("{element}");
  function draw(Plotly) {{ element.textContent = "";
                          Plotly.newPlot(element, spec.data, spec.layout, {{displaylogo: false}}); }}
  function fail() {{}}               // the sentence in the div stays
  if (window.Plotly) {{ return draw(window.Plotly); }}
  if (typeof window.requirejs === "function" && window.define && window.define.amd) {{
    window.requirejs.config({{paths: {{plotly: "{url[:-3]}"}}}});
    return window.requirejs(["plotly"], draw, fail);
  }}
  window.tfpPlotly = window.tfpPlotly || new Promise(function (loaded, failed) {{
    var script = document.createElement("script");
    script.src = "{url}"; script.onload = loaded; script.onerror = failed;
    document.head.appendChild(script);
  }});
  window.tfpPlotly.then(function () {{ draw(window.Plotly); }}, fail);
}})();</script>"""


def _figures() -> Any:
    """reports.figures, or None where plotly is not installed (`pip install tf-playground`
    without the notebook extra): the tables then stand alone."""
    try:
        from ..reports import figures
    except ImportError:
        return None
    return figures


def _pre(text: str) -> str:
    return f"<pre>{escape(text)}</pre>"


def function_html(function: FunctionReport, source: str) -> str:
    figures = _figures()
    title = _("{name}: {traces} trace(s) in {calls} call(s)").format(
        name=function.name, traces=function.tracing_count, calls=len(function.calls)
    )
    parts = [f"<h3>{escape(title)}</h3>"]
    if function.calls:
        parts.append(table(tables.timeline_rows(function), "tfp-calls"))
        if figures is not None:
            parts.append(chart(figures.tracing_figure(function)))
    parts += [
        f"<p>{escape(_('TF warning: {warning}').format(warning=w))}</p>" for w in function.retracing_warnings
    ]
    if function.concrete_signatures:
        parts.append(
            f"<h4>{escape(_('concrete signatures:'))}</h4>" + _pre("\n".join(function.concrete_signatures))
        )
    if function.converted_code:
        original, first_line = function_source(source, function.name)
        heading = _(
            "Your function beside what AutoGraph made of it (tf.autograph.to_code): "
            "lines of one colour belong together."
        )
        parts.append(f"<h4>{escape(heading)}</h4>")
        parts.append(
            line_map.panes(original, first_line, function.converted_code, function.converted_code_lines)
        )
    if function.conversion_note:
        parts.append(f"<p>{escape(_('note: {note}').format(note=function.conversion_note))}</p>")
    if function.graph is not None:
        parts.append(_graph_html(function))
    if function.xla is not None:
        parts += [
            f'<p class="tfp-xla-{kind}">{escape(sentence)}</p>'
            for kind, sentence in tables.xla_findings(function.xla)
        ]
    if function.hlo:
        lines = _("HLO: {n} lines").format(n=len(function.hlo.splitlines()))
        parts.append(f"<details><summary>{escape(lines)}</summary>{_pre(function.hlo)}</details>")
    if function.hlo_passes:
        changes = "\n\n".join(
            f"{hlo_passes.label(function.hlo_passes, i)}\n{hlo_passes.change_of(function.hlo_passes, i)}"
            for i in range(1, len(function.hlo_passes))
        )
        parts.append(
            f"<details><summary>{escape(hlo_passes.summary(function))}</summary>{_pre(changes)}</details>"
        )
    if tables.cost_summary(function):
        parts.append(f"<p>{escape(tables.cost_summary(function))}</p>")
        parts.append(table(tables.cost_rows(function), "tfp-cost"))
    if function.numbers is not None:
        parts.append(f"<p>{escape(tables.numbers_summary(function.numbers))}</p>")
        parts.append(table(tables.numbers_rows(function.numbers), "tfp-numbers"))
    if function.timing is not None:
        parts.append(
            table(
                tables.mode_rows(function.timing, function.timing.environment.get("device", "")), "tfp-timing"
            )
        )
        if figures is not None:
            parts.append(chart(figures.distribution_figure(function.timing, log=True, points=False)))
    return "".join(parts)


def _graph_html(function: FunctionReport) -> str:
    graph = function.graph
    assert graph is not None
    names = sorted(
        set(graph.op_types) | set(graph.op_types_optimized), key=lambda n: (-graph.op_types.get(n, 0), n)
    )
    rows = [
        {
            _("op type"): n,
            _("traced"): graph.op_types.get(n, 0),
            _("after Grappler"): graph.op_types_optimized.get(n, 0),
        }
        for n in names
    ]
    summary = sentences(
        _("graph: {ops} ops, {optimized} after Grappler.").format(
            ops=graph.op_count, optimized=graph.op_count_optimized
        ),
        graph.note,
    )
    return (
        f"<h4>{escape(summary)}</h4><details><summary>{escape(_('Ops by type'))}</summary>"
        f"{table(rows, 'tfp-ops')}</details>"
    )


def _link(share_url: str) -> str:
    """The link that opens the run in the playground's page (runs on a server have one)."""
    if not share_url:
        return ""
    return (
        f'<p><a href="{escape(share_url)}" target="_blank" rel="noopener">'
        + escape(_("Open this run in the playground"))
        + "</a></p>"
    )


def module_html(report: Report) -> list[str]:
    """Function mode: the module's own top-level code, before the plan's calls."""
    module = report.module
    if module is None:
        return []
    parts = []
    if module.stdout.strip():
        parts.append(
            f"<details open><summary>{escape(_('output of the module-level code (before the plan):'))}"
            f"</summary>{_pre(module.stdout)}</details>"
        )
    notes = [tables.before_plan(module), tables.wrapped_note(module)]
    notes += [
        _("TF warning (module-level code): {warning}").format(warning=w) for w in module.retracing_warnings
    ]
    return parts + [f"<p>{escape(text)}</p>" for text in notes if text]


def report_html(report: Report, source: str, share_url: str = "") -> str:
    status = escape(report.status)
    head = (
        f'<p><span class="tfp-status tfp-status-{status}">{status}</span> '
        f"{escape(report.message)} · TensorFlow {escape(report.tensorflow_version)} · "
        f"{escape(report.device)} · {report.duration_s:.2f} s</p>"
    )
    parts = [f'<div class="tfp"><style>{_CSS}</style>', head]
    parts.append(_link(share_url))
    for why in failure.explanations(report):  # why it failed, where we can say, before the error
        where = _(" (line {line})").format(line=why.line) if why.line else ""
        said = _("why it failed{where}: {why}").format(where=where, why=why.text)
        fix = _("fix: {fix}").format(fix=why.fix)
        parts.append(f'<p><b>{escape(said)}</b><br><span class="tfp-fix">{escape(fix)}</span></p>')
    if report.error is not None:
        raised = report.error.traceback or f"{report.error.type}: {report.error.message}"
        parts.append(_pre(failure.collapse_blank_lines(raised)))
    if report.warnings:
        items = "".join(
            '<li><b>{}</b><br><span class="tfp-fix">{}</span></li>'.format(
                escape(
                    _("line {line} [{code}] {message}").format(line=w.line, code=w.code, message=w.message)
                ),
                escape(_("fix: {fix}").format(fix=w.fix)),
            )
            for w in report.warnings
        )
        parts.append(f"<h3>{escape(_('pitfalls:'))}</h3><ul>{items}</ul>")
    parts += module_html(report)
    for f in report.functions:
        shared = tables.shared_count_note(report.module, f)
        parts += [function_html(f, source)] + ([f"<p>{escape(shared)}</p>"] if shared else [])
    module = report.module.stdout if report.module else ""
    if module and report.stdout.startswith(module):  # shown above: the plan's calls' output here
        rest, title = report.stdout[len(module) :], _("output of the plan's calls:")
    else:
        rest, title = report.stdout, _("stdout of the whole run:")
    if rest.strip():
        parts.append(f"<details open><summary>{escape(title)}</summary>{_pre(rest)}</details>")
    return "".join(parts) + "</div>"


class _View:
    """One rich display object: the HTML, the text fallback and the data, in the run's
    language whatever the notebook's is."""

    mime = REPORT_MIME
    language = "en"

    def _html(self) -> str:
        raise NotImplementedError

    def _text(self) -> str:
        raise NotImplementedError

    def _data(self) -> Any:
        raise NotImplementedError

    def _repr_html_(self) -> str:
        with i18n.using(self.language):
            return self._html()

    def __repr__(self) -> str:
        with i18n.using(self.language):
            return self._text()

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict:
        return {"text/html": self._repr_html_(), "text/plain": repr(self), self.mime: self._data()}


class ReportView(_View):
    """A run in a notebook: `.report` holds the data (the CLI's --json as `.report.to_json()`)."""

    def __init__(self, report: Report, source: str, language: str = "en", share_url: str = "") -> None:
        self.report, self.source, self.language = report, source, language
        self.share_url = share_url

    def _html(self) -> str:
        return report_html(self.report, self.source, self.share_url)

    def _text(self) -> str:
        from ..cli.render_text import render

        return render(self.report)

    def _data(self) -> Any:
        return json.loads(self.report.to_json())


class TraceView(_View):
    """A watched cell (trace mode): the trace report's page, in a frame of its own so that its
    styles stay in it; `.report` holds the data."""

    def __init__(self, report: Report, language: str = "en") -> None:
        self.report, self.language = report, language

    def _html(self) -> str:
        from ..reports import html_report

        page = escape(html_report.render(self.report))
        return f'<iframe srcdoc="{page}" sandbox="" style="width:100%;height:40rem;border:0"></iframe>'

    def _text(self) -> str:
        lines = [self.report.message] + [f"- {w.message}\n  {w.fix}" for w in self.report.warnings]
        return "\n".join(lines)

    def _data(self) -> Any:
        return json.loads(self.report.to_json())


class ComparisonView(_View):
    """A --compare run: the CLI's two-column comparison, then each side in full."""

    def __init__(
        self, comparison: Comparison, source: str, language: str = "en", share_url: str = ""
    ) -> None:
        self.comparison, self.source, self.language = comparison, source, language
        self.share_url = share_url

    def _html(self) -> str:
        c = self.comparison
        sides = "".join(
            f"<details><summary>{escape(name)}: {escape(label)}</summary>"
            f"{report_html(report, self.source)}</details>"
            for name, label, report in (("a", c.side_a, c.a), ("b", c.side_b, c.b))
        )
        return (
            f'<div class="tfp"><style>{_CSS}</style>{_link(self.share_url)}{_pre(self._text())}{sides}</div>'
        )

    def _text(self) -> str:
        from ..cli.render_compare import render

        return render(self.comparison)

    def _data(self) -> Any:
        return json.loads(self.comparison.to_json())


class ExplanationView(_View):
    """%tf_playground_explain: an existing tf.function's traces so far and why each happened."""

    mime = EXPLAIN_MIME

    def __init__(self, explanation: Any, language: str = "en") -> None:
        self.explanation, self.language = explanation, language

    def _head(self) -> str:
        e = self.explanation
        options = ", ".join(f"{k}={v}" for k, v in e.options.items() if v)
        return _("{name}: {traces} trace(s) so far").format(name=e.name, traces=e.tracing_count) + (
            f" ({options})" if options else ""
        )

    def _html(self) -> str:
        rows = [
            {_("trace"): i + 1, _("reason"): reasons.text(t.reason), _("concrete signature"): t.signature}
            for i, t in enumerate(self.explanation.traces)
        ]
        notes = "".join(f"<p>{escape(n)}</p>" for n in self.explanation.notes)
        return (
            f'<div class="tfp"><style>{_CSS}</style><h3>{escape(self._head())}</h3>'
            f"{table(rows, 'tfp-traces')}{notes}</div>"
        )

    def _text(self) -> str:
        lines = [self._head()]
        lines += [
            f"  #{i + 1} {reasons.text(t.reason)}\n      {t.signature}"
            for i, t in enumerate(self.explanation.traces)
        ]
        return "\n".join(lines + [f"  {n}" for n in self.explanation.notes])

    def _data(self) -> Any:
        return dataclasses.asdict(self.explanation)
