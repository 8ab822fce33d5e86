"""deploy/proxy's nginx config, run by Debian's nginx on this host (tests/support/proxy_support.py) in
front of a small echo upstream: it renders, `nginx -t` accepts it, and it does what
docs/hosting.md says (headers it sets, websocket upgrade, body cap, per-address limits, TLS).
tests/e2e/test_container_run.py runs the same config in the proxy image, in front of the app."""

from __future__ import annotations

import asyncio
import base64
import concurrent.futures
import gzip
import hashlib
import http.client
import http.server
import json
import os
import socket
import threading
import time
from collections.abc import Iterator

import proxy_support
import pytest
from proxy_support import burst, local_proxy, open_connection, request, unverified

if proxy_support.missing() and os.environ.get("CI"):
    pytest.fail(f"the proxy tests must run in CI: {proxy_support.missing()}", allow_module_level=True)
pytestmark = pytest.mark.skipif(bool(proxy_support.missing()), reason=str(proxy_support.missing()))

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


class Hold:
    """/slow requests wait at the upstream until the test lets them go."""

    lock = threading.Lock()
    waiting = 0
    release = threading.Event()


class Echo(http.server.BaseHTTPRequestHandler):
    """Answers with the request as it arrived (path, headers, body size); /slow waits (Hold);
    a websocket upgrade is accepted and each text frame echoed."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:  # type: ignore[no-untyped-def]
        pass

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        if self.path.startswith("/slow"):
            with Hold.lock:
                Hold.waiting += 1
            Hold.release.wait(timeout=30)
        data = json.dumps(
            {
                "method": self.command,
                "path": self.path,
                "body": len(body),
                "headers": {k.lower(): v for k, v in self.headers.items()},
            }
        ).encode()
        script = self.path.startswith("/static/")  # a frontend script's size, as Streamlit's
        data += b" " * (8192 if script else 0)  # (JSON allows the trailing blanks)
        self.send_response(200)
        self.send_header("Content-Type", "text/javascript" if script else "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        if self.path.startswith("/api/"):
            return self._stream()
        self._answer()

    def _stream(self) -> None:
        """The API's NDJSON: a line, a second of work, the last line (chunked, as uvicorn)."""
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for line, pause in ((b'{"event": "started"}\n', 1.0), (b'{"event": "report"}\n', 0)):
            self.wfile.write(b"%x\r\n%s\r\n" % (len(line), line))
            self.wfile.flush()
            time.sleep(pause)
        self.wfile.write(b"0\r\n\r\n")

    def do_GET(self) -> None:
        if self.headers.get("Upgrade", "").lower() != "websocket":
            return self._answer()
        accept = base64.b64encode(
            hashlib.sha1(self.headers["Sec-WebSocket-Key"].encode() + GUID).digest()
        ).decode()
        self.send_response(101)
        self.send_header("Upgrade", "websocket")
        self.send_header("Connection", "Upgrade")
        self.send_header("Sec-WebSocket-Accept", accept)
        self.end_headers()
        self.wfile.flush()
        while True:
            opcode, payload = self._frame()
            if opcode == 8:  # close: answer it and stop
                self.wfile.write(bytes([0x88, len(payload)]) + payload)
                self.close_connection = True
                return
            self.wfile.write(bytes([0x80 | opcode, len(payload)]) + payload)  # < 126 bytes
            self.wfile.flush()

    def _frame(self) -> tuple[int, bytes]:
        head = self.rfile.read(2)
        length = head[1] & 0x7F
        if length == 126:
            length = int.from_bytes(self.rfile.read(2), "big")
        elif length == 127:
            length = int.from_bytes(self.rfile.read(8), "big")
        mask = self.rfile.read(4)  # a client's frames are masked
        data = self.rfile.read(length)
        return head[0] & 0x0F, bytes(b ^ mask[i % 4] for i, b in enumerate(data))


@pytest.fixture(scope="module")
def upstream() -> Iterator[int]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Echo)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def proxy(upstream) -> Iterator[str]:
    """A fresh nginx per test (a few hundred ms): the per-address limits start empty."""
    with local_proxy(upstream) as url:
        yield url


