"""Builds the service image with scripts/build-image.sh and runs containers of it: start, wait
until healthy, exec, remove."""

from __future__ import annotations

import contextlib
import json
import pathlib
import ssl
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import host_network
import repo_paths

ROOT = repo_paths.ROOT
LABEL = "org.tf-playground.test=container-run"  # marks containers these tests started
BUILD_TIMEOUT_S = 1500  # a cold build (Debian base, TensorFlow's wheel) on 2 busy cores


def docker(
    *args: str, timeout: float = 120, check: bool = True, stdin: str | None = None
) -> subprocess.CompletedProcess:
    done = subprocess.run(["docker", *args], input=stdin, capture_output=True, text=True, timeout=timeout)
    if check and done.returncode != 0:
        raise AssertionError(
            f"docker {' '.join(args[:3])} ... failed ({done.returncode}):\n{done.stderr.strip()[-3000:]}"
        )
    return done


@dataclass(frozen=True)
class Build:
    image: str
    seconds: float
    size_bytes: int
    lines: tuple[str, ...]  # what build-image.sh said (which base, cached or built, how long)

    @property
    def env(self) -> dict[str, str]:
        raw = docker("image", "inspect", "-f", "{{json .Config.Env}}", self.image).stdout
        return dict(e.split("=", 1) for e in json.loads(raw))

    @property
    def user(self) -> str:
        return docker("image", "inspect", "-f", "{{.Config.User}}", self.image).stdout.strip()


def build(image: str, variant: str, proxy: str | None = None, prometheus: str | None = None) -> Build:
    """The script the docs give, with the host's network for the build's RUN steps (no NAT);
    `proxy`, `prometheus`: also the nginx image (deploy/proxy) and Prometheus' (deploy/prometheus)
    with those tags, on the same base."""
    started = time.monotonic()
    proxy_args = ["--proxy-tag", proxy] if proxy else ["--no-proxy"]
    proxy_args += ["--prometheus-tag", prometheus] if prometheus else ["--no-prometheus"]
    done = subprocess.run(
        [
            str(ROOT / "scripts" / "build-image.sh"),
            "--tag",
            image,
            "--variant",
            variant,
            "--network",
            "host",
            *proxy_args,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT_S,
    )
    seconds = time.monotonic() - started
    assert done.returncode == 0, f"scripts/build-image.sh failed:\n{done.stdout}{done.stderr}"
    size = int(docker("image", "inspect", "-f", "{{.Size}}", image).stdout)
    return Build(image, seconds, size, tuple(done.stdout.splitlines()))


@dataclass(frozen=True)
class Container:
    id: str
    started: float  # time.monotonic() at `docker run`

    def state(self) -> dict[str, Any]:
        return json.loads(docker("inspect", "-f", "{{json .State}}", self.id).stdout)

    def inspect(self, template: str) -> str:
        return docker("inspect", "-f", template, self.id).stdout.strip()

    def logs(self) -> str:
        done = docker("logs", "--tail", "40", self.id, check=False)
        return done.stdout + done.stderr

    def exec(self, *argv: str, stdin: str | None = None, timeout: float = 180) -> subprocess.CompletedProcess:
        return docker("exec", "-i", self.id, *argv, stdin=stdin, timeout=timeout, check=False)

    def address(self) -> tuple[str, str]:
        """(IP address, gateway) on the container's one network, a user-defined one included."""
        networks = json.loads(self.inspect("{{json .NetworkSettings.Networks}}"))
        (settings,) = networks.values()
        return settings["IPAddress"], settings["Gateway"]

    def pids(self) -> list[int]:
        """Host pids of every process in the container."""
        top = docker("top", self.id, "-eo", "pid").stdout.split()
        return [int(p) for p in top[1:]]

    def _running(self) -> dict[str, Any]:
        state = self.state()
        if state["Status"] != "running" or state["Restarting"]:
            raise AssertionError(
                f"the container stopped ({state['Status']}, exit {state['ExitCode']}):\n{self.logs()}"
            )
        return state

    def wait_answer(self, url: str, timeout_s: float, context: ssl.SSLContext | None = None) -> float:
        """Seconds from `docker run` until url answers 200 with `ok` (https: with `context`)."""
        deadline = self.started + timeout_s
        while time.monotonic() < deadline:
            self._running()
            try:
                with urllib.request.urlopen(url, timeout=5, context=context) as answer:
                    if answer.status == 200 and answer.read().strip() == b"ok":
                        return time.monotonic() - self.started
            except OSError:
                pass
            time.sleep(0.5)
        raise AssertionError(f"{url} did not answer within {timeout_s:.0f} s:\n{self.logs()}")

    def wait_healthy(self, timeout_s: float) -> float:
        """Seconds from `docker run` until Docker's HEALTHCHECK state is `healthy`."""
        deadline = self.started + timeout_s
        while time.monotonic() < deadline:
            health = self._running().get("Health")
            if health is None:
                raise AssertionError("the container has no health check")
            if health["Status"] == "healthy":
                return time.monotonic() - self.started
            if health["Status"] == "unhealthy":
                raise AssertionError(f"unhealthy: {health['Log'][-1:]}\n{self.logs()}")
            time.sleep(1)
        raise AssertionError(
            f"not healthy within {timeout_s:.0f} s: {self.state().get('Health')}\n{self.logs()}"
        )


def remove_leftovers() -> None:
    """Containers and networks of an earlier run that was killed before it could remove them."""
    with host_network.changing():
        ids = docker("ps", "-aq", "--filter", f"label={LABEL}").stdout.split()
        if ids:
            docker("rm", "--force", *ids)
        networks = docker("network", "ls", "-q", "--filter", f"label={LABEL}").stdout.split()
        if networks:
            docker("network", "rm", *networks, check=False)


@contextlib.contextmanager
def network(name: str) -> Iterator[str]:
    """A user-defined bridge network, as compose makes one per project (its services find each
    other by name there); removed afterwards."""
    with host_network.changing():
        docker("network", "create", "--label", LABEL, name)
    try:
        yield name
    finally:
        with host_network.changing():
            docker("network", "rm", name, check=False)


@contextlib.contextmanager
def running(image: str, run_argv: list[str], name: str) -> Iterator[Container]:
    started = time.monotonic()
    with host_network.changing():  # the container's veth pair
        cid = (
            docker("run", "--detach", "--label", LABEL, "--name", name, *run_argv, image, timeout=120)
            .stdout.strip()
            .splitlines()[-1]
        )
    try:
        yield Container(cid, started)
    finally:
        with host_network.changing():
            docker("rm", "--force", cid, check=False)


def proc_status(pid: int) -> dict[str, str]:
    """/proc/PID/status of a host pid as a dict ('Uid': '10001\t10001\t10001\t10001', ...)."""
    text = pathlib.Path(f"/proc/{pid}/status").read_text()
    return dict(line.split(":\t", 1) for line in text.splitlines() if ":\t" in line)
