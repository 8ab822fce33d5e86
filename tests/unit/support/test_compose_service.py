"""tests/support/compose_service.py: docker-compose.yml read as `docker run` options, and refusing what it
cannot translate (so the container tests cannot silently drift from the file)."""

from __future__ import annotations

import pathlib
import shlex

import compose_service
import pytest
import repo_paths
import yaml
from compose_service import UntranslatedKey, interpolate, load, load_all, start_order

ROOT = repo_paths.ROOT
COMPOSE = ROOT / "docker-compose.yml"
# What the order of starting is, not a docker run option: removing it changes no argv.
ORDER_KEYS = {"depends_on", "profiles"}  # which services start, and in what order: no run option


def write(tmp_path: pathlib.Path, service: dict, **others: dict) -> pathlib.Path:
    path = tmp_path / "docker-compose.yml"
    services = {"app": {"image": "x", **service}}
    services.update({name: {"image": "y", **spec} for name, spec in others.items()})
    path.write_text(yaml.safe_dump({"services": services}, sort_keys=False))
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
        load(write(tmp_path, {"healthcheck": {"test": ["CMD", "true"], "start_interval": "1s"}}), environ={})


def test_ports_keep_the_files_address_and_take_the_chosen_host_port(tmp_path) -> None:
    path = write(tmp_path, {"ports": ["127.0.0.1:8501:8501", "9000:90/udp", "70"]})
    service = load(path, environ={}, publish=lambda port: port + 1)
    assert service.run_argv() == [
        "--publish",
        "127.0.0.1:8502:8501",
        "--publish",
        "91:90/udp",
        "--publish",
        "71:70",
    ]
    assert service.ports == (8501, 90, 70)
    assert load(path, environ={}).run_argv()[1] == "127.0.0.1:8501:8501"


def test_seccomp_profile_is_found_next_to_the_file(tmp_path) -> None:
    path = write(tmp_path, {"security_opt": ["seccomp=deploy/p.json", "no-new-privileges:true"]})
    argv = load(path, environ={}).run_argv()
    assert argv == [
        "--security-opt",
        f"seccomp={tmp_path / 'deploy' / 'p.json'}",
        "--security-opt",
        "no-new-privileges:true",
    ]


def test_exec_form_health_check_keeps_its_argv() -> None:
    service = load(COMPOSE, environ={}, name="playground")
    test = yaml.safe_load(COMPOSE.read_text())["services"][service.name]["healthcheck"]["test"]
    (command,) = [v for f, v in service.options if f == "--health-cmd"]
    assert test[0] == "CMD" and shlex.split(command) == test[1:]


def test_every_key_of_the_real_file_becomes_options(tmp_path) -> None:
    """Each run key of each of docker-compose.yml's services adds options: none is read and
    dropped (depends_on is the order of starting, checked below)."""
    raw_services = yaml.safe_load(COMPOSE.read_text())["services"]
    assert set(raw_services) == {"playground", "proxy", "prometheus"}
    for name, service in load_all(COMPOSE, environ={}, profiles=("metrics",)).items():
        raw = raw_services[name]
        full = service.run_argv()
        run_keys = set(raw) - compose_service.BUILD_KEYS - ORDER_KEYS
        assert {"security_opt", "cap_drop", "read_only"} <= run_keys, name
        for key in run_keys:
            fewer = load(
                write(tmp_path, {k: v for k, v in raw.items() if k != key and k not in ORDER_KEYS}),
                environ={},
            )
            assert len(fewer.run_argv()) < len(full), (name, key)
        assert service.image == raw["image"]
        assert service.build_args == (raw["build"].get("args") or {})
        assert service.build_context == (ROOT / raw["build"]["context"]).resolve()


