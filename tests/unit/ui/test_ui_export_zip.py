"""The export download helper: regular files only, links never followed, a size cap, cleanup."""

from __future__ import annotations

import io
import os
import pathlib
import zipfile

import pytest

from playground.ui import export_zip


def names(archive: export_zip.Archive) -> list[str]:
    assert archive.data is not None, archive.message
    return sorted(zipfile.ZipFile(io.BytesIO(archive.data)).namelist())


@pytest.fixture
def export_dir(tmp_path: pathlib.Path) -> pathlib.Path:
    root = tmp_path / "playground-export-job"
    (root / "savedmodel" / "variables").mkdir(parents=True)
    (root / "savedmodel" / "saved_model.pb").write_bytes(b"pb" * 100)
    (root / "savedmodel" / "variables" / "variables.index").write_bytes(b"idx")
    (root / "tensorboard" / "plugins").mkdir(parents=True)
    (root / "tensorboard" / "events.out.tfevents.1.host").write_bytes(b"events")
    return root


def test_regular_files_are_zipped_under_their_part(export_dir: pathlib.Path) -> None:
    archives = export_zip.collect(str(export_dir))
    assert names(archives["savedmodel"]) == [
        "savedmodel/saved_model.pb",
        "savedmodel/variables/variables.index",
    ]
    assert names(archives["tensorboard"]) == ["tensorboard/events.out.tfevents.1.host"]
    data = zipfile.ZipFile(io.BytesIO(archives["savedmodel"].data)).read("savedmodel/saved_model.pb")
    assert data == b"pb" * 100 and archives["savedmodel"].size_bytes == 203
    assert not export_dir.exists()  # nothing the job wrote stays on the server


def test_planted_links_are_not_followed(export_dir: pathlib.Path, tmp_path: pathlib.Path) -> None:
    secret_dir = tmp_path / "outside"
    secret_dir.mkdir()
    (secret_dir / "secret.txt").write_text("host secret")
    os.symlink(secret_dir / "secret.txt", export_dir / "savedmodel" / "leak.txt")
    os.symlink(secret_dir, export_dir / "savedmodel" / "leakdir")
    os.symlink("/etc/passwd", export_dir / "tensorboard" / "passwd")
    os.mkfifo(export_dir / "tensorboard" / "pipe")  # would hang a naive read
    archives = export_zip.collect(str(export_dir))
    saved = archives["savedmodel"]
    assert "savedmodel/leak.txt" not in names(saved)
    assert not any("secret" in n for n in names(saved))
    assert sorted(saved.skipped) == ["leak.txt", "leakdir"]
    assert b"host secret" not in saved.data
    assert names(archives["tensorboard"]) == ["tensorboard/events.out.tfevents.1.host"]
    assert sorted(archives["tensorboard"].skipped) == ["passwd", "pipe"]
    # Deleting the tree removed the links, not what they pointed at.
    assert not export_dir.exists() and (secret_dir / "secret.txt").read_text() == "host secret"


def test_linked_part_directory_is_not_read(tmp_path: pathlib.Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.pb").write_text("x")
    root = tmp_path / "job"
    (root / "tensorboard").mkdir(parents=True)
    os.symlink(outside, root / "savedmodel")
    archives = export_zip.collect(str(root))
    assert archives["savedmodel"].data is None and "link" in archives["savedmodel"].message
    assert (outside / "x.pb").exists()


def test_size_cap_refuses_with_a_message(export_dir: pathlib.Path) -> None:
    (export_dir / "savedmodel" / "big.bin").write_bytes(b"\0" * 3000)
    archives = export_zip.collect(str(export_dir), max_bytes=2048)
    saved = archives["savedmodel"]
    assert saved.data is None and saved.size_bytes == 3203
    assert "over the" in saved.message and "cap" in saved.message
    assert archives["tensorboard"].data is not None  # the cap is per download
    assert not export_dir.exists()


def test_missing_or_foreign_directories_are_left_alone(tmp_path: pathlib.Path) -> None:
    gone = export_zip.collect(str(tmp_path / "nope"))
    assert gone["savedmodel"].data is None and "not on this server" in gone["savedmodel"].message
    foreign = tmp_path / "home-ish"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep me")
    refused = export_zip.collect(str(foreign))
    assert "left alone" in refused["tensorboard"].message
    assert (foreign / "notes.txt").read_text() == "keep me"
    assert "absolute" in export_zip.collect("relative/dir")["savedmodel"].message


def test_a_model_folder_that_is_not_a_fresh_export_is_never_deleted(tmp_path: pathlib.Path) -> None:
    """A report naming someone's real model folder (savedmodel/ inside) must not get it removed."""
    real_model = tmp_path / "models" / "mnist"
    (real_model / "savedmodel").mkdir(parents=True)
    (real_model / "savedmodel" / "saved_model.pb").write_bytes(b"precious")
    refused = export_zip.collect(str(real_model))
    assert "not a job's scratch directory" in refused["savedmodel"].message
    assert (real_model / "savedmodel" / "saved_model.pb").read_bytes() == b"precious"
