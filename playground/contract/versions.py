"""Which TensorFlow versions are installed and which interpreter runs each, read from each venv's
package metadata (dist-info), never by importing TensorFlow: the Streamlit process must not.

The default is the worker interpreter (PLAYGROUND_PYTHON, else this one). Extra versions live in
venvs beside its venv, named `<venv>-tf<VERSION>` (scripts/install.sh --tf makes them), or in the
venvs that PLAYGROUND_TF_VENVS lists (comma-separated paths).
"""

from __future__ import annotations

import dataclasses
import glob
import importlib.metadata
import os
import pathlib
import sys
import threading
import time
from dataclasses import dataclass

from .config import Settings
from .errors import PlaygroundError
from .i18n import _
from .job import ErrorInfo, Job, Report

TF_DISTRIBUTIONS = ("tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tf-nightly")


class VersionError(PlaygroundError, LookupError):
    """A TensorFlow version that is not installed (the message names those that are)."""


@dataclass(frozen=True)
class TFVersion:
    version: str  # "2.15.1", as the wheel's metadata says
    python: str  # the interpreter whose site-packages hold it
    default: bool = False


def venv_of(python: str) -> str:
    return os.path.dirname(os.path.dirname(os.path.abspath(python)))


def tensorflow_version(venv: str) -> str | None:
    """The TF version installed in a venv (or install prefix), from its dist-info alone."""
    # Only TF's own dist-info dirs: reading every package's metadata costs ~10 ms a venv.
    found = [
        d
        for pattern in ("tensorflow*.dist-info", "tf_nightly*.dist-info")
        for d in glob.glob(os.path.join(venv, "lib", "python3*", "site-packages", pattern))
    ]
    for dist in (importlib.metadata.PathDistribution(pathlib.Path(d)) for d in sorted(found)):
        name = (dist.metadata["Name"] or "").lower().replace("_", "-")
        if name in TF_DISTRIBUTIONS:
            return dist.version
    return None


def default_python(settings: Settings) -> str:
    return settings.python or sys.executable


# Read from disk at most this often per setting: every Run resolves its version, and the globs
# and metadata reads cost a few ms each time (py-spy, bench/capacity.py at 120 visitors).
READ_EVERY_S = 60.0
_read: dict[tuple[str, str], tuple[float, list[TFVersion]]] = {}
_read_lock = threading.Lock()


def installed(settings: Settings) -> list[TFVersion]:
    """The default first, then the extra versions, oldest first; one entry per version. A venv
    added while the server runs is seen within READ_EVERY_S."""
    key = (default_python(settings), settings.tf_venvs)
    with _read_lock:
        held = _read.get(key)
        if held is None or time.monotonic() - held[0] > READ_EVERY_S:
            held = _read[key] = (time.monotonic(), _installed(*key))
    return list(held[1])


def _installed(python: str, tf_venvs: str) -> list[TFVersion]:
    found = [TFVersion(tensorflow_version(venv_of(python)) or "", python, default=True)]
    venvs = [p for p in tf_venvs.split(",") if p.strip()] or sorted(glob.glob(venv_of(python) + "-tf*"))
    for venv in venvs:
        venv = venv.strip()
        interpreter = os.path.join(venv, "bin", "python")
        version = tensorflow_version(venv) if os.access(interpreter, os.X_OK) else None
        if version and all(v.version != version for v in found):
            found.append(TFVersion(version, interpreter))
    extra = sorted(found[1:], key=lambda v: version_key(v.version))
    return found[:1] + extra


def version_key(version: str) -> tuple:
    return tuple(int(p) if p.isdigit() else 0 for p in version.split(".")[:3])


def names(versions: list[TFVersion]) -> str:
    return ", ".join(
        _("{version} (default)").format(version=v.version) if v.default else v.version for v in versions
    )


def resolve(settings: Settings, requested: str) -> TFVersion:
    """The installed version a job asked for ("" is the default); VersionError names the
    installed ones otherwise. "2.15" picks the one installed 2.15.x."""
    versions = installed(settings)
    if not requested:
        return versions[0]
    exact = [v for v in versions if v.version == requested]
    prefix = [v for v in versions if v.version.startswith(requested + ".")]
    match = exact or (prefix if len(prefix) == 1 else [])
    if not match:
        raise VersionError(
            _("TensorFlow {requested} is not installed; installed: {names}").format(
                requested=requested, names=names(versions)
            )
        )
    return match[0]


def settings_for_job(settings: Settings, job: Job) -> Settings:
    """Settings whose worker interpreter is the job's TF version's (VersionError if missing)."""
    version = resolve(settings, job.tf_version)
    return settings if version.default else dataclasses.replace(settings, python=version.python)


def error_report(job: Job, error: VersionError) -> Report:
    """A job naming a version that is not installed: a report that says so; nothing ran."""
    return Report(
        tensorflow_version=job.tf_version,
        device="",
        status="error",
        error=ErrorInfo(type="VersionError", message=str(error)),
        stdout="",
        warnings=[],
        functions=[],
        message=str(error),
    )
