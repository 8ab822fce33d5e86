"""A throwaway Ray cluster of several nodes on this machine (`ray start --head`, then more
`ray start --address=...`), for the tests and bench/bench_ray.py.

Everything of it is private: its own temp dir (so its `ray_current_cluster` file is never the
one a plain `ray.init()` elsewhere reads), its own auth token, free loopback ports, and each
node in its own process group, which stop() kills. It never calls `ray stop`, which would end
every Ray on the machine, other people's included.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

from playground.runs.ray.node_pool import SLOT

RAY = os.path.join(os.path.dirname(sys.executable), "ray")
IP = "127.0.0.2"  # loopback; Ray rewrites 127.0.0.1 itself to the machine's address
START_TIMEOUT_S = 120.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind((IP, 0))
        return s.getsockname()[1]


class LocalCluster:
    """Nodes started by `ray start --block`, each a process group of ours."""

    def __init__(self) -> None:
        # Short: Ray's unix socket paths live under it and must stay under 108 bytes.
        self.root = tempfile.mkdtemp(prefix="pgray-", dir="/tmp")
        self.token_path = os.path.join(self.root, "token")
        with open(os.open(self.token_path, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
            f.write(secrets.token_hex(32))
        self.port = free_port()
        self.address = f"{IP}:{self.port}"
        self.nodes: list[subprocess.Popen] = []

    @property
    def env(self) -> dict[str, str]:
        """What a process needs to reach this cluster and nothing else."""
        env = {k: v for k, v in os.environ.items() if k not in ("RAY_ADDRESS", "RAY_AUTH_TOKEN")}
        env.update(RAY_TMPDIR=self.root, RAY_AUTH_MODE="token", RAY_AUTH_TOKEN_PATH=self.token_path)
        return env

    def start_head(self, num_cpus: int) -> None:
        self._start(
            [
                "--head",
                f"--port={self.port}",
                "--include-dashboard=false",
                f"--dashboard-port={free_port()}",
                f"--ray-client-server-port={free_port()}",
            ],
            num_cpus,
            "head",
        )
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            try:
                socket.create_connection((IP, self.port), 1.0).close()
                return
            except OSError:
                if self.nodes[0].poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the Ray head did not start: " + self.log("head")) from None
                time.sleep(0.2)

    def add_node(self, num_cpus: int, name: str) -> None:
        self._start([f"--address={self.address}"], num_cpus, name)

    def _start(self, args: list[str], num_cpus: int, name: str) -> None:
        log = open(os.path.join(self.root, f"{name}.log"), "w")
        self.nodes.append(
            subprocess.Popen(
                [
                    RAY,
                    "start",
                    *args,
                    f"--num-cpus={num_cpus}",
                    f"--node-ip-address={IP}",
                    f"--resources={json.dumps({SLOT: num_cpus})}",
                    f"--temp-dir={os.path.join(self.root, 'ray')}",
                    "--disable-usage-stats",
                    f"--dashboard-agent-listen-port={free_port()}",
                    "--object-store-memory=100000000",
                    "--block",
                ],
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        )
        log.close()

    def connect_here(self) -> None:
        """Points this process's Ray at the cluster's token (ray.init must come after)."""
        for key in ("RAY_ADDRESS", "RAY_AUTH_TOKEN"):
            os.environ.pop(key, None)
        os.environ.update(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN_PATH=self.token_path)
        reload_auth()

    def wait_nodes(self, count: int, timeout_s: float = START_TIMEOUT_S) -> list[dict]:
        import ray

        deadline = time.monotonic() + timeout_s
        while True:
            alive = [n for n in ray.nodes() if n["Alive"]]
            if len(alive) >= count:
                return alive
            if time.monotonic() > deadline:
                raise RuntimeError(f"only {len(alive)} of {count} Ray nodes came up")
            time.sleep(0.2)

    def log(self, name: str) -> str:
        try:
            with open(os.path.join(self.root, f"{name}.log")) as f:
                return f.read()[-3000:]
        except OSError:
            return ""

    def stop(self) -> None:
        """Kills every node's process group, then any process still naming our temp dir
        (Ray's workers carry it on their command lines), then removes the dir."""
        for node in self.nodes:
            _killpg(node.pid)
        for node in self.nodes:
            try:
                node.wait(10)
            except subprocess.TimeoutExpired:
                pass
        for pid in self.processes():
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        self.nodes = []
        shutil.rmtree(self.root, ignore_errors=True)

    def processes(self) -> list[int]:
        found = []
        for name in os.listdir("/proc"):
            if not name.isdigit() or int(name) == os.getpid():
                continue
            try:
                with open(f"/proc/{name}/cmdline", "rb") as f:
                    if self.root.encode() in f.read():
                        found.append(int(name))
            except OSError:
                continue
        return found

    def __enter__(self) -> LocalCluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def reload_auth() -> None:
    """Ray caches the auth mode and token per process; after changing them in os.environ it
    must read them again (what Ray's own test helpers do)."""
    from ray._raylet import AuthenticationTokenLoader, Config

    Config.initialize("")
    AuthenticationTokenLoader.instance().reset_cache()


def _killpg(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except OSError:
        pass


def two_nodes(cpus_each: int = 1) -> LocalCluster:
    """A head and one more node, `cpus_each` CPUs each, both up; the caller stops it."""
    cluster = LocalCluster()
    try:
        cluster.start_head(cpus_each)
        cluster.add_node(cpus_each, "node2")
    except BaseException:
        cluster.stop()
        raise
    return cluster
