"""Moves export files across the sandbox wall: the worker streams what it exported over its
protocol pipe (regular files only, links never followed), the host writes them into a fresh dir
(no path may leave it, size-capped), and a SavedModel is attached to the fresh worker that
verifies it."""

from __future__ import annotations

import base64
import dataclasses
import os
import shutil
import stat
import tempfile
from collections.abc import Callable

from ..contract import i18n
from ..contract.i18n import _
from ..contract.job import ExportInfo, Job, Report
from ..contract.protocol import FileChunk, OnEvent, as_event

MAX_EXPORT_BYTES = 32 << 20  # base64 on the pipe stays under its 64 MiB event cap
MAX_FILES = 2000  # a SavedModel has a handful; TensorBoard logs one per run
MAX_DEPTH = 16
MAX_PATH = 1024


CHUNK_BYTES = 512 << 10


def walk_files(root: str):
    """(relative path, file object) for each regular file under root; links are never followed
    (O_NOFOLLOW), and fifos or devices the job planted are skipped unopened."""
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(folder, name)
            try:
                fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            except OSError:
                continue
            handle = os.fdopen(fd, "rb")
            if stat.S_ISREG(os.fstat(fd).st_mode):
                yield os.path.relpath(path, root), handle
            handle.close()


def send_files(root: str, send: OnEvent) -> None:
    """Worker side: streams an export over the protocol pipe, so no host dir is ever mounted
    writable into the sandbox (the job's /tmp is a size-capped tmpfs)."""
    for rel, handle in walk_files(root):
        with handle:
            send(as_event(FileChunk(rel, "")))
            while chunk := handle.read(CHUNK_BYTES):
                send(as_event(FileChunk(rel, base64.b64encode(chunk).decode())))


class FileSink:
    """Host side: writes streamed files into a fresh dir of ours. The events come from the job's
    own process, so each is distrusted: paths that leave the dir, too many files, too deep or
    long names, bad base64 and clashing names are refused, and the total size is capped."""

    def __init__(
        self, cap_bytes: int = MAX_EXPORT_BYTES, max_files: int = MAX_FILES, accept: bool = True
    ) -> None:
        self.cap_bytes, self.max_files, self.accept = cap_bytes, max_files, accept
        self.root: str | None = None
        self.total = 0
        self.files: set[str] = set()
        self.refused: list[str] = []
        self.over_cap = False

    def receive(self, event: dict) -> None:
        rel = str(event.get("path", ""))[:MAX_PATH]
        parts = rel.split("/")
        if not self.accept or not _plain_path(parts):
            self.refused.append(rel)
            return
        try:
            data = base64.b64decode(str(event.get("data") or ""), validate=True)
        except ValueError:
            self.refused.append(rel)
            return
        self.total += len(data) + 512  # each file costs something, even an empty one
        if rel not in self.files and len(self.files) >= self.max_files:
            self.over_cap = True
        if self.over_cap or self.total > self.cap_bytes:
            self.over_cap = True
            return
        try:
            if self.root is None:
                self.root = tempfile.mkdtemp(prefix="playground-export-")  # the UI checks the name
            target = os.path.join(self.root, *parts)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "ab" if rel in self.files else "wb") as f:
                f.write(data)
            self.files.add(rel)
        except OSError:  # e.g. "a" is a file and "a/b" wants it a dir
            self.refused.append(rel)

    def result(self) -> tuple[str | None, str]:
        if self.over_cap:
            if self.root:
                shutil.rmtree(self.root, ignore_errors=True)
            return None, (
                f"the export is over {self.cap_bytes >> 20} MiB or {self.max_files} files and was dropped"
            )
        note = f"refused {len(self.refused)} file path(s) or chunk(s)" if self.refused else ""
        return self.root, note


def _plain_path(parts: list[str]) -> bool:
    return 0 < len(parts) <= MAX_DEPTH and all(
        p not in ("", ".", "..") and len(p) <= 255 and "\0" not in p for p in parts
    )


def with_collected(report: Report, host_dir: str | None, note: str) -> Report:
    if report.export is None:
        if host_dir:
            shutil.rmtree(host_dir, ignore_errors=True)
        return report
    reason = " ".join(p for p in (report.export.reason, note) if p)
    return dataclasses.replace(
        report, export=dataclasses.replace(report.export, path=host_dir or "", reason=reason)
    )


def attach(job: Job, job_dir: str, mount: str, uid: int | None) -> Job:
    """Copies each attachment into the job's root-owned dir (readable, never writable, by the
    job's uid) and points the job at the copy as the worker will see it."""
    moved = {}
    for name, host_path in job.attachments.items():
        target = os.path.join(job_dir, name)
        shutil.copytree(host_path, target, symlinks=True)
        for folder, _dirs, files in os.walk(target):
            for path in [folder] + [os.path.join(folder, f) for f in files]:
                if not os.path.islink(path):
                    os.chmod(path, 0o750 if os.path.isdir(path) else 0o640)
                    if uid is not None:
                        os.chown(path, 0, uid)
        moved[name] = os.path.join(mount, name)
    return dataclasses.replace(job, attachments=moved)


def verify_job(job: Job, report: Report) -> Job | None:
    """The follow-up job that reloads the export in a fresh worker, if there is one to check."""
    export = report.export
    if (
        not job.export
        or export is None
        or not export.path
        or not os.path.isdir(os.path.join(export.path, "savedmodel"))
    ):
        return None
    return Job(
        source="",
        verify="model",
        attachments={"model": export.path},
        timeout_s=job.timeout_s,
        device="cpu",
        language=job.language,
    )


def merge(report: Report, verified: Report, language: str = "en") -> Report:
    """The run's report with the fresh worker's verdict on its SavedModel."""
    base = report.export or ExportInfo([], False, "")
    if verified.export is None:
        with i18n.using(language):
            why = _("Verification did not run: {message}").format(message=verified.message)
        info = dataclasses.replace(base, verified=False, reason=i18n.sentences(base.reason, why))
    else:
        v = verified.export
        info = dataclasses.replace(
            base,
            signatures=v.signatures,
            verified=v.verified,
            listing=v.listing,
            files=v.files,
            size_bytes=v.size_bytes,
            reason=i18n.sentences(base.reason, v.reason),
        )
    return dataclasses.replace(report, export=info)


def export_then_verify(job: Job, run: Callable[[Job], Report]) -> Report:
    report = run(job)
    follow_up = verify_job(job, report)
    return merge(report, run(follow_up), job.language) if follow_up is not None else report
