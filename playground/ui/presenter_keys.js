// Presenter mode's keys: → / PageDown click "Next", ← / PageUp click "Previous" (a presenter
// clicker sends PageDown/PageUp). Runs in the app's page (st.html, not iframed), once per page:
// the listener stays, and does nothing while presenter mode (its buttons) is off.
(() => {
  if (window.__playgroundPresenterKeys) return;
  window.__playgroundPresenterKeys = true;
  const BUTTONS = {   // widget keys: keys.PRESENT_NEXT, keys.PRESENT_PREVIOUS
    ArrowRight: "present_next", PageDown: "present_next",
    ArrowLeft: "present_previous", PageUp: "present_previous",
  };
  // Keys typed into a field, or that move within a widget (tabs, a slider, a table), stay there.
  // The code editor (Ace) takes its keys through a text area of its own, so it is a field too.
  const OWNS_KEYS = '[role="tablist"], [role="slider"], [role="listbox"], [role="combobox"], ' +
                    '[role="grid"], [data-testid="stDataFrame"]';
  const ownsKeys = (el) => !!el && el.nodeType === 1 && (
    el.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName) ||
    !!el.closest(OWNS_KEYS));
  document.addEventListener("keydown", (event) => {
    const key = BUTTONS[event.key];
    if (!key || event.repeat || event.defaultPrevented ||
        event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    if (ownsKeys(event.target) || ownsKeys(document.activeElement)) return;
    const button = document.querySelector(`.st-key-${key} button`);
    if (!button || button.disabled) return;
    event.preventDefault();   // PageDown would also scroll the page
    button.click();
  });
})();
