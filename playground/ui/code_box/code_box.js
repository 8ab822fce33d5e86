// The source editor: Ace (vendored beside this file, served by app.py), drawn in the page
// itself as a Streamlit v2 component, so no frame, no second document and no framework load
// before it. Python hears two events, as one state value {id, type, text}: "blur" (when the
// text changed since Python last had it) and "submit" (Ctrl+Enter, Cmd+Enter).
const loading = {};

function script(url) {   // each URL once per page (Ace defines one global); again after a failure
  if (!loading[url]) {
    loading[url] = new Promise((resolve, reject) => {
      const tag = document.createElement("script");
      tag.src = url;
      tag.onload = resolve;
      tag.onerror = () => reject(new Error(url));
      document.head.appendChild(tag);
    }).catch((error) => {
      delete loading[url];
      throw error;
    });
  }
  return loading[url];
}

let events = 0;

// Streamlit's light or dark theme, from the background colour it hands the component.
function theme(element) {
  const rgb = getComputedStyle(element).getPropertyValue("--st-background-color").match(/[0-9a-f]{2}/gi);
  if (!rgb || rgb.length < 3) return "ace/theme/textmate";
  const [r, g, b] = rgb.slice(0, 3).map((hex) => parseInt(hex, 16));
  return 0.299 * r + 0.587 * g + 0.114 * b < 128 ? "ace/theme/tomorrow_night" : "ace/theme/textmate";
}

function build(box, data, send) {
  const ace = window.ace;
  ace.config.set("basePath", data.assets);   // its Python mode loads from the same folder
  const editor = ace.edit(box, {...data.options, mode: "ace/mode/python", theme: theme(box),
                                value: data.text});
  editor.clearSelection();
  editor.renderer.setScrollMargin(4, 4);
  box.known = data.text;   // the text Python has
  const tell = (type) => {
    const text = editor.getValue();
    if (type === "blur" && text === box.known) return;
    box.known = text;
    send({id: `${Date.now()}-${++events}`, type, text});
  };
  editor.commands.addCommand({
    name: "run", bindKey: {win: "Ctrl-Enter", mac: "Command-Enter"}, exec: () => tell("submit"),
  });
  editor.on("blur", () => tell("blur"));
  // A mark belongs to the text that ran: the first edit drops them; the next run brings new ones.
  editor.session.on("change", () => {
    if (editor.session.getAnnotations().length) editor.session.clearAnnotations();
  });
  box.dataset.generation = String(data.generation);
  return editor;
}

export default function ({data, parentElement, setStateValue}) {
  let box = parentElement.querySelector(".pg-code-box");
  if (!box) {
    box = document.createElement("div");
    box.className = "pg-code-box";
    parentElement.appendChild(box);
  }
  script(data.assets + "ace.js").then(() => {
    if (!window.ace) throw new Error("ace.js defined no editor");   // a proxy's page, say
    let editor = box.env && box.env.editor;
    if (!editor) {
      editor = build(box, data, (event) => setStateValue("event", event));
    } else if (box.dataset.generation !== String(data.generation)) {   // code from outside
      box.dataset.generation = String(data.generation);
      box.known = data.text;
      editor.setValue(data.text, -1);
    }
    const look = theme(box);   // light or dark, as Streamlit is now
    if (editor.getOption("theme") !== look) editor.setTheme(look);
    // The marks belong to the text Python has: none while the editor holds newer text. And to
    // a run: a render of this page run's start, drawn after the Run handed over its marks
    // (ui/editor.py's PUSH_MARKS), must not put back the older run's.
    if (editor.getValue() === data.text && data.run >= (box.marksRun || 0)) {
      editor.session.setAnnotations(data.marks);
      box.marksRun = data.run;
    }
  }).catch(() => {
    box.textContent = data.failed;
  });
  // Streamlit calls this on unmount, and also when a render was overtaken by the next one:
  // only a box that has left the page takes its editor along.
  return () => {
    const editor = box.env && box.env.editor;
    if (editor && !box.isConnected) editor.destroy();
  };
}
