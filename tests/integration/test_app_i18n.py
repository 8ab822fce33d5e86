"""The app in both languages (AppTest over the real app script): the zh page leaves no English
but identifiers, the URL and the toggle choose the language, and switching keeps everything."""

from __future__ import annotations

import ast

import pytest
from app_support import app_test
from i18n_support import english_words, visible_texts
from streamlit.testing.v1 import AppTest

from playground import gallery
from playground.ui import keys


def app_with(monkeypatch: pytest.MonkeyPatch, executor: str) -> AppTest:
    at = app_test(monkeypatch, executor, timeout=180)
    at.session_state[keys.OPTIONS_PANEL] = True  # opened, as a user would to change a setting
    return at


@pytest.fixture
def replayed(monkeypatch: pytest.MonkeyPatch) -> AppTest:
    return app_with(monkeypatch, "ui_support:replay")


@pytest.fixture
def engine(monkeypatch: pytest.MonkeyPatch) -> AppTest:
    """A real engine run in a child process: its pitfalls and notes come back in the job's language."""
    return app_with(monkeypatch, "ui_support:subprocess_engine")


def code_names(source: str) -> set[str]:
    """The identifiers of the user's code, which the page quotes (function names, parameters)."""
    tree = ast.parse(source)
    return (
        {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        | {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
        | {a.arg for a in ast.walk(tree) if isinstance(a, ast.arg)}
    )


def every_tab_text(at: AppTest) -> list[str]:
    texts = visible_texts(at)
    for label in [t.label for t in at.tabs]:  # only the open tab is drawn
        at.session_state[keys.RESULT_TAB] = label
        at.run()
        texts += visible_texts(at)
    return texts


@pytest.mark.parametrize(
    "slug, timing", [("retracing", True), ("signature-mismatch", False), ("captured-global", False)]
)
def test_the_chinese_page_leaves_no_english_but_identifiers(engine: AppTest, slug: str, timing: bool) -> None:
    engine.query_params["lang"] = "zh"
    engine.query_params["example"] = slug
    engine.run()
    if timing:
        engine.toggle(key=keys.TIMING).set_value(True).run()
    engine.button(key=keys.RUN).click().run()
    assert not engine.exception
    texts = every_tab_text(engine)
    assert any("陷阱" in t or "追踪" in t for t in texts)
    assert english_words(texts, code_names(gallery.BY_SLUG[slug].source)) == []


def test_the_checker_flags_the_english_page(replayed: AppTest) -> None:
    """The same checker on the English page finds English: it can fail."""
    replayed.run()
    replayed.button(key=keys.RUN).click().run()
    left = english_words(every_tab_text(replayed), code_names(gallery.BY_SLUG["retracing"].source))
    assert len(left) > 50 and any("'Traces'" in w for w in left)


def test_lang_param_chooses_chinese_and_the_share_link_keeps_it(replayed: AppTest) -> None:
    replayed.query_params["lang"] = "zh"
    replayed.run()
    assert replayed.title[0].value == "tf.function 演练场"
    assert replayed.button(key=keys.RUN).label == "运行"
    assert replayed.text_area(key=keys.CALLS).label == "调用计划：每行一次调用"
    assert replayed.radio(key=keys.LANGUAGE).value == "zh_CN"
    assert replayed.query_params["lang"] == ["zh"] or replayed.query_params["lang"] == "zh"
    share = next(c.value for c in replayed.code if c.value.startswith("?"))
    assert "lang=zh" in share


def test_without_lang_the_page_is_english_and_the_url_stays_short(replayed: AppTest) -> None:
    replayed.run()
    assert replayed.title[0].value == "tf.function playground"
    assert replayed.button(key=keys.RUN).label == "Run"
    assert "lang" not in replayed.query_params


def test_switching_the_language_keeps_the_code_settings_result_and_open_tab(replayed: AppTest) -> None:
    replayed.query_params["lang"] = "zh"
    replayed.run()
    replayed.button(key=keys.RUN).click().run()  # the recorded retracing run
    assert next(m.value for m in replayed.metric if m.label == "追踪次数") == "2"
    replayed.session_state[keys.RESULT_TAB] = "追踪"
    replayed.run()
    edited = gallery.BY_SLUG["retracing"].source + "# edited after the run\n"
    replayed.text_area(key=keys.SOURCE).set_value(edited)
    replayed.toggle(key=keys.JIT_COMPILE).set_value(True).run()

    replayed.radio(key=keys.LANGUAGE).set_value("en").run()
    assert not replayed.exception
    assert replayed.button(key=keys.RUN).label == "Run"
    assert replayed.text_area(key=keys.SOURCE).value == edited
    assert replayed.toggle(key=keys.JIT_COMPILE).value is True
    assert next(m.value for m in replayed.metric if m.label == "Traces") == "2"  # the same result
    assert any(c.value.startswith("Run 1 ·") for c in replayed.caption)  # and no new run
    assert replayed.session_state[keys.RESULT_TAB] == "Traces"  # the same tab
    assert [t.label for t in replayed.tabs][1] == "Traces"
    assert replayed.query_params["lang"] in ("en", ["en"])  # chosen: a shared link keeps it