def test_template_renders_for_both_places_and_nginx_accepts_it(tmp_path) -> None:
    module = proxy_support.entrypoint()
    conf = proxy_support.render_to(tmp_path, "127.0.0.1:8501", "127.0.0.1:18443")
    text = conf.read_text()
    assert "${" not in text and "server 127.0.0.1:8501;" in text and "listen 127.0.0.1:18443 ssl;" in text
    done = proxy_support.check(conf)
    assert done.returncode == 0, done.stderr
    assert "test is successful" in done.stderr
    # The container's values render the same template (only the values differ).
    container = module.render(
        module.TEMPLATE.read_text(),
        {
            "PROXY_UPSTREAM": "playground:8501",
            "PROXY_LISTEN": "8443",
            "PROXY_CERT": "/tmp/nginx/tls/cert.pem",
            "PROXY_KEY": "/tmp/nginx/tls/key.pem",
        },
    )
    assert "server playground:8501;" in container and "listen 8443 ssl;" in container
    for bad in ({"PROXY_UPSTREAM": "x; evil"}, {"PROXY_UPSTREAM": ""}, {}):
        values = {"PROXY_UPSTREAM": "a:1", "PROXY_LISTEN": "1", "PROXY_CERT": "c", "PROXY_KEY": "k", **bad}
        if not bad:
            del values["PROXY_KEY"]
        with pytest.raises(ValueError):
            module.render(module.TEMPLATE.read_text(), values)
    with pytest.raises(ValueError, match="unknown placeholders"):
        module.render("${PROXY_OTHER}", {})


def test_serves_tls_and_the_proxy_sets_the_client_headers(proxy) -> None:
    host, port = proxy.split("//")[1].split(":")
    with socket.create_connection((host, int(port)), timeout=10) as raw:
        with unverified().wrap_socket(raw, server_hostname="localhost") as tls:
            assert tls.version() in ("TLSv1.2", "TLSv1.3")
            assert tls.getpeercert(binary_form=True)  # the self-signed certificate
    status, body = request(
        proxy,
        path="/page?x=1",
        headers={
            "Host": "play.example:8443",
            "X-Forwarded-For": "203.0.113.9, 198.51.100.1",
            "X-Real-IP": "203.0.113.9",
            "Forwarded": "for=203.0.113.9",
        },
    )
    seen = json.loads(body)
    assert status == 200 and seen["path"] == "/page?x=1"
    headers = seen["headers"]
    # Replaced, not appended to: the right-most (only) hop is the address nginx saw.
    assert headers["x-forwarded-for"] == "127.0.0.1", headers
    assert headers["x-real-ip"] == "127.0.0.1" and "forwarded" not in headers, headers
    assert headers["host"] == "play.example:8443" and headers["x-forwarded-proto"] == "https"


def test_the_operators_metrics_never_pass_the_public_proxy(proxy) -> None:
    # The echo upstream answers 200 for any path: a 404 here is the proxy's own.
    assert request(proxy, path="/metrics")[0] == 404
    assert request(proxy, path="/metrics?name[]=playground_runs_total")[0] == 404
    assert request(proxy, path="/_stcore/health")[0] == 200


def test_scripts_are_compressed_for_a_browser_that_accepts_gzip(proxy) -> None:
    conn = open_connection(proxy)
    try:
        for accepts in (True, False):
            conn.request("GET", "/static/js/index.js", headers={"Accept-Encoding": "gzip"} if accepts else {})
            answer = conn.getresponse()
            body = answer.read()
            assert answer.status == 200
            assert answer.getheader("Content-Encoding") == ("gzip" if accepts else None)
            unpacked = gzip.decompress(body) if accepts else body
            assert len(unpacked) > 8192 and json.loads(unpacked)["path"] == "/static/js/index.js"
            if accepts:
                assert len(body) < 1024 and "Accept-Encoding" in answer.getheader("Vary", "")
    finally:
        conn.close()


def test_static_and_editor_files_are_kept_and_nothing_else_is(proxy) -> None:
    """A second fetch of a frontend or editor file is answered from nginx's cache (the echo
    upstream's answer names the first request's headers); a page is fetched every time."""
    conn = open_connection(proxy)

    def fetch(path: str, marker: str) -> tuple[str, dict]:
        conn.request("GET", path, headers={"X-Marker": marker})
        answer = conn.getresponse()
        seen = json.loads(answer.read())
        assert answer.status == 200
        return answer.getheader("X-Cache", ""), seen["headers"]

    try:
        for path in ("/static/js/Button.abc123.js", "/editor/ace-1.45.2/ace.js"):
            status, headers = fetch(path, "first")
            assert status == "MISS" and headers["x-marker"] == "first", (path, status)
            status, headers = fetch(path, "second")
            assert status == "HIT" and headers["x-marker"] == "first", (path, status, headers)
        assert fetch("/?page", "first")[0] == ""
        assert fetch("/?page", "second")[1]["x-marker"] == "second"
    finally:
        conn.close()


