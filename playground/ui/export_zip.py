"""Zips a job's export directory for download without following links, then removes it."""

from __future__ import annotations

import io
import os
import shutil
import stat
import zipfile
from dataclasses import dataclass, field

from ..contract.i18n import _

MAX_ZIP_BYTES = 64 * 2**20  # the sum of the files' sizes, before compression
PARTS = ("savedmodel", "tensorboard")


@dataclass(frozen=True)
class Archive:
    """One download: the zip bytes (None when refused), what went in and what was left out."""

    name: str
    data: bytes | None
    files: list[str] = field(default_factory=list)
    size_bytes: int = 0
    skipped: list[str] = field(default_factory=list)  # links, devices, fifos: never read
    message: str = ""  # why there is no zip, when there is none


def _read_regular(path: str) -> bytes | None:
    """The file's bytes if it is still a regular file; O_NOFOLLOW closes the lstat-to-open race."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            return None
        return handle.read()


def zip_tree(root: str, name: str, *, max_bytes: int = MAX_ZIP_BYTES) -> Archive:
    """Regular files under root, stored as name/<relative path>; links are neither followed nor
    stored. Refused (data None, message says so) when the files add up to more than max_bytes."""
    try:
        top = os.lstat(root)
    except OSError:
        return Archive(name, None, message=f"{name}: nothing was written (no {name}/ directory).")
    if not stat.S_ISDIR(top.st_mode):
        return Archive(name, None, message=f"{name}: not a directory (a link or a file), not read.")
    found: list[tuple[str, str, int]] = []
    skipped: list[str] = []
    total = 0
    for folder, dirs, files in os.walk(root, followlinks=False):
        for entry in sorted(dirs):  # os.walk lists a linked directory here but never enters it
            if os.path.islink(os.path.join(folder, entry)):
                skipped.append(os.path.relpath(os.path.join(folder, entry), root))
        dirs.sort()
        for entry in sorted(files):
            path = os.path.join(folder, entry)
            relative = os.path.relpath(path, root)
            try:
                info = os.lstat(path)
            except OSError:
                continue
            if not stat.S_ISREG(info.st_mode):
                skipped.append(relative)
                continue
            total += info.st_size
            found.append((path, relative, info.st_size))
    if total > max_bytes:
        return Archive(
            name,
            None,
            [r for _p, r, _s in found],
            total,
            skipped,
            _("{name}: {size} MiB of files is over the {cap} MiB download cap, so no zip was made.").format(
                name=name, size=f"{total / 2**20:.1f}", cap=f"{max_bytes / 2**20:.0f}"
            ),
        )
    buffer, stored = io.BytesIO(), []
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path, relative, _size in found:
            data = _read_regular(path)
            if data is None:
                skipped.append(relative)
                continue
            archive.writestr(f"{name}/{relative}", data)
            stored.append(relative)
    return Archive(name, buffer.getvalue(), stored, total, skipped)


def remove_tree(path: str) -> None:
    """Deletes the export directory; a link in its place is unlinked, never followed."""
    try:
        if os.path.islink(path) or not os.path.isdir(path):
            os.unlink(path)
        else:
            shutil.rmtree(path)  # rmtree unlinks links inside the tree, never their targets
    except FileNotFoundError:
        pass


EXPORT_PREFIX = "playground-export-"  # what exports.FileSink names its fresh directories


def unsafe_reason(path: str) -> str:
    """Why path is not a job's export directory this process may read and delete, or ""."""
    if not path or not os.path.isabs(path):
        return _("the report names no absolute export directory")
    if os.path.islink(path) or not os.path.isdir(path):
        return _("the export directory is not on this server (it may have been removed already)")
    real = os.path.realpath(path)
    protected = {os.path.realpath(p) for p in ("/", os.path.expanduser("~"), os.getcwd())}
    # Only the sandbox's own fresh dirs (exports.FileSink: mkdtemp "playground-export-*", ours).
    if (
        real in protected
        or os.path.realpath(os.getcwd()).startswith(real + os.sep)
        or not os.path.basename(real).startswith(EXPORT_PREFIX)
        or os.lstat(real).st_uid != os.geteuid()
    ):
        return _("{path} is not a job's scratch directory; it was left alone").format(path=path)
    if not any(os.path.isdir(os.path.join(path, part)) for part in PARTS):
        return _("{path} holds neither savedmodel/ nor tensorboard/; it was left alone").format(path=path)
    return ""


def collect(path: str, *, max_bytes: int = MAX_ZIP_BYTES, remove: bool = True) -> dict[str, Archive]:
    """{"savedmodel": Archive, "tensorboard": Archive} from the job's export directory, which is
    deleted afterwards so nothing the job wrote stays on the server."""
    reason = unsafe_reason(path)
    if reason:  # neither read nor deleted: it may not be the job's at all
        return {
            part: Archive(part, None, message=_("{part}: {reason}.").format(part=part, reason=reason))
            for part in PARTS
        }
    try:
        return {part: zip_tree(os.path.join(path, part), part, max_bytes=max_bytes) for part in PARTS}
    finally:
        if remove:
            remove_tree(path)
