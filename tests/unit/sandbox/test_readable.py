"""readable(): a pipe's descriptor above select()'s 1024 limit is waited on like any other
(a server holding many visitors' websockets has its workers' pipes up there)."""

from __future__ import annotations

import os
import resource

import pytest

from playground.sandbox.readable import readable

HIGH = 1500  # above FD_SETSIZE (1024)


@pytest.fixture
def high_pipe():
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft <= HIGH:
        pytest.skip(f"RLIMIT_NOFILE {soft} leaves no descriptor above {HIGH}")
    r, w = os.pipe()
    high_r = os.dup2(r, HIGH)
    os.close(r)
    yield high_r, w
    for fd in (high_r, w):
        try:
            os.close(fd)
        except OSError:
            pass


def test_a_descriptor_above_1024_is_waited_on_and_woken(high_pipe):
    r, w = high_pipe
    assert r == HIGH
    assert readable(r, 0) is False
    assert readable(r, 0.05) is False  # waited, nothing came
    os.write(w, b"x")
    assert readable(r, 1.0) is True
    assert os.read(r, 1) == b"x"


def test_end_of_file_counts_as_readable(high_pipe):
    r, w = high_pipe
    os.close(w)
    assert readable(r, 1.0) is True and os.read(r, 1) == b""


def test_a_negative_timeout_is_now():
    r, w = os.pipe()
    try:
        assert readable(r, -3.0) is False
    finally:
        os.close(r), os.close(w)
