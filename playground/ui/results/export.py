"""Export tab: what was saved and why, each signature's reload check, the listing, downloads."""

from __future__ import annotations

import streamlit as st

from ...contract.i18n import _, sentences
from ...contract.job import ExportInfo, ExportSignature
from ...reports.safe_text import markdown_literal as md
from .. import keys
from ..export_zip import Archive
from ..state import Result

TENSORBOARD_HINT = "unzip tensorboard.zip && tensorboard --logdir tensorboard"
SERVE_HINT = "unzip savedmodel.zip && saved_model_cli show --dir savedmodel --all"


def check_text(signature: ExportSignature) -> str:
    if signature.verified is None:
        return _("not checked")
    return _("pass") if signature.verified else _("FAIL")


def spec_text(specs: dict[str, str]) -> str:
    return ", ".join(f"{name}: {spec}" for name, spec in specs.items()) or _("(none)")


def signature_rows(info: ExportInfo) -> list[dict]:
    return [
        {
            _("signature"): s.key,
            _("check"): check_text(s),
            _("inputs"): spec_text(s.inputs),
            _("outputs"): spec_text(s.outputs),
            _("method"): s.method,
            "max |diff|": s.max_abs_diff,
            _("message"): s.message,
        }
        for s in info.signatures
    ]


def verdict(info: ExportInfo) -> None:
    failed = [s.key for s in info.signatures if s.verified is False]
    if not info.signatures:
        st.error(sentences(_("Nothing was exported."), md(info.reason)))
        return
    if info.reason:
        st.info(md(info.reason))
    if info.verified:
        st.success(
            _(
                "Verified: reloaded with tf.saved_model.load in a fresh sandboxed worker, "
                "and all {n} signature(s) returned the original outputs."
            ).format(n=len(info.signatures))
        )
    elif failed:
        st.error(_("Reloaded outputs differ for: {signatures}.").format(signatures=md(", ".join(failed))))
    else:
        st.warning(_("Not verified: no reload check passed for every signature (see the table)."))


def download(archive: Archive | None, label: str, key: str) -> None:
    if archive is None:
        st.caption(_("{label}: not available for this run.").format(label=label))
        return
    if archive.data is None:
        st.warning(md(archive.message))
        return
    st.download_button(
        _("{label} ({size} KiB zip)").format(label=label, size=f"{len(archive.data) / 1024:.0f}"),
        archive.data,
        f"{archive.name}.zip",
        "application/zip",
        key=key,
        width="stretch",
    )
    if archive.skipped:
        st.caption(
            _("Left out (not regular files, never followed): {files}").format(
                files=md(", ".join(archive.skipped))
            )
        )


def render(result: Result) -> None:
    info = result.report.export
    if info is None:
        st.info(
            _(
                "Export was on, but the worker returned no export for this run "
                "(see the Problems tab, or this server's engine cannot export yet)."
            )
        )
        return
    verdict(info)
    if info.signatures:
        st.markdown(_("**Signatures** ({n})").format(n=len(info.signatures)))
        st.dataframe(signature_rows(info), hide_index=True, width="stretch")
    if info.listing:
        st.markdown(_("**As `saved_model_cli show --all` lists it**"))
        st.code(info.listing, language="text")
    archives = result.archives
    c1, c2 = st.columns(2)
    with c1:
        download(archives.get("savedmodel"), "SavedModel", keys.DOWNLOAD_SAVEDMODEL)
    with c2:
        download(archives.get("tensorboard"), _("TensorBoard graph log"), keys.DOWNLOAD_TENSORBOARD)
    st.markdown(_("Open the graph in TensorBoard, or list the SavedModel's signatures:"))
    st.code(f"{TENSORBOARD_HINT}\n{SERVE_HINT}", language="bash")
    if info.files:
        with st.expander(
            _("Files ({n}, {size} KiB)").format(n=len(info.files), size=f"{info.size_bytes / 1024:.0f}")
        ):
            st.code("\n".join(info.files), language="text")
