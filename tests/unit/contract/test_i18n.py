"""The zh_CN catalog against the code and the seed article; per-session language; the CLI in Chinese."""

from __future__ import annotations

import json
import os
import pathlib
import re
import string
import subprocess
import sys
import tempfile
import threading
from collections import Counter

import pytest
import repo_paths
from repo_paths import ROOT

from playground import gallery
from playground.contract import i18n, i18n_catalog, reasons
from playground.contract.job import Report
from playground.engine import pitfalls

SEED = pathlib.Path("/work/shared/seed/tf-function-autograph.txt")
PO = i18n_catalog.po_path(i18n.CHINESE)
CJK = "\u4e00-\u9fff"
CLAIMS = {e.article_claim for e in gallery.EXAMPLES if e.article_claim}


@pytest.fixture(scope="module")
def catalog():
    return i18n_catalog.read(PO, i18n.CHINESE)


@pytest.fixture(scope="module")
def template():
    return i18n_catalog.extract()


def translated(catalog):
    return [m for m in catalog if m.id and m.string]


def placeholders(text: str) -> Counter:
    """str.format fields with their specs, plotly's %{x} and printf's %(name)s."""
    found: Counter = Counter()
    for _literal, field, spec, conversion in string.Formatter().parse(text):
        if field is not None:
            found[("format", field, spec, conversion)] += 1
    found.update(("plotly", m) for m in re.findall(r"%\{[^}]*\}", text))
    found.update(("printf", m) for m in re.findall(r"%\([a-z_]+\)[sd]", text))
    found["`"] = text.count("`")  # inline code spans survive translation whole
    found["**"] = text.count("**")  # and so does bold markdown
    return found


# --- the catalog against the code -------------------------------------------------------------


def test_every_string_of_the_code_has_a_chinese_translation(catalog, template) -> None:
    """A `_()` string added without a translation fails here: run the catalog tool, translate."""
    assert i18n_catalog.missing(catalog, template) == []


def test_every_literal_the_code_translates_is_in_the_template(template) -> None:
    """Read from the AST, f-strings included: Babel's extractor does not look inside an
    f-string, so `f"[{_('Show the field')}]"` shipped untranslated, and the check said nothing."""
    import ast

    extracted = {message.id for message in template if message.id}
    missing = []
    for path in sorted((ROOT / "playground").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("_", "N_")
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
                and node.args[0].value not in extracted
            ):
                missing.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.args[0].value!r}")
    assert not missing, "move these out of their f-strings:\n" + "\n".join(missing)


def test_a_string_added_without_translation_is_reported(catalog, tmp_path) -> None:
    """The extraction sees what another branch adds: `_()`, `N_()` and `_p()` alike."""
    package = tmp_path / "playground"
    package.mkdir()
    (package / "new.py").write_text(
        "from playground.contract.i18n import N_, _, _p\n"
        "TITLE = N_('A title no one translated yet')\n"
        "def show():\n    return _('Run'), _p('tab', 'A new tab'), _(TITLE)\n"
    )
    template = i18n_catalog.extract(str(tmp_path))
    assert i18n_catalog.missing(catalog, template) == ["A title no one translated yet", "tab|A new tab"]


def test_the_catalogs_hold_no_string_the_code_no_longer_has(catalog, template) -> None:

    code = {(m.context, m.id) for m in template if m.id}
    assert {(m.context, m.id) for m in catalog if m.id} <= code
    committed = i18n_catalog.read(i18n_catalog.TEMPLATE)
    assert {(m.context, m.id) for m in committed if m.id} == code, (
        "playground.pot is stale: python -m playground.contract.i18n_catalog update"
    )


def test_placeholders_markup_and_code_spans_are_the_same_in_each_translation(catalog) -> None:
    wrong = [m.id for m in translated(catalog) if placeholders(m.id) != placeholders(m.string)]
    assert wrong == []


def test_each_translation_formats_with_the_arguments_its_english_takes(catalog) -> None:
    for message in translated(catalog):
        fields = {f for _l, f, _s, _c in string.Formatter().parse(message.id) if f}
        if not fields:
            continue
        values = {name: 1.5 for name in fields}
        assert message.string.format(**values)


