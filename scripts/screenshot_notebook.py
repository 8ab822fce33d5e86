"""Takes docs/images/notebook-jupyterlab.png: the `%%tf_playground` magic's output in JupyterLab.

Run it with the project's venv (TensorFlow, plotly, ipykernel, playwright, nbformat) from the repo
root; Debian's Chromium (/usr/bin/chromium) is the browser:

    /opt/tf-playground/venv/bin/python scripts/screenshot_notebook.py [--out PATH] [--keep DIR]
        [--hide-stderr]

(--hide-stderr leaves out the pink stderr block that TensorFlow 2.21's C++ start-up log puts
above the report: TF_CPP_MIN_LOG_LEVEL does not silence its absl messages.) About a minute on
two cores; the PNG is about 250 KB.

JupyterLab itself does not go into the project's venv: it runs from a venv of its own, /tmp/jlab
(or $JLAB_VENV), which the script makes when it is missing (`python3 -m venv`, then
`pip install jupyterlab==4.6.6`). Its kernel is the project's venv: a kernelspec "playground"
("Python (playground)") installed under that venv's prefix, with PYTHONPATH=<repo> and
TF_CPP_MIN_LOG_LEVEL=2 in its env.

What it does: writes a two-cell notebook (`%load_ext playground`, then a `%%tf_playground` cell)
into a temp dir; starts `jupyter lab` headless on a free localhost port with a random token, its
settings, workspaces and config in that temp dir (no news or update toasts, nothing restored from
an earlier session); opens the notebook in Chromium through Playwright, with every request for
https://cdn.plot.ly/** answered by the plotly.js that the plotly package bundles (this machine
cannot reach the CDN); runs all cells from the Run menu; waits for the trace table
(table.tfp-calls) and a drawn plotly chart (.tfp-chart .main-svg); and screenshots the notebook
panel, with the viewport made tall enough for the whole output so JupyterLab's own scrolling does
not cut it. JupyterLab is shut down at the end, also on failure.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[1]
JLAB = pathlib.Path(os.environ.get("JLAB_VENV", "/tmp/jlab"))
JUPYTERLAB_VERSION = "4.6.6"
CHROMIUM = "/usr/bin/chromium"
KERNEL = "playground"
NOTEBOOK = "playground-demo.ipynb"
WIDTH = 1400
MAX_HEIGHT = 4000

CELL = """%%tf_playground
import tensorflow as tf

@tf.function
def scale(x, n):
    print("tracing scale", x.shape, n)
    return x * n

for size in (2, 3, 3):
    scale(tf.ones([size]), 2)
scale(tf.ones([3]), 3)"""


def log(message: str) -> None:
    print(f"[screenshot] {message}", flush=True)


def ensure_jupyterlab() -> None:
    if (JLAB / "bin" / "jupyter-lab").exists():
        return
    log(f"creating {JLAB} with jupyterlab=={JUPYTERLAB_VERSION}")
    subprocess.run([shutil.which("python3") or "python3", "-m", "venv", str(JLAB)], check=True)
    subprocess.run(
        [str(JLAB / "bin" / "pip"), "install", "-q", f"jupyterlab=={JUPYTERLAB_VERSION}"], check=True
    )


def install_kernel() -> None:
    """The project's venv as the kernel "playground", found by the JupyterLab in JLAB."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "ipykernel",
            "install",
            "--prefix",
            str(JLAB),
            "--name",
            KERNEL,
            "--display-name",
            "Python (playground)",
        ],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    spec_file = JLAB / "share" / "jupyter" / "kernels" / KERNEL / "kernel.json"
    spec = json.loads(spec_file.read_text())
    spec["env"] = {"PYTHONPATH": str(ROOT), "TF_CPP_MIN_LOG_LEVEL": "2"}
    spec_file.write_text(json.dumps(spec, indent=1))


