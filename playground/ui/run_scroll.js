// On a phone, Run is a button fixed at the screen's bottom (the page's CSS) and the results
// start far below the inputs: after a Run, bring the results' top into view. Runs in the app's
// page (st.html, not iframed), once per page. A wide screen shows the results beside the
// inputs and is left where its reader put it; presenter mode keeps its own stage.
(() => {
  if (window.__playgroundRunScroll) return;
  window.__playgroundRunScroll = true;
  const NARROW = "(max-width: 640px)";  // the page's phone layout (ui/__init__.py's CSS)
  const APP = '[data-testid="stApp"]';
  let pending = false, ran = false, settle = 0, expire = 0;
  // The results' top: the row that holds Run (fixed at the bottom, its place in the row kept)
  // and the run's status, followed by the results themselves.
  const scroll = () => {
    pending = false;
    const run = document.querySelector(".st-key-run");
    const row = run && run.closest('[data-testid="stHorizontalBlock"]');
    if (row) row.scrollIntoView({block: "start", behavior: "smooth"});
  };
  // The run is over when the script has run and then stayed idle for a moment: a refused Run
  // reruns at once, and a fix's Run reruns the page after the fragment.
  new MutationObserver(() => {
    const app = document.querySelector(APP);
    if (!pending || !app) return;
    clearTimeout(settle);
    if (app.getAttribute("data-test-script-state") === "running") ran = true;
    else if (ran) settle = setTimeout(scroll, 400);
  }).observe(document.body, {subtree: true, attributes: true,
                             attributeFilter: ["data-test-script-state"]});
  document.addEventListener("click", (event) => {
    const target = event.target;
    if (!target || !target.closest || !target.closest(".st-key-run button")) return;
    if (!window.matchMedia(NARROW).matches || document.querySelector(".st-key-presenter_stage")) return;
    pending = true;
    ran = false;
    clearTimeout(expire);
    expire = setTimeout(() => { pending = false; }, 300000);  // a run that never ended
  }, true);
})();