def test_the_committed_mo_is_the_compiled_po(catalog) -> None:
    with tempfile.TemporaryDirectory() as folder:
        fresh = pathlib.Path(folder, "playground.mo")
        fresh.write_bytes(i18n_catalog.compiled(catalog))
        assert fresh.read_bytes() == pathlib.Path(i18n_catalog.mo_path(i18n.CHINESE)).read_bytes(), (
            "playground.mo is stale: python -m playground.contract.i18n_catalog compile"
        )


def test_the_check_command_agrees() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "playground.contract.i18n_catalog", "check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]


# --- Chinese typography and the glossary ------------------------------------------------------

ASCII_PUNCTUATION_BY_CJK = re.compile(rf"[{CJK}][,;:!?]|[,;:!?(][{CJK}]|[{CJK}]\(|\)[{CJK}]")
SPACE_BY_FULL_WIDTH = re.compile(r" [，。：；！？、）]|[（“] ")


def test_chinese_sentences_use_full_width_punctuation(catalog) -> None:
    """Article quotes are exempt: they keep the article's own punctuation."""

    def prose(text: str) -> str:  # without code: `spans`, f(...), %..., SIZE,...
        return re.sub(r"`[^`]*`|\(\.\.\.\)|%\.\.\.|!pip \.\.\.|[,=]\.\.\.", "", text)

    wrong = [
        m.string
        for m in translated(catalog)
        if m.id not in CLAIMS
        and (
            ASCII_PUNCTUATION_BY_CJK.search(prose(m.string))
            or SPACE_BY_FULL_WIDTH.search(m.string)
            or "  " in m.string.strip()
            or "..." in prose(m.string)
        )
    ]
    assert wrong == []


# English word (outside identifiers) -> the glossary's Chinese term (docs/i18n.md).
GLOSSARY_USE = [
    (r"(?<![_\w])retrac(e|es|ed|ing)\b", "重新追踪"),
    (r"(?<![_\w-])trac(e|es|ed|ing)\b", "追踪"),
    (r"\bconcrete (function|signature)s?\b", "具体函数"),
    (r"(?<![_\w])eager(ly)?\b", "即刻执行"),
    (r"(?<![_\w.])graphs?\b(?! log)", "图"),
    (r"(?<![_\w])signatures?\b", "签名"),
    (r"(?<![_\w])pitfalls?\b", "陷阱"),
    (r"\bsandbox(ed)?\b", "沙箱"),
    (r"(?<![_\w])ops?\b", "算子"),
]
# The article's word for eager is 即刻执行; these are the words we do not use.
AVOIDED = ("即时执行", "跟踪", "图形", "操作数", "沙盒")


@pytest.mark.parametrize("english, chinese", GLOSSARY_USE)
def test_glossary_terms_are_used_consistently(catalog, english, chinese) -> None:
    def words(text: str) -> str:  # placeholders, --flags and hyphenated terms (intra-op) are names
        return re.sub(r"\{[^}]*\}|--[\w-]+|\w+-\w+", " ", text)

    using = [m for m in translated(catalog) if m.id not in CLAIMS and re.search(english, words(m.id))]
    assert using, f"no message says {english!r}: the check would prove nothing"
    assert [m.id for m in using if chinese not in m.string] == []


def test_no_translation_uses_an_avoided_term(catalog) -> None:
    assert [m.string for m in translated(catalog) if any(t in m.string for t in AVOIDED)] == []


def seed_text() -> str:
    """The article without its code listings' line-number gutters, whitespace or quote styles."""
    lines = [
        re.sub(r"^\d+\t", "", line)
        for line in SEED.read_text().splitlines()
        if not re.fullmatch(r"\s*\d+\s*", line)
    ]
    return normalise("".join(lines))


def normalise(text: str) -> str:
    return re.sub(r"\s+", "", text).translate(str.maketrans("“”‘’", "\"\"''"))


@pytest.mark.skipif(not SEED.exists(), reason="the seed article is not on this machine")
def test_each_article_claim_quotes_the_articles_own_sentence_in_chinese() -> None:
    seed, zh = seed_text(), i18n.translation(i18n.CHINESE)
    for example in gallery.EXAMPLES:
        if not example.article_claim:
            continue
        quote = zh.gettext(example.article_claim)
        assert quote != example.article_claim, example.slug
        for fragment in quote.split("……"):  # an elision joins two places of the article
            assert normalise(fragment).rstrip("。") in seed, (example.slug, fragment)


