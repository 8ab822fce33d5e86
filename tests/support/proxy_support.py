"""The deployment's nginx (deploy/proxy) on this host, without Docker: the same template, rendered
by the container's own entrypoint code, in front of a local upstream. For tests and benches:

    with local_proxy(8501) as url:      # url == "https://127.0.0.1:PORT", a self-signed cert
        ...

Needs Debian's nginx and openssl (scripts/install.sh --test installs both)."""

from __future__ import annotations

import concurrent.futures
import contextlib
import http.client
import importlib.util
import os
import pathlib
import shutil
import socket
import ssl
import subprocess
import tempfile
import time
from collections.abc import Iterator

import processes
import repo_paths

ROOT = repo_paths.ROOT
ENTRYPOINT = ROOT / "deploy" / "proxy" / "entrypoint.py"
START_TIMEOUT_S = 20


def entrypoint():  # type: ignore[no-untyped-def]
    """deploy/proxy/entrypoint.py as a module (render, self_signed, prepare, nginx_argv)."""
    spec = importlib.util.spec_from_file_location("playground_proxy_entrypoint", ENTRYPOINT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def nginx_binary() -> str | None:
    """Debian installs it in /usr/sbin, which an ordinary user's PATH may lack."""
    return shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.access(p, os.X_OK)), None)


def missing() -> str | None:
    """Why a local proxy cannot run here, or None."""
    if not nginx_binary():
        return "nginx is not installed (scripts/install.sh --test installs Debian's)"
    if not shutil.which("openssl"):
        return "openssl is not installed"
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def unverified() -> ssl.SSLContext:
    """A client context for the self-signed certificate."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


def open_connection(url: str) -> http.client.HTTPSConnection:
    """A keep-alive connection to https://HOST:PORT, trusting the self-signed certificate."""
    return http.client.HTTPSConnection(url.split("//")[1], timeout=20, context=unverified())


def request(
    url: str,
    method: str = "GET",
    path: str = "/",
    headers: dict | None = None,
    body: bytes | None = None,
    connection: http.client.HTTPSConnection | None = None,
) -> tuple[int, bytes]:
    """(status, body) of one request to https://HOST:PORT, on `connection` if given."""
    conn = connection or open_connection(url)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        answer = conn.getresponse()
        return answer.status, answer.read()
    finally:
        if connection is None:
            conn.close()


def burst(url: str, path: str, n: int, threads: int = 8) -> list[tuple[int, bytes]]:
    """n GETs of path at once, from `threads` keep-alive connections: (status, body) each."""

    def one_connection(count: int) -> list[tuple[int, bytes]]:
        conn = open_connection(url)
        try:
            return [request(url, path=path, connection=conn) for _ in range(count)]
        finally:
            conn.close()

    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        parts = pool.map(one_connection, [n // threads + (i < n % threads) for i in range(threads)])
    return [answer for part in parts for answer in part]


def refused_413(url: str, megabytes: int = 9) -> bytes:
    """The status line for a POST announcing a body of that size, sent without the body: nginx
    refuses from the header alone."""
    host, port = url.split("//")[1].rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=10) as raw:
        with unverified().wrap_socket(raw, server_hostname="localhost") as tls:
            tls.sendall(
                b"POST /_stcore/upload_file HTTP/1.1\r\nHost: x\r\n"
                b"Content-Length: %d\r\n\r\n" % (megabytes << 20)
            )
            return tls.recv(200).split(b"\r\n")[0]


def render_to(prefix: pathlib.Path, upstream: str, listen: str) -> pathlib.Path:
    """The template rendered as the container renders it, with a fresh self-signed certificate;
    returns nginx.conf's path. Run as root, nginx's workers drop to its default user (nobody),
    which must be able to enter the prefix and write its temp folders (nginx chowns those)."""
    module = entrypoint()
    cert, key = module.self_signed(prefix / "tls")
    conf = module.prepare(
        prefix,
        {"PROXY_UPSTREAM": upstream, "PROXY_LISTEN": listen, "PROXY_CERT": str(cert), "PROXY_KEY": str(key)},
    )
    for folder in (prefix, prefix / "tmp"):
        os.chmod(folder, 0o755)
    return conf


def check(conf: pathlib.Path) -> subprocess.CompletedProcess:
    """`nginx -t` on a rendered config."""
    prefix = conf.parent
    argv = entrypoint().nginx_argv(prefix, conf)
    argv[0] = nginx_binary() or "nginx"
    return subprocess.run(argv[:-2] + ["-t"], capture_output=True, text=True, timeout=30)


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as raw:
            with unverified().wrap_socket(raw, server_hostname="localhost"):
                return True
    except OSError:
        return False


@contextlib.contextmanager
def local_proxy(upstream_port: int, upstream_host: str = "127.0.0.1") -> Iterator[str]:
    """nginx with the deployment's config in front of upstream_host:upstream_port; yields
    https://127.0.0.1:PORT once it completes a TLS handshake, and stops it afterwards."""
    why = missing()
    if why:
        raise RuntimeError(why)
    with tempfile.TemporaryDirectory(prefix="playground-proxy-") as tmp:
        prefix = pathlib.Path(tmp)
        port = _free_port()
        conf = render_to(prefix, f"{upstream_host}:{upstream_port}", f"127.0.0.1:{port}")
        argv = entrypoint().nginx_argv(prefix, conf)
        argv[0] = nginx_binary() or "nginx"
        log = open(prefix / "nginx.log", "wb")
        process = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + START_TIMEOUT_S
            while not _answers(port):
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(
                        f"nginx did not start ({process.poll()}):\n"
                        f"{(prefix / 'nginx.log').read_text(errors='replace')}"
                    )
                time.sleep(0.05)
            yield f"https://127.0.0.1:{port}"
        finally:
            processes.stop(process, 10)
            log.close()