def test_plain_http_on_the_tls_port_is_redirected(proxy) -> None:
    conn = http.client.HTTPConnection(proxy.split("//")[1], timeout=10)
    conn.request("GET", "/x?y=1", headers={"Host": "play.example:8443"})
    answer = conn.getresponse()
    assert answer.status == 301
    assert answer.getheader("Location") == "https://play.example:8443/x?y=1"


def test_websocket_upgrade_reaches_the_upstream(proxy) -> None:
    # The asyncio client: the sync one reads and writes one TLS socket from two threads, which
    # can lose the upgrade (tests/e2e/test_container_run.py's websocket test says how).
    from websockets.asyncio.client import connect

    async def echo() -> str:
        async with connect(
            proxy.replace("https://", "wss://") + "/_stcore/stream", ssl=unverified(), open_timeout=10
        ) as ws:
            await ws.send("ping through nginx")
            return str(await asyncio.wait_for(ws.recv(), 10))

    assert asyncio.run(echo()) == "ping through nginx"


def test_a_body_over_8_mb_is_refused_with_413_and_4_mb_passes(proxy) -> None:
    status, body = request(proxy, "POST", "/_stcore/upload_file", body=b"x" * (4 << 20))
    assert status == 200 and json.loads(body)["body"] == 4 << 20
    # Refused from the header alone, before any of the body is read.
    assert proxy_support.refused_413(proxy) == b"HTTP/1.1 413 Request Entity Too Large"


def test_a_burst_of_requests_gets_429_but_health_checks_do_not(proxy) -> None:
    conn = open_connection(proxy)
    health = [request(proxy, path="/_stcore/health", connection=conn)[0] for _ in range(40)]
    assert set(health) == {200}
    conn.close()
    started = time.monotonic()
    page = [status for status, _ in burst(proxy, "/", 120)]
    elapsed = time.monotonic() - started
    # 10 r/s with a burst of 40, no delay: 41 pass at once, then 10 a second, the rest get 429.
    assert set(page) == {200, 429}, page
    assert 41 <= page.count(200) <= 41 + 10 * elapsed + 2, (page.count(200), elapsed)
    assert {s for s, _ in burst(proxy, "/static/js/x.js", 120)} == {200}  # 50 r/s, burst 300


def test_more_than_20_requests_at_once_from_one_address_get_429(proxy) -> None:
    Hold.waiting = 0
    Hold.release.clear()
    with concurrent.futures.ThreadPoolExecutor(25) as pool:
        futures = [pool.submit(lambda: request(proxy, path="/slow")[0]) for _ in range(25)]
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and Hold.waiting + sum(f.done() for f in futures) < 25:
            time.sleep(0.05)
        held = Hold.waiting
        refused = [f.result() for f in futures if f.done()]
        Hold.release.set()
        statuses = [f.result() for f in futures]
    # 20 reach the app and wait there; the 5 beyond the limit are answered at once.
    assert held == 20 and refused == [429] * 5, (held, refused)
    assert sorted(statuses) == [200] * 20 + [429] * 5, statuses


def test_the_apis_event_stream_passes_unbuffered(proxy) -> None:
    """Each NDJSON line reaches the client when the app sends it, not with the last one."""
    conn = open_connection(proxy)
    conn.request(
        "POST",
        "/api/v1/analyze",
        body=b"{}",
        headers={"Accept": "application/x-ndjson", "Content-Type": "application/json"},
    )
    answer = conn.getresponse()
    started = time.monotonic()
    first = answer.readline()
    at_first = time.monotonic() - started
    last = answer.readline()
    at_last = time.monotonic() - started
    conn.close()
    assert (json.loads(first), json.loads(last)) == ({"event": "started"}, {"event": "report"})
    assert at_last - at_first >= 0.8, (at_first, at_last)
