// "Copy share link" copies the link its popover shows, as its label says. Runs in the app's page
// (st.html in the popover, not iframed): its first run is the popover's first opening, still
// within the click's user activation, so the clipboard may be written; later openings reach it
// through the click listener. A browser that refuses (a page served over plain http) still
// shows the link in the popover, to copy by hand, and no "Copied" note.
(() => {
  // The popover draws its link a moment after it opens: look for it for up to a second (the
  // click's activation lasts longer).
  const copy = (tries = 20) => setTimeout(() => {
    const code = document.querySelector(".st-key-share_link code");
    if (!code) { if (tries > 0) copy(tries - 1); return; }
    if (!navigator.clipboard) return;
    navigator.clipboard.writeText(code.textContent.trim()).then(
      () => document.body.setAttribute("data-share-copied", "1"), () => {});
  }, 50);
  if (!window.__playgroundShareCopy) {
    window.__playgroundShareCopy = true;
    document.addEventListener("click", (event) => {
      const target = event.target;
      if (target && target.closest && target.closest(".st-key-share button")) {
        document.body.removeAttribute("data-share-copied");
        copy();
      }
    });
  }
  copy();
})();
