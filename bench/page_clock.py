"""When things happened in the page, by the page's own clock, for the UI benches.

Playwright's waits (`expect`, `wait_for_selector`, `locator.wait_for`) poll with a back-off: at
0, 20, 50, 100, 100 ms, then every 500 ms. A figure read off them is late by up to half a second
once the first 0.27 s are past (a result drawn at 0.30 s is seen at about 0.77 s), so they only
tell a bench *that* something happened. `CLOCK` tells it *when*: installed with
`context.add_init_script` before any navigation, it stamps, from a MutationObserver on the
page, the first moment each rule holds:

  - `editor`: Ace's content layer (`.ace_content`) is in the page: Ace is built, its text set;
  - `button`: a `.st-key-run` button is in the document (the floor app's Run, or ours);
  - `run N`: a caption "Run N · TensorFlow" is in the document (the N-th result);
  - `click`: the last press of the Run button (capture phase, before Streamlit sees it);
  - `recorded`: a caption "Recorded result of this example" is in the document (a gallery
    example's result, drawn from its recording before any Run);
  - `step SLUG`: after `expect_step(page, SLUG)`, the presenter's "Example N of M: `SLUG`"
    and a result (recorded, or a Run's) are in the document together, neither stale.

Stamps are epoch milliseconds (`performance.timeOrigin + performance.now()`) and a page's
navigation start is its `performance.timeOrigin`. "In the document" is React's commit;
the paint follows within a frame (about 17 ms at 60 Hz).
"""

from __future__ import annotations

import time

CLOCK = r"""
(() => {
  if (window.parent !== window) return;   // the page's clock only
  const stamps = {};
  const now = () => performance.timeOrigin + performance.now();
  const stamp = () => {
    if (!("editor" in stamps) && document.querySelector(".ace_content")) stamps.editor = now();
    if (!("button" in stamps) && document.querySelector(".st-key-run button")) stamps.button = now();
    let result = false, step = false;
    for (const caption of document.querySelectorAll('[data-testid="stCaptionContainer"]')) {
      const text = caption.textContent || "";
      const found = /^Run (\d+) · TensorFlow/.exec(text);
      if (found && !(`run ${found[1]}` in stamps)) stamps[`run ${found[1]}`] = now();
      if (text.startsWith("Recorded result") && !("recorded" in stamps)) stamps.recorded = now();
      const fresh = !caption.closest('[data-stale="true"]');
      if (fresh && (found || text.startsWith("Recorded result"))) result = true;
      if (fresh && window.__step && /^Example \d+ of/.test(text) && text.trim().endsWith(`: ${window.__step}`)) step = true;
    }
    if (window.__step && result && step && !(`step ${window.__step}` in stamps)) stamps[`step ${window.__step}`] = now();
  };
  window.__clock = stamps;
  document.addEventListener("click", (event) => {
    if (event.target instanceof Element && event.target.closest(".st-key-run")) stamps.click = now();
  }, true);
  new MutationObserver(stamp).observe(document, {childList: true, subtree: true, characterData: true});
})();
"""


def install(context) -> None:  # type: ignore[no-untyped-def]
    """Every page and frame of this browser context keeps stamps from its first script on."""
    context.add_init_script(CLOCK)


def expect_step(page, slug: str) -> None:  # type: ignore[no-untyped-def]
    """Arms the `step SLUG` rule (before the press that should bring SLUG on stage)."""
    page.evaluate("(slug) => { window.__step = slug; }", slug)


def stamps(frame) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """The stamps of one page or frame (epoch ms), and its navigation start as "origin"."""
    return frame.evaluate("() => ({...(window.__clock || {}), origin: performance.timeOrigin})")


def wait_for(frame, name: str, timeout_s: float = 120.0) -> float:  # type: ignore[no-untyped-def]
    """Waits (coarsely: how long does not matter) until `name` is stamped in this page or frame,
    and returns its stamp (epoch ms)."""
    deadline = time.monotonic() + timeout_s
    while True:
        found = stamps(frame).get(name)
        if found is not None:
            return float(found)
        if time.monotonic() > deadline:
            raise TimeoutError(f"{name!r} was not stamped within {timeout_s:g} s")
        time.sleep(0.05)