@pytest.mark.skipif(not SEED.exists(), reason="the seed article is not on this machine")
def test_the_docs_glossary_marks_the_terms_the_article_uses() -> None:
    rows = re.findall(
        r"^\| (.+?) \| (.+?) \| (yes|no) \|", (ROOT / "docs" / "i18n.md").read_text(), re.MULTILINE
    )
    assert len(rows) >= 10
    seed = seed_text()
    for english, chinese, in_article in rows:
        assert (normalise(chinese) in seed) == (in_article == "yes"), (english, chinese)


# --- choosing and holding the language ----------------------------------------------------------


@pytest.mark.parametrize(
    "tag, language",
    [
        ("zh", "zh_CN"),
        ("zh-CN", "zh_CN"),
        ("zh_CN.UTF-8", "zh_CN"),
        ("zh-Hant-TW", "zh_CN"),
        ("en", "en"),
        ("en-GB", "en"),
        ("C", "en"),
        ("C.UTF-8", "en"),
        ("fr", None),
        ("", None),
    ],
)
def test_language_tags_normalise_to_a_catalog(tag, language) -> None:
    assert i18n.normalise(tag) == language


@pytest.mark.parametrize(
    "header, language",
    [
        ("zh-CN,zh;q=0.9,en;q=0.8", "zh_CN"),
        ("en-US,en;q=0.9,zh-CN;q=0.8", "en"),
        ("fr-FR,fr;q=0.9,zh;q=0.7,en;q=0.5", "zh_CN"),  # the best supported one, by quality
        ("de, en;q=0", None),
        ("", None),
        (None, None),
    ],
)
def test_accept_language_picks_the_best_supported_language(header, language) -> None:
    assert i18n.from_accept_language(header) == language


@pytest.mark.parametrize(
    "environ, language",
    [
        ({"LANG": "zh_CN.UTF-8"}, "zh_CN"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({"LC_ALL": "C", "LANG": "zh_CN.UTF-8"}, "en"),  # LC_ALL overrides LANG, as in gettext
        ({"LANGUAGE": "fr:zh_CN", "LANG": "en_US.UTF-8"}, "zh_CN"),
        ({}, None),
    ],
)
def test_a_terminals_language_comes_from_its_locale_variables(environ, language) -> None:
    assert i18n.from_environment(environ) == language


def test_each_thread_answers_in_its_own_language() -> None:
    """Streamlit runs every session's script in its own thread: languages must not leak."""
    barrier, seen = threading.Barrier(2), {}

    def session(language: str) -> None:
        i18n.use(language)
        barrier.wait()  # both have chosen before either reads
        seen[language] = i18n._("Run")

    threads = [threading.Thread(target=session, args=(lang,)) for lang in ("zh_CN", "en")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen == {"zh_CN": "运行", "en": "Run"}
    assert i18n.current() == "en"  # this thread never chose


def test_a_bound_function_keeps_its_language_in_another_thread() -> None:
    with i18n.using("zh"):
        label = i18n.bound(lambda: i18n._("Run"))
    answer = []
    worker = threading.Thread(target=lambda: answer.append(label()))
    worker.start()
    worker.join()
    assert answer == ["运行"] and i18n._("Run") == "Run"


def test_sentences_join_without_a_space_after_full_width_punctuation() -> None:
    assert i18n.sentences("One.", "Two.") == "One. Two."
    assert i18n.sentences("一。", "二。", "") == "一。二。"


# --- report codes and messages ------------------------------------------------------------------


@pytest.mark.parametrize(
    "reason, chinese",
    [
        ("first call", "首次调用"),
        ("x: shape (3,) -> (2,)", "x：形状 (3,) -> (2,)"),
        ("n: Python value 1 -> 2", "n：Python 值 1 -> 2"),
        ("x: dtype float32 -> int32; y: new argument", "x：dtype float32 -> int32; y：新参数"),
        (
            "x: shape (3,) -> (5,) (reduce_retracing traced it as (None,))",
            "x：形状 (3,) -> (5,)（reduce_retracing 将其追踪为 (None,)）",
        ),
        ("something TF may say one day", "something TF may say one day"),
    ],
)
def test_trace_reasons_are_data_shown_in_the_readers_language(reason, chinese) -> None:
    assert reasons.text(reason) == reason
    with i18n.using("zh"):
        assert reasons.text(reason) == chinese


def recorded(name: str) -> Report:
    return Report.from_json((repo_paths.DATA / f"{name}.json").read_text())


def test_pitfalls_follow_the_language_and_keep_their_codes_and_lines() -> None:
    report = recorded("retracing")
    job = json.loads((repo_paths.DATA / "retracing.job.json").read_text())
    source = job["source"]
    # The recorded run's functions, compiled at their lines without TensorFlow (pure detection).
    stub = source.replace("import tensorflow as tf", "").replace("@tf.function", "@(lambda f: f)")
    namespace: dict = {}
    exec(compile(stub, "playground_input.py", "exec"), namespace)  # noqa: S102 - the recorded example
    functions = [namespace[f.name] for f in report.functions]

    english = pitfalls.detect(source, report.functions, functions)
    with i18n.using("zh_CN"):
        chinese = pitfalls.detect(source, report.functions, functions)
    assert english and [(w.code, w.line, w.function) for w in english] == [
        (w.code, w.line, w.function) for w in chinese
    ]
    for en, zh in zip(english, chinese):
        assert en.message != zh.message and re.search(f"[{CJK}]", zh.message + zh.fix)
    assert "只在追踪时执行" in chinese[0].message and "tf.print" in chinese[0].fix


# --- the CLI --------------------------------------------------------------------------------------


def cli(*args: str, env: dict | None = None, timeout: int = 180) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("LANG", "LC_"))}
    environ.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "playground", *args],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_the_example_list_follows_lang_and_the_flag_wins() -> None:
    chinese = cli("example", env={"LANG": "zh_CN.UTF-8"})
    assert chinese.returncode == 0 and "追踪与多态分发" in chinese.stdout
    english = cli("example", "--lang", "en", env={"LANG": "zh_CN.UTF-8"})
    assert "Tracing and polymorphic dispatch" in english.stdout and "追踪" not in english.stdout
    assert "追踪与多态分发" in cli("example", "--lang", "zh").stdout


