"""The package (pyproject.toml): the wheel builds as `pip install .` builds it (`python -m build`,
isolated, its backend fetched from the package index), installs into a fresh venv with nothing
else, and its `tf-playground` command is `python -m playground` there: help, the gallery with
its translations (package data), and a clear sentence where TensorFlow is missing."""

from __future__ import annotations

import shutil
import subprocess
import sys
import venv
from collections.abc import Iterator
from pathlib import Path

import pytest
import repo_paths

ROOT = repo_paths.ROOT


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A fresh venv's bin/ with only the wheel in it (no dependencies: none are declared)."""
    work = tmp_path_factory.mktemp("package")
    tree = work / "tree"  # the files git keeps (no build leftovers): what git+URL would get
    files = (
        subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT,
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .split("\0")
    )
    for name in filter(None, files):
        if (ROOT / name).is_file():
            (tree / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, tree / name)
    built = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(work / "dist"), str(tree)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    [wheel] = (work / "dist").glob("tf_playground-*.whl")
    venv.create(work / "venv", with_pip=True)
    bin_dir = work / "venv" / "bin"
    subprocess.run(
        [str(bin_dir / "pip"), "install", "-q", "--disable-pip-version-check", str(wheel)],
        check=True,
        timeout=300,
    )
    yield bin_dir


def run(*command: str) -> subprocess.CompletedProcess:
    return subprocess.run(list(command), capture_output=True, text=True, timeout=60)


def test_the_command_is_python_dash_m_playground(installed: Path) -> None:
    script = run(str(installed / "tf-playground"), "--help")
    module = run(str(installed / "python"), "-m", "playground", "--help")
    assert script.returncode == module.returncode == 0, script.stderr
    assert script.stdout == module.stdout and "analyze" in script.stdout


def test_the_wheel_carries_the_translations_and_the_gallery(installed: Path) -> None:
    english = run(str(installed / "tf-playground"), "example")
    chinese = run(str(installed / "tf-playground"), "example", "--lang", "zh")
    assert english.returncode == chinese.returncode == 0, chinese.stderr
    assert "retracing" in english.stdout and english.stdout != chinese.stdout
    assert "追踪" in chinese.stdout


def test_without_tensorflow_a_local_run_says_what_to_install(installed: Path, tmp_path: Path) -> None:
    source = tmp_path / "one.py"
    source.write_text("print(1)\n")
    done = run(str(installed / "tf-playground"), "analyze", str(source), "--in-process")
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip() == (
        "error: TensorFlow is not installed in this Python: pip "
        'install tensorflow (or "tf-playground[tf]"), or run on a '
        "playground server with --server URL"
    )


def test_the_extension_loads_from_the_package(installed: Path) -> None:
    """`%load_ext playground` needs load_ipython_extension on the package itself; importing it
    must not need IPython or TensorFlow (neither is in this venv)."""
    done = run(
        str(installed / "python"),
        "-c",
        "import playground, sys; print(playground.__version__, "
        "callable(playground.load_ipython_extension), 'tensorflow' in sys.modules)",
    )
    assert done.returncode == 0, done.stderr
    version, loader, tensorflow = done.stdout.split()
    assert version.count(".") == 2 and loader == "True" and tensorflow == "False"
