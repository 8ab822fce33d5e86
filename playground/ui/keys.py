"""Every widget and session-state key of the app, in one place (tests address widgets by these)."""

from __future__ import annotations

# Inputs. A run option's widget key is its name in contract/options.py (the first few here).
EXAMPLE = "example"
SOURCE = "source"
FUNCTION = "function"
CALLS = "calls"
SIGNATURE = "signature"
REDUCE_RETRACING = "reduce_retracing"
JIT_COMPILE = "jit_compile"
TIMING = "timing"
TIMING_BUDGET = "timing_budget_s"
SWEEP = "sweep"
COMPARE = "compare"  # toggle: run a second side that varies one setting
COMPARE_KIND = "compare_kind"  # what side b varies: compare.KINDS
COMPARE_TF = "compare_tf"  # side b's TensorFlow version
COMPARE_SIGNATURE = "compare_signature"  # side b's input_signature ("" none)
EXPORT = "export"
DEVICE = "device"
TF_VERSION = "tf_version"  # "" the default install; else an installed extra version
RUN = "run"
STOP = "stop"  # shown while a run runs
APPEND_CALL = "append_call"
BUILD_SIGNATURE = "build_signature"
SHARE = "share"
PLAIN_EDITOR = "plain_editor"  # toggle: the plain text area instead of the code editor
CODE_EDITOR = "code_editor"  # the code editor component (its state: the last event it sent)
OPEN_FILE = "open_file"  # file uploader: a .py or .ipynb into the editor
DOWNLOAD_NOTEBOOK = "download_notebook"
PRESENT = "present"  # toggle: presenter mode (ui/presenter.py)
PRESENT_PREVIOUS = "present_previous"
PRESENT_NEXT = "present_next"
LANGUAGE = "language"  # the page's language (i18n.LANGUAGES), also ?lang=

# Results and chart-only controls
RESULT_TAB = "result_tab"  # the open results tab; only it is drawn
RESULT_FUNCTION = "result_function"
OPEN_TAB = "open_tab"  # a results tab to open at the next draw (an example's own tab)
APPLY_FIX = "apply_fix"  # prefix: one button per fixable warning
TIMING_LOG = "timing_log"
TIMING_POINTS = "timing_points"
DOWNLOAD_CSV = "download_csv"
DOWNLOAD_JSON = "download_json"
TRACE_CHART = "trace_chart"
LIBRARY_MAKER = "library_maker"  # + its place: one folded panel per library that made functions
TIMING_BOX = "timing_box"
TIMING_PHASES = "timing_phases"
TIMING_SWEEP = "timing_sweep"
DOWNLOAD_SAVEDMODEL = "download_savedmodel"
DOWNLOAD_TENSORBOARD = "download_tensorboard"
COMPARE_TAB = "compare_tab"  # the open tab of the compare view
COMPARE_FUNCTION = "compare_function"
COMPARE_TRACE_CHART = "compare_trace_chart"
COMPARE_OPS_CHART = "compare_ops_chart"
COMPARE_TIMING_CHART = "compare_timing_chart"
OP_TYPES_CHART = "op_types_chart"
CODE_LINE = "code_line"  # the source line lit up in the Converted code tab
GRAPH_LINE = "graph_line"  # the source line whose ops the Graph tab lists
OPS_BY_LINE_CHART = "ops_by_line_chart"
HLO_PASS = "hlo_pass"  # the XLA pass whose change the Graph tab shows
HLO_COMPARE_A = "hlo_compare_a"  # two snapshots of XLA's passes, diffed
HLO_COMPARE_B = "hlo_compare_b"
HLO_SEARCH = "hlo_search"  # text searched through every pass's HLO
COMPARE_HLO_PASS = "compare_hlo_pass"  # an XLA pass both sides of a compare ran, diffed
CLAIMS_TABLE = "claims_table"  # the gallery's claims x versions table
CLAIMS_PANEL = "claims_panel"  # its expander, open or closed
OPTIONS_PANEL = "options_panel"  # the options' expander (drawn only while open)
OPEN_PANEL = "open_panel"  # the file opener's expander (drawn only while open)
ARGS_PANEL = "args_panel"  # the argument builder's expander (drawn only while open)

# Session state that is not a widget
INITIALISED = "_initialised"
RESULT = "_result"  # ui.state.Result of the last run
FIGURES = "_figures"  # ui.memo: each report's figures, built once
RUN_ERROR = "_run_error"  # message of a run that produced no report
RUN_ERROR_FIELD = "_run_error_field"  # the widget key of the field a refused run names
FIELD_ERRORS = "_field_errors"  # {widget key: message} from validation
FIELD_VALUES = "_field_values"  # {widget key: its value} when those errors were found
LOADED_EXAMPLE = "_loaded_example"
EDITOR_GENERATION = "_editor_generation"  # bumped when code arrives from outside the editor
EDITOR_EVENT = "_editor_event"  # id of the editor event last applied
RUN_REQUESTED = "_run_requested"  # Ctrl+Enter in the editor: run on this rerun
URL_SHOWN = "_url_shown"  # the query params the address bar shows (Back/Forward differ from them)
RUN_LIVE = "_run_live"  # (JobControl, start) of the run in flight: what Stop halts
RUN_REFUSED = "_run_refused"  # why the last press of Run was refused, drawn once beside it
OPENED_FILE = "_opened_file"  # file_id of the upload last loaded
OPEN_NOTE = "_open_note"  # (kind, message) about the file last opened
PRESENT_PENDING = "_present_pending"  # (slug, runs so far) a presenter step still owes a run
LANGUAGE_CHOSEN = "_language_chosen"  # the language came from the URL or the toggle
OPTIONS_NAMED = "_options_named"  # keys of the non-default settings the options named
OPTIONS_ERRORS = "_options_errors"  # keys of the options' fields with an error, last run
PLAN_FOR = "_plan_for"  # [function, params] the plan was last checked against
PLAN_REBUILT = "_plan_rebuilt"  # (function, old plan, new plan) when the plan was rebuilt
FIX_APPLIED = "_fix_applied"  # (run number, its trace count) when a fix was applied from the page
RERUN_PAGE = "_rerun_page"  # a results control changed an input: rerun the whole page once
PLANS_KEPT = "_plans_kept"  # repr([function, params]) -> the plan it had, when it was replaced


def param(kind: str, name: str) -> str:
    """Per-parameter widget key, e.g. param("dtype", "x") -> "param_dtype_x"."""
    return f"param_{kind}_{name}"