def test_cli_lang_zh_prints_the_pitfall_explanation_in_chinese(tmp_path) -> None:
    """A real run through the sandbox: the worker writes the pitfall in the job's language."""
    path = tmp_path / "process.py"
    path.write_text(gallery.BY_SLUG["retracing"].source)
    calls = [arg for call in ("float32[3]", "float32[3]", "float32[2]") for arg in ("--call", call)]
    done = cli("analyze", str(path), "--function", "process", *calls, "--lang", "zh")
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    assert "陷阱：" in out and "[print-at-trace]" in out
    assert re.search(r"process 中的 print\(\) 只在追踪时执行：3 次调用中有 2 次打印了内容", out)
    assert "修正：改用 tf.print(...)，每次调用都会打印。" in out
    assert "原因：x：形状 (3,) -> (2,)" in out and "process：3 次调用，2 次追踪" in out


def test_cli_json_stays_language_neutral_but_its_messages_follow_lang(tmp_path) -> None:
    path = tmp_path / "process.py"
    path.write_text(gallery.BY_SLUG["retracing"].source)
    done = cli(
        "analyze",
        str(path),
        "--function",
        "process",
        "--call",
        "float32[3]",
        "--call",
        "float32[2]",
        "--json",
        env={"LANG": "zh_CN.UTF-8"},
    )
    report = json.loads(done.stdout)
    assert report["status"] == "ok"  # codes stay codes
    assert [w["code"] for w in report["warnings"]] == ["print-at-trace"]
    assert report["functions"][0]["calls"][1]["reason"] == "x: shape (3,) -> (2,)"  # data
    assert "只在追踪时执行" in report["warnings"][0]["message"]  # sentences follow LANG
    assert report["message"] == "1 个函数，2 次调用，2 次追踪"


def test_no_function_hides_the_translator_behind_a_local_underscore() -> None:
    """`a, _, b = ...` in a function that also calls `_()` makes `_` local there: the call then
    raises UnboundLocalError, and only when that line runs in production."""
    import ast

    clashes = []
    for path in [*(ROOT / "playground").rglob("*.py"), ROOT / "app.py"]:
        for function in ast.walk(ast.parse(path.read_text())):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            nodes = list(ast.walk(function))
            binds = any(
                isinstance(n, ast.Name) and n.id == "_" and isinstance(n.ctx, ast.Store) for n in nodes
            )
            calls = any(
                isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "_" for n in nodes
            )
            if binds and calls:
                clashes.append(f"{path.relative_to(ROOT)}:{function.lineno} {function.name}")
    assert clashes == []