def write_notebook(folder: pathlib.Path) -> pathlib.Path:
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": KERNEL, "display_name": "Python (playground)", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    nb.cells = [nbformat.v4.new_code_cell("%load_ext playground"), nbformat.v4.new_code_cell(CELL)]
    path = folder / NOTEBOOK
    nbformat.write(nb, str(path))
    return path


def write_lab_settings(settings: pathlib.Path) -> None:
    """No "get notified about Jupyter news?" toast over the page, no update check."""
    folder = settings / "@jupyterlab" / "apputils-extension"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False})
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_lab(folder: pathlib.Path, port: int, token: str) -> subprocess.Popen:
    env = dict(
        os.environ,
        JUPYTER_CONFIG_DIR=str(folder / ".config"),
        JUPYTER_RUNTIME_DIR=str(folder / ".runtime"),
        JUPYTERLAB_SETTINGS_DIR=str(folder / ".settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(folder / ".workspaces"),
    )
    write_lab_settings(folder / ".settings")
    root = folder / "notebooks"
    process = subprocess.Popen(
        [
            str(JLAB / "bin" / "jupyter-lab"),
            "--no-browser",
            "--ip=127.0.0.1",
            f"--port={port}",
            "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={token}",
            f"--ServerApp.root_dir={root}",
            "--LabApp.news_url=",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        ]
        + (["--allow-root"] if os.geteuid() == 0 else []),
        cwd=root,
        env=env,
        stdout=open(folder / "lab.log", "w"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    deadline = time.time() + 120
    while time.time() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"jupyter lab exited: see {folder / 'lab.log'}")
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status?token={token}", timeout=5).read()
            return process
        except OSError:
            time.sleep(1)
    raise RuntimeError("jupyter lab did not answer within 120 s")


def stop_lab(process: subprocess.Popen, port: int, token: str) -> None:
    """The server's own shutdown (which ends its kernels), then SIGTERM/SIGKILL to its group."""
    try:
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/api/shutdown",
            method="POST",
            headers={"Authorization": f"token {token}"},
        )
        urllib.request.urlopen(request, timeout=10).read()
        process.wait(timeout=30)
    except Exception:  # noqa: BLE001 - the server may already be gone
        pass
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def screenshot(url: str, out: pathlib.Path, hide_stderr: bool = False) -> None:
    from playwright.sync_api import sync_playwright
    from plotly.offline import get_plotlyjs

    plotly_js = get_plotlyjs()
    requested: list[str] = []

    def plotly_from_package(route) -> None:  # type: ignore[no-untyped-def]
        requested.append(route.request.url)
        route.fulfill(status=200, content_type="application/javascript", body=plotly_js)

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": WIDTH, "height": 900})
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.route("https://cdn.plot.ly/**", plotly_from_package)
            page.goto(url)
            # The notebook is open and its kernel ("Python (playground)") has started and is idle;
            # a kernel-choice dialog instead means the kernelspec was not found.
            page.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=120_000)
            page.wait_for_function(
                """() => {
                if (document.querySelector('.jp-Dialog')) return true;
                const name = document.querySelector('.jp-NotebookPanel-toolbar .jp-KernelName');
                return name && name.textContent.trim() === 'Python (playground)' &&
                    document.querySelector('.jp-StatusBar-Widget, #jp-main-statusbar')
                        .textContent.includes('| Idle'); }""",
                timeout=180_000,
            )
            kernel_name = page.inner_text(".jp-NotebookPanel-toolbar .jp-KernelName").strip()
            log(f"kernel: {kernel_name}")
            if page.locator(".jp-Dialog").count() or kernel_name != "Python (playground)":
                raise RuntimeError(f"the notebook did not get its kernel (shows {kernel_name!r})")
            # The file browser closed, so the notebook gets the window's width.
            if page.locator(".jp-SideBar.jp-mod-left .lm-TabBar-tab.lm-mod-current").count():
                page.click(".jp-SideBar.jp-mod-left .lm-TabBar-tab.lm-mod-current")
            page.click(".jp-NotebookPanel .jp-Cell >> nth=0")
            page.click("li.lm-MenuBar-item:has-text('Run')")
            page.click("li.lm-Menu-item[data-command='runmenu:run-all']")
            page.wait_for_selector(".jp-OutputArea table.tfp-calls", timeout=300_000)
            page.wait_for_selector(".jp-OutputArea .tfp-chart .main-svg", timeout=60_000)
            page.wait_for_selector(
                ".jp-NotebookPanel-toolbar .jp-Notebook-ExecutionIndicator[data-status='idle']",
                timeout=120_000,
            )
            page.wait_for_timeout(1000)  # plotly's transitions, fonts
            page.mouse.move(0, 0)
            log(f"plotly.js requests answered locally: {requested}")
            if errors:
                log(f"page errors: {errors}")
            if hide_stderr:
                page.add_style_tag(
                    content=".jp-OutputArea-child:has(> .jp-OutputArea-output"
                    "[data-mime-type='application/vnd.jupyter.stderr'])"
                    "{display:none}"
                )
            # Tall enough that the notebook shows both cells and the whole output unscrolled
            # (its scroller, .jp-WindowedPanel-outer, pads the end by a share of its own height,
            # so the size comes from the last cell's bottom, not from scrollHeight); then the
            # shot is the notebook panel down to that cell.
            measure = """() => {
                const scroller = document.querySelector('.jp-NotebookPanel .jp-WindowedPanel-outer');
                scroller.scrollTop = 0;
                const cells = document.querySelectorAll('.jp-NotebookPanel .jp-Cell');
                const box = scroller.getBoundingClientRect();
                const panel = document.querySelector('.jp-NotebookPanel').getBoundingClientRect();
                const last = cells[cells.length - 1].getBoundingClientRect();
                return {needed: Math.ceil(last.bottom - box.top + 24 + box.top
                                          + (window.innerHeight - box.bottom)),
                        x: panel.left, y: panel.top, width: panel.width,
                        height: Math.ceil(last.bottom + 12 - panel.top)}; }"""
            for _ in range(3):
                box = page.evaluate(measure)
                if box["needed"] <= page.viewport_size["height"]:
                    break
                page.set_viewport_size({"width": WIDTH, "height": min(box["needed"], MAX_HEIGHT)})
                page.wait_for_timeout(1000)
            box = page.evaluate(measure)
            page.wait_for_timeout(300)
            out.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(out), clip={k: box[k] for k in ("x", "y", "width", "height")})
        finally:
            browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out", type=pathlib.Path, default=ROOT / "docs" / "images" / "notebook-jupyterlab.png"
    )
    parser.add_argument(
        "--keep", type=pathlib.Path, default=None, help="work in this folder and keep it (notebook, lab.log)"
    )
    parser.add_argument(
        "--hide-stderr",
        action="store_true",
        help="leave the kernel's stderr output (TensorFlow's C++ start-up log) out of the picture",
    )
    args = parser.parse_args()
    ensure_jupyterlab()
    install_kernel()
    folder = args.keep or pathlib.Path(tempfile.mkdtemp(prefix="tfp-jlab-"))
    (folder / "notebooks").mkdir(parents=True, exist_ok=True)
    write_notebook(folder / "notebooks")
    port, token = free_port(), secrets.token_hex(16)
    log(f"jupyter lab on port {port}, work dir {folder}")
    process = start_lab(folder, port, token)
    try:
        screenshot(f"http://127.0.0.1:{port}/lab/tree/{NOTEBOOK}?token={token}", args.out, args.hide_stderr)
    finally:
        stop_lab(process, port, token)
        log("jupyter lab stopped")
        if args.keep is None:
            shutil.rmtree(folder, ignore_errors=True)
    log(f"wrote {args.out} ({args.out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
