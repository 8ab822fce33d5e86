"""The share link's grammar: the code compressed into one parameter, inflated under a cap."""

from __future__ import annotations

import pytest

from playground.contract import share_link


def test_a_share_link_that_inflates_past_the_source_limit_is_refused() -> None:
    bomb = share_link.encode_source("a" * (8 << 20))  # 8 MiB of code in a short link
    assert len(bomb) < 20_000
    with pytest.raises(ValueError, match="over 65536 bytes"):
        share_link.decode_source(bomb, max_bytes=65536)
    assert share_link.decode_source(share_link.encode_source("x = 1\n"), max_bytes=65536) == "x = 1\n"
