"""Export tab: what was saved and why, each signature's reload check, the listing, downloads."""
from __future__ import annotations

from typing import Optional

import streamlit as st

from ...job import ExportInfo, ExportSignature
from .. import keys
from ..export_zip import Archive
from ..state import Result

TENSORBOARD_HINT = "unzip tensorboard.zip && tensorboard --logdir tensorboard"
SERVE_HINT = "unzip savedmodel.zip && saved_model_cli show --dir savedmodel --all"


def check_text(signature: ExportSignature) -> str:
    if signature.verified is None:
        return "not checked"
    return "pass" if signature.verified else "FAIL"


def spec_text(specs: dict[str, str]) -> str:
    return ", ".join(f"{name}: {spec}" for name, spec in specs.items()) or "(none)"


def signature_rows(info: ExportInfo) -> list[dict]:
    return [{"signature": s.key, "check": check_text(s), "inputs": spec_text(s.inputs),
             "outputs": spec_text(s.outputs), "method": s.method,
             "max |diff|": s.max_abs_diff, "message": s.message} for s in info.signatures]


def verdict(info: ExportInfo) -> None:
    failed = [s.key for s in info.signatures if s.verified is False]
    if not info.signatures:
        st.error("Nothing was exported." + (f" {info.reason}" if info.reason else ""))
        return
    if info.reason:
        st.info(info.reason)
    if info.verified:
        st.success(f"Verified: reloaded with tf.saved_model.load in a fresh sandboxed worker, and "
                   f"all {len(info.signatures)} signature(s) returned the original outputs.")
    elif failed:
        st.error(f"Reloaded outputs differ for: {', '.join(failed)}.")
    else:
        st.warning("Not verified: no reload check passed for every signature (see the table).")


def download(archive: Optional[Archive], label: str, key: str) -> None:
    if archive is None:
        st.caption(f"{label}: not available for this run.")
        return
    if archive.data is None:
        st.warning(archive.message)
        return
    st.download_button(f"{label} ({len(archive.data) / 1024:.0f} KiB zip)", archive.data,
                       f"{archive.name}.zip", "application/zip", key=key, width="stretch")
    if archive.skipped:
        st.caption(f"Left out (not regular files, never followed): {', '.join(archive.skipped)}")


def render(result: Result) -> None:
    info = result.report.export
    if info is None:
        st.info("Export was on, but the worker returned no export for this run "
                "(see the Problems tab, or this server's engine cannot export yet).")
        return
    verdict(info)
    if info.signatures:
        st.markdown(f"**Signatures** ({len(info.signatures)})")
        st.dataframe(signature_rows(info), hide_index=True, width="stretch")
    if info.listing:
        st.markdown("**As `saved_model_cli show --all` lists it**")
        st.code(info.listing, language="text")
    archives = result.archives
    c1, c2 = st.columns(2)
    with c1:
        download(archives.get("savedmodel"), "SavedModel", keys.DOWNLOAD_SAVEDMODEL)
    with c2:
        download(archives.get("tensorboard"), "TensorBoard graph log", keys.DOWNLOAD_TENSORBOARD)
    st.markdown("Open the graph in TensorBoard, or list the SavedModel's signatures:")
    st.code(f"{TENSORBOARD_HINT}\n{SERVE_HINT}", language="bash")
    if info.files:
        with st.expander(f"Files ({len(info.files)}, {info.size_bytes / 1024:.0f} KiB)"):
            st.code("\n".join(info.files), language="text")
