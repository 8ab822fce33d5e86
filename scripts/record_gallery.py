"""Records every gallery example's report in each language the page speaks, with the real
engine in this process (the examples are ours: no sandbox needed), into
playground/gallery/recorded/<language>/<slug>.json. Run after changing an example, the engine's
report, or the TensorFlow version; tests/unit/gallery/test_gallery.py fails until the
recordings agree with a live run.

    /opt/tf-playground/venv/bin/python scripts/record_gallery.py [SLUG ...]
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from playground import gallery
from playground.contract import i18n
from playground.engine import frames, xla
from playground.engine.pipeline import analyze
from playground.gallery.recorded import path


def main(slugs: list[str]) -> int:
    frames.hide_caller(__file__)  # TF's op stacks would name this script to every reader
    xla.dump_passes()  # a fresh process, as the sandbox's worker: XLA's passes are recorded too
    for example in gallery.EXAMPLES:
        if slugs and example.slug not in slugs:
            continue
        for language in i18n.LANGUAGES:
            report = analyze(dataclasses.replace(example.job(), language=language))
            # The run's own duration is not the example's: a recording says nothing about speed.
            report = dataclasses.replace(report, duration_s=0.0)
            target = path(example.slug, language)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(report.to_json(indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(example.slug, report.status, report.tracing_count, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
