"""When things happened in the page, by the page's own clock, for the UI benches.

Playwright's waits (`expect`, `wait_for_selector`, `locator.wait_for`) poll with a back-off: at
0, 20, 50, 100, 100 ms, then every 500 ms. A figure read off them is late by up to half a second
once the first 0.27 s are past (a result drawn at 0.30 s is seen at about 0.77 s), so they only
tell a bench *that* something happened. `CLOCK` tells it *when*: installed with
`context.add_init_script` before any navigation, it stamps, from MutationObservers on the page
and on its same-origin frames (the code editor's), the first moment each rule holds:

  - `editor`: Ace's content layer (`.ace_content`, the selector bench_ui used before) is in
    the editor's frame: Ace is built; its text follows in the same frame or the next;
  - `button`: a `.st-key-run` button is in the document (the floor app's Run, or ours);
  - `run N`: a caption "Run N · TensorFlow" is in the document (the N-th result);
  - `click`: the last press of the Run button (capture phase, before Streamlit sees it).

The page watches its frames itself, at their `load` (and at once): here an init script's
observer in the component's frame watched a document the frame then replaced. If Ace were
built between that replacement and `load`, the stamp would be `load`'s, a little late.
Stamps are epoch milliseconds (`performance.timeOrigin + performance.now()`) and a page's
navigation start is its `performance.timeOrigin`. "In the document" is React's commit;
the paint follows within a frame (about 17 ms at 60 Hz).
"""
from __future__ import annotations

import time

CLOCK = r"""
(() => {
  if (window.parent !== window) return;   // frames are watched from their page, below
  const stamps = {};
  const now = () => performance.timeOrigin + performance.now();
  const watchFrame = (frame) => {   // the editor's component frame (same origin)
    const look = () => {
      const inner = frame.contentDocument;
      if (!inner) return;
      const check = () => {
        if (!("editor" in stamps) && inner.querySelector(".ace_content")) stamps.editor = now();
      };
      check();
      new MutationObserver(check).observe(inner, {childList: true, subtree: true});
    };
    frame.addEventListener("load", look);
    look();
  };
  const stamp = () => {
    if (!("button" in stamps) && document.querySelector(".st-key-run button")) stamps.button = now();
    for (const caption of document.querySelectorAll('[data-testid="stCaptionContainer"]')) {
      const found = /^Run (\d+) · TensorFlow/.exec(caption.textContent || "");
      if (found && !(`run ${found[1]}` in stamps)) stamps[`run ${found[1]}`] = now();
    }
    for (const frame of document.querySelectorAll("iframe")) {
      if (!frame.__clocked) { frame.__clocked = true; watchFrame(frame); }
    }
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
