"""tests/compose_service.py: docker-compose.yml read as `docker run` options, and refusing what it
cannot translate (so the container tests cannot silently drift from the file)."""
from __future__ import annotations

import pathlib
import shlex

import pytest
import yaml

import compose_service
from compose_service import UntranslatedKey, interpolate, load

ROOT = pathlib.Path(__file__).resolve().parents[1]


def write(tmp_path: pathlib.Path, service: dict) -> pathlib.Path:
    path = tmp_path / "docker-compose.yml"
    path.write_text(yaml.safe_dump({"services": {"app": {"image": "x", **service}}}))
    return path


def test_interpolation_reads_defaults_and_the_given_environment() -> None:
    text = "${A:-one} ${B-two} ${C} $$D $E"
    assert interpolate(text, {}) == "one two  $D "
    assert interpolate(text, {"A": "", "B": "", "C": "c", "E": "e"}) == "one  c $D e"
    assert interpolate({"k": [text]}, {"A": "a"}) == {"k": ["a two  $D "]}
    with pytest.raises(UntranslatedKey):
        interpolate("${A:?required}", {})


def test_an_option_it_cannot_translate_fails_loudly(tmp_path) -> None:
    with pytest.raises(UntranslatedKey, match=r"services\.app\.network_mode"):
        load(write(tmp_path, {"network_mode": "host"}), environ={})
    with pytest.raises(UntranslatedKey, match="healthcheck.start_interval"):
        load(write(tmp_path, {"healthcheck": {"test": ["CMD", "true"], "start_interval": "1s"}}),
             environ={})


def test_ports_keep_the_files_address_and_take_the_chosen_host_port(tmp_path) -> None:
    path = write(tmp_path, {"ports": ["127.0.0.1:8501:8501", "9000:90/udp", "70"]})
    service = load(path, environ={}, publish=lambda port: port + 1)
    assert service.run_argv() == ["--publish", "127.0.0.1:8502:8501", "--publish", "91:90/udp",
                                  "--publish", "71:70"]
    assert service.ports == (8501, 90, 70)
    assert load(path, environ={}).run_argv()[1] == "127.0.0.1:8501:8501"


def test_seccomp_profile_is_found_next_to_the_file(tmp_path) -> None:
    path = write(tmp_path, {"security_opt": ["seccomp=deploy/p.json", "no-new-privileges:true"]})
    argv = load(path, environ={}).run_argv()
    assert argv == ["--security-opt", f"seccomp={tmp_path / 'deploy' / 'p.json'}",
                    "--security-opt", "no-new-privileges:true"]


def test_exec_form_health_check_keeps_its_argv() -> None:
    service = load(ROOT / "docker-compose.yml", environ={})
    test = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"][service.name][
        "healthcheck"]["test"]
    (command,) = [v for f, v in service.options if f == "--health-cmd"]
    assert test[0] == "CMD" and shlex.split(command) == test[1:]


def test_every_key_of_the_real_file_becomes_options(tmp_path) -> None:
    """Each run key of docker-compose.yml's service adds options: none is read and dropped."""
    service = load(ROOT / "docker-compose.yml", environ={})
    raw = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"][service.name]
    full = service.run_argv()
    run_keys = set(raw) - compose_service.BUILD_KEYS
    assert {"security_opt", "cap_drop", "read_only", "environment", "healthcheck"} <= run_keys
    for key in run_keys:
        fewer = load(write(tmp_path, {k: v for k, v in raw.items() if k != key}), environ={})
        assert len(fewer.run_argv()) < len(full), key
    assert service.image == raw["image"] and service.build_args == raw["build"]["args"]


def test_a_variant_only_leaves_options_out() -> None:
    service = load(ROOT / "docker-compose.yml", environ={})
    fewer = service.run_argv(without=lambda flag, value: (value or "").startswith("seccomp="))
    assert len(fewer) == len(service.run_argv()) - 2
    assert not any(w.startswith("seccomp=") for w in fewer)
    assert "no-new-privileges:true" in fewer and "systempaths=unconfined" in fewer
