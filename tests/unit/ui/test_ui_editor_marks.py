"""The editor's marks script: user text stays data inside it."""

from __future__ import annotations

import json


def test_the_marks_script_keeps_any_message_inside_it() -> None:
    """A message is user text (an exception's): it stays inside its attribute, as data, and the
    script's own text never changes (the page's Content-Security-Policy allows it by hash)."""
    from html.parser import HTMLParser

    from playground.ui import editor

    text = 'ValueError: "></div></script><!--<script>alert(1)</script> --> </style> & \u2028'
    tags: list = []
    scripts: list = []

    class Reader(HTMLParser):
        def handle_starttag(self, tag, attrs):  # type: ignore[no-untyped-def]
            tags.append((tag, dict(attrs)))

        def handle_data(self, data):  # type: ignore[no-untyped-def]
            if tags and tags[-1][0] == "script":
                scripts.append(data)

    script = editor.push_script([{"row": 4, "column": 0, "type": "error", "text": text}], 1)
    Reader().feed(script)
    assert [tag for tag, _attrs in tags] == ["div", "script"] and scripts == [editor.PUSH_MARKS]
    assert json.loads(tags[0][1]["data-marks"])[0]["text"] == text
    assert not set("<>") & set(tags[0][1]["data-marks"])  # DOMPurify drops a value with "-->"
    assert "<" not in editor.PUSH_MARKS