def test_the_app_is_reached_through_the_proxy_only() -> None:
    services = load_all(COMPOSE, environ={})
    app, proxy = services["playground"], services["proxy"]
    assert app.ports == () and app.expose == (8501,)
    assert ("--expose", "8501") in app.options
    assert ("--env", "PLAYGROUND_CLIENT_IP_HEADER=X-Forwarded-For") in app.options
    assert proxy.depends_on == ("playground",) and proxy.ports == (8443,)
    assert ("--env", "PROXY_UPSTREAM=playground:8501") in proxy.options
    assert ("--publish", "127.0.0.1:8443:8443") in proxy.options
    for service in services.values():  # the hardening both have
        assert ("--read-only", None) in service.options
        assert ("--cap-drop", "ALL") in service.options
        assert ("--security-opt", "no-new-privileges:true") in service.options
    assert start_order(services) == ["playground", "proxy"]


def test_prometheus_runs_only_under_its_profile_on_loopback_and_hardened() -> None:
    services = load_all(COMPOSE, environ={}, profiles=("metrics",))
    prometheus = services["prometheus"]
    assert prometheus.profiles == ("metrics",) and prometheus.depends_on == ("playground",)
    assert ("--publish", "127.0.0.1:9090:9090") in prometheus.options
    assert ("--read-only", None) in prometheus.options and ("--cap-drop", "ALL") in prometheus.options
    # The app lets it scrape /metrics by its service name.
    allow = dict(
        o for o in services["playground"].options if o[0] == "--env" and o[1].startswith("PLAYGROUND_M")
    )
    assert "prometheus" in allow["--env"].split("=", 1)[1].split(",")
    assert start_order(services) == ["playground", "proxy", "prometheus"]


def test_a_network_makes_each_service_reachable_by_its_name(tmp_path) -> None:
    path = write(tmp_path, {"expose": [80, "81/udp"]}, web={"depends_on": ["app"]})
    services = load_all(path, environ={})
    assert services["app"].run_argv(network="n") == [
        "--network",
        "n",
        "--network-alias",
        "app",
        "--expose",
        "80",
        "--expose",
        "81/udp",
    ]
    assert services["app"].expose == (80, 81)
    assert services["web"].run_argv() == [] and services["web"].depends_on == ("app",)
    assert start_order({k: services[k] for k in ("web", "app")}) == ["app", "web"]


def test_a_file_with_several_services_needs_a_name(tmp_path) -> None:
    path = write(tmp_path, {}, web={})
    with pytest.raises(UntranslatedKey, match="2 services"):
        load(path, environ={})
    with pytest.raises(KeyError, match="no service 'db'"):
        load(path, environ={}, name="db")
    assert load(path, environ={}, name="web").image == "y"


def test_depends_on_only_as_an_order_and_volumes_only_short(tmp_path) -> None:
    ok = {
        "depends_on": {"web": {"condition": "service_started"}},
        "volumes": ["./tls:/etc/tls:ro", "data:/data"],
    }
    service = load(write(tmp_path, ok, web={}), environ={}, name="app")
    assert service.depends_on == ("web",)
    assert service.run_argv() == ["--volume", f"{tmp_path / 'tls'}:/etc/tls:ro", "--volume", "data:/data"]
    with pytest.raises(UntranslatedKey, match="only service_started"):
        load(
            write(tmp_path, {"depends_on": {"web": {"condition": "service_healthy"}}}, web={}),
            environ={},
            name="app",
        )
    with pytest.raises(KeyError, match="names no service"):
        load(write(tmp_path, {"depends_on": ["db"]}), environ={})
    with pytest.raises(UntranslatedKey, match="short syntax"):
        load(write(tmp_path, {"volumes": [{"type": "bind", "source": ".", "target": "/x"}]}), environ={})
    with pytest.raises(UntranslatedKey, match=r"services\.app\.networks"):
        load(write(tmp_path, {"networks": ["front"]}), environ={})


def test_a_variant_only_leaves_options_out() -> None:
    service = load(COMPOSE, environ={}, name="playground")
    fewer = service.run_argv(without=lambda flag, value: (value or "").startswith("seccomp="))
    assert len(fewer) == len(service.run_argv()) - 2
    assert not any(w.startswith("seccomp=") for w in fewer)
    assert "no-new-privileges:true" in fewer and "systempaths=unconfined" in fewer
