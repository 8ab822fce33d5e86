"""tests/support/streamlit_wire.py against a real Streamlit server and a two-line page: a rerun BackMsg
is one page run with the query string it carries, and a frame that is not a BackMsg closes only
the session that sent it."""

from __future__ import annotations

import asyncio
import pathlib
from collections.abc import Iterator

import pytest
from browser_support import streamlit_server
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit_wire import Session, rerun_message, stream_url

PAGE = """import os
import streamlit as st
with open(os.environ["WIRE_TEST_LOG"], "a") as log:
    log.write(st.query_params.get("q", "-") + "\\n")
st.write("hello")
"""


def test_rerun_message_is_what_a_browser_sends_on_page_open() -> None:
    message = BackMsg()
    message.ParseFromString(rerun_message("example=retracing", url="http://127.0.0.1:8501/"))
    assert message.WhichOneof("type") == "rerun_script"
    assert message.rerun_script.query_string == "example=retracing"
    assert message.rerun_script.HasField("widget_states")  # present, even empty
    assert not message.rerun_script.page_script_hash
    assert message.rerun_script.context_info.url == "http://127.0.0.1:8501/"


@pytest.mark.parametrize(
    "base, expected",
    [
        ("http://127.0.0.1:8501", "ws://127.0.0.1:8501/_stcore/stream"),
        ("https://127.0.0.1:8443/", "wss://127.0.0.1:8443/_stcore/stream"),
        ("http://127.0.0.1:8501/app", "ws://127.0.0.1:8501/app/_stcore/stream"),
    ],
)
def test_stream_url(base: str, expected: str) -> None:
    assert stream_url(base) == expected


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, pathlib.Path]]:
    folder = tmp_path_factory.mktemp("wire")
    script, log = folder / "page.py", folder / "runs.log"
    script.write_text(PAGE)
    log.write_text("")
    with streamlit_server(script=str(script), env={"WIRE_TEST_LOG": str(log)}) as (url, _process):
        yield url, log


def test_a_rerun_is_one_page_run_with_its_query_string(page: tuple[str, pathlib.Path]) -> None:
    url, log = page

    async def two_runs() -> list[str]:
        async with await Session.open(url) as session:
            first = await session.rerun("q=one", timeout=30)
            second = await session.rerun("q=two", timeout=30)
            assert session.page_script_hash  # learnt from new_session
            return [first.status, second.status]

    before = log.read_text().splitlines()
    assert asyncio.run(two_runs()) == ["FINISHED_SUCCESSFULLY"] * 2
    assert log.read_text().splitlines()[len(before) :] == ["one", "two"]


def test_garbage_closes_only_its_own_session(page: tuple[str, pathlib.Path]) -> None:
    url, _log = page

    async def scenario() -> tuple[object, object, bool, str]:
        bystander = await Session.open(url)
        garbage, text = await Session.open(url), await Session.open(url)
        await garbage.send_raw(b"\xff\xff\xff not a protobuf")
        await text.send_raw("a text frame")
        closed_garbage, closed_text = await garbage.wait_closed(10), await text.wait_closed(10)
        still_open = bystander.is_open
        status = (await bystander.rerun("q=after", timeout=30)).status
        await bystander.close()
        return closed_garbage, closed_text, still_open, status

    closed_garbage, closed_text, still_open, status = asyncio.run(scenario())
    assert closed_garbage is not None and closed_garbage.code == 1002 and closed_garbage.by_server
    assert closed_text is not None and closed_text.by_server
    assert still_open and status == "FINISHED_SUCCESSFULLY"
