"""AppTest of presenter mode (playground/ui/presenter.py) over the real app script, with recorded
reports replayed (tests/support/ui_support.py): the inputs fold away, Previous / Next step in the
article's order and run each example, and the header answers the article's claim."""

from __future__ import annotations

import pytest
from app_support import app_test
from streamlit.testing.v1 import AppTest

from playground import gallery
from playground.contract.specs import parse_call
from playground.gallery import article
from playground.ui import keys, request, state

START = "retracing"  # recorded in tests/data, as is its next example in the article's order


@pytest.fixture
def app(monkeypatch: pytest.MonkeyPatch) -> AppTest:
    return app_test(monkeypatch)


def presenting(app: AppTest, slug: str) -> AppTest:
    app.query_params["present"] = "1"
    app.query_params["example"] = slug
    app.run()
    assert not app.exception
    return app


def header_text(app: AppTest) -> str:
    return "\n".join(m.value for m in app.markdown) + "\n".join(s.value for s in app.subheader)


def metric(app: AppTest, label: str) -> str:
    return next(m.value for m in app.metric if m.label == label)


def test_present_folds_the_inputs_into_a_collapsed_panel(app: AppTest) -> None:
    presenting(app, START)
    assert app.toggle(key=keys.PRESENT).value is True
    panel = next(e for e in app.expander if any(t.key == keys.SOURCE for t in e.get("text_area")))
    assert panel.proto.expanded is False
    for key in (keys.SOURCE, keys.CALLS):
        assert panel.text_area(key=key).value is not None
    assert any(e.label.startswith("Options") for e in panel.get("expander"))  # folded inside
    # The audience sees the code itself, outside the panel, and the Run button beside the steps.
    assert any(c.value.strip() == gallery.BY_SLUG[START].source.strip() for c in app.code)
    assert not panel.get("button") or all(b.key != keys.RUN for b in panel.get("button"))


def test_the_toggle_folds_the_inputs_and_puts_present_in_the_link(app: AppTest) -> None:
    app.run()
    assert not any(e.get("text_area") for e in app.expander)  # the normal page: no panel
    app.toggle(key=keys.PRESENT).set_value(True).run()
    assert any(e.get("text_area") for e in app.expander)
    # sync_url and the share link both come from params_from_values: the link keeps the mode.
    assert app.query_params["present"] == "1" and app.query_params["example"] == START
    app.toggle(key=keys.PRESENT).set_value(False).run()
    assert "present" not in app.query_params


def test_next_and_previous_step_in_the_articles_order_and_run(app: AppTest) -> None:
    presenting(app, START)
    # Opening the mode runs nothing: the step's recorded result is on stage at once.
    assert keys.RESULT not in app.session_state or app.session_state[keys.RESULT] is None
    assert metric(app, "Traces") == str(gallery.BY_SLUG[START].expect.tracing_count)
    following = article.neighbour(START, 1)
    app.button(key=keys.PRESENT_NEXT).click().run()
    assert not app.exception and keys.RUN_ERROR not in app.session_state, app.session_state[keys.RUN_ERROR]
    assert app.session_state[keys.EXAMPLE] == following
    assert app.query_params["example"] == following and app.query_params["present"] == "1"
    example = gallery.BY_SLUG[following]
    assert app.session_state[keys.RESULT].example == following
    assert metric(app, "Traces") == str(example.expect.tracing_count)
    assert example.article_claim in header_text(app) and example.title in header_text(app)
    assert any("claim holds" in s.value for s in app.success)

    app.button(key=keys.PRESENT_PREVIOUS).click().run()
    assert app.session_state[keys.EXAMPLE] == START
    assert app.session_state[keys.RESULT].example == START
    assert app.session_state[keys.RESULT].number == 2  # a second run, not the first one kept
    assert gallery.BY_SLUG[START].article_claim in header_text(app)


@pytest.mark.parametrize("end, past", [(0, keys.PRESENT_PREVIOUS), (-1, keys.PRESENT_NEXT)])
def test_the_ends_of_the_article_disable_the_step_past_them(app: AppTest, end: int, past: str) -> None:
    presenting(app, article.ORDER[end])
    assert app.button(key=past).disabled
    other = keys.PRESENT_NEXT if past == keys.PRESENT_PREVIOUS else keys.PRESENT_PREVIOUS
    assert not app.button(key=other).disabled


@pytest.mark.parametrize("example", gallery.EXAMPLES, ids=lambda e: e.slug)
def test_every_example_opens_as_its_own_job_so_its_claim_is_checked(app: AppTest, example) -> None:
    """Presenter mode runs each example as loaded: script mode stays script mode (the function
    picker offers it) and no-argument calls stay calls (the plan writes them "()")."""
    app.query_params["example"] = example.slug
    app.run()
    values = {k: app.session_state[k] for k in state.STATE_KEYS if k in app.session_state}
    assert state.pristine_example(values) == example.slug
    job, own = request.build_job(values), example.job()
    assert (job.source, job.function, job.signature) == (own.source, own.function, own.signature)
    assert [parse_call(c) for c in job.calls] == [parse_call(c) for c in own.calls]


def test_own_code_on_stage_gets_no_claim_of_the_example(app: AppTest) -> None:
    """A share link of one's own code in presenter mode: the stage said 'The article says: ...
    2 traces' of the retracing example beside code that was not it."""
    from playground.contract import share_link

    own = "import tensorflow as tf\n\n\n@tf.function\ndef spin(x):\n    return x\n"
    app.query_params.update(
        share_link.input_params(source=own, function="spin", calls="float32[3]", values={})
    )
    presenting(app, START)
    said = header_text(app)
    assert "Your own code" in said and "The article says" not in said
    assert gallery.BY_SLUG[START].article_claim not in said
