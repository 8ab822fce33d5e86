"""The service image and its nginx proxy, built by scripts/build-image.sh and run as
docker-compose.yml describes them (options read from the file, on a network of their own, the app
found by its service name): the app's health check, the page in Chromium through the proxy, TLS,
the websocket, the body cap and the per-address request limit at the proxy, a CLI job under
bubblewrap, failing closed without the seccomp profile, and the non-root uids. Real Docker
throughout.

Needs a Docker engine; one is started (and stopped) when none answers. Where none can run this
module skips, except under CI (CI=true), where that is a failure. PLAYGROUND_CONTAINER_TESTS=0
skips it on purpose (a cold build takes minutes)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import socket
import ssl
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request

import compose_service
import container_support
import docker_engine
import figures
import proxy_support
import pytest
from browser_support import (
    CHROMIUM,
    SHOTS,
    free_port,
    launch,
    result_caption,
    run_and_wait,
    traces_value,
    wait_idle,
)
from container_support import ROOT, Container, proc_status

pytestmark = pytest.mark.skipif(
    os.environ.get("PLAYGROUND_CONTAINER_TESTS") == "0", reason="PLAYGROUND_CONTAINER_TESTS=0"
)
COMPOSE = ROOT / "docker-compose.yml"
HEALTH_PATH = "/_stcore/health"
# The file's own defaults for ${...}, not the shell's: the test is of what the file says.
ENVIRON: dict[str, str] = {}


def unavailable(why: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"the container tests must run in CI: {why}")
    pytest.skip(why)


@pytest.fixture(scope="module")
def engine(request):
    started = time.monotonic()
    stack = contextlib.ExitStack()
    try:
        which = stack.enter_context(docker_engine.engine())
    except docker_engine.NoEngine as e:
        unavailable(str(e))
    with stack:
        yield which
    figures.report(request.config, f"container tests: {time.monotonic() - started:.0f} s in all ({which})")


def services(*profiles: str) -> dict[str, compose_service.Service]:
    """The compose services (with those of `profiles`), each published port moved to a free one
    on the file's address."""
    return compose_service.load_all(
        COMPOSE, environ=ENVIRON, publish=lambda port: free_port(), profiles=profiles
    )


def service() -> compose_service.Service:
    """The app's service."""
    return services()["playground"]


def app_port() -> int:
    """The container port the app listens on (exposed to the proxy, not published)."""
    (port,) = service().expose
    return port


@pytest.fixture(scope="module")
def image(engine, request) -> container_support.Build:
    spec, proxy, prometheus = service(), services()["proxy"], services("metrics")["prometheus"]
    built = container_support.build(
        spec.image, spec.build_args.get("TF_VARIANT", "cpu"), proxy=proxy.image, prometheus=prometheus.image
    )
    for line in built.lines:
        figures.report(request.config, f"build-image.sh: {line}")
    figures.report(
        request.config,
        f"build-image.sh: {built.seconds:.0f} s in all; image {built.image} {built.size_bytes / 1e6:.0f} MB",
    )
    return built


@pytest.fixture(scope="module")
def network(engine) -> str:
    """The network compose would make for the project."""
    container_support.remove_leftovers()
    with container_support.network(f"playground-test-{os.getpid()}") as name:
        yield name


def published_url(container: Container, port: int) -> str:
    """http://ADDRESS:PORT where the host reaches the container's port (the file's address)."""
    binding = json.loads(container.inspect("{{json .NetworkSettings.Ports}}"))[f"{port}/tcp"][0]
    address = binding["HostIp"] if binding["HostIp"] not in ("", "0.0.0.0") else "127.0.0.1"
    return f"http://{address}:{binding['HostPort']}"


@pytest.fixture(scope="module")
def app(image, network) -> Container:
    with container_support.running(
        image.image, service().run_argv(network=network), f"playground-test-{os.getpid()}"
    ) as container:
        yield container


@pytest.fixture(scope="module")
def up(app, request) -> str:
    """The app's URL (its address on the network: nothing is published) once its health endpoint
    answers and Docker calls it healthy."""
    url = f"http://{app.address()[0]}:{app_port()}"
    answered = app.wait_answer(url + HEALTH_PATH, timeout_s=180)
    # Docker runs the first check one interval after the start, so this takes at least that.
    healthy = app.wait_healthy(timeout_s=300)
    figures.report(
        request.config,
        f"container start: {HEALTH_PATH} answered after "
        f"{answered:.1f} s, HEALTHCHECK healthy after {healthy:.1f} s",
    )
    return url


@pytest.fixture(scope="module")
def proxy(image, network, up) -> Container:
    """The proxy service, started after the app (its depends_on; here once the app answers, so
    that the figure below is the proxy's own start)."""
    spec = services()["proxy"]
    assert spec.depends_on == ("playground",)
    with container_support.running(
        spec.image, spec.run_argv(network=network), f"playground-test-proxy-{os.getpid()}"
    ) as container:
        yield container


@pytest.fixture(scope="module")
def proxied(proxy, request) -> str:
    """https://ADDRESS:PORT of the proxy once the app's health answers through it."""
    url = published_url(proxy, services()["proxy"].ports[0]).replace("http://", "https://")
    answered = proxy.wait_answer(url + HEALTH_PATH, timeout_s=60, context=proxy_support.unverified())
    figures.report(request.config, f"proxy start: {HEALTH_PATH} answered through it after {answered:.1f} s")
    return url


def test_health_check_answers_and_docker_calls_it_healthy(app, up) -> None:
    assert app.state()["Health"]["Status"] == "healthy"
    log = app.state()["Health"]["Log"]
    assert log and log[-1]["ExitCode"] == 0, log
    assert app.inspect("{{.RestartCount}}") == "0"


def test_every_process_runs_as_the_images_non_root_user_without_privileges(image, app, up) -> None:
    uid = int(image.user.split(":")[0])
    assert uid != 0, f"the image runs as {image.user!r}"
    statuses = {pid: proc_status(pid) for pid in app.pids()}
    assert len(statuses) >= 2  # the init (tini) and the server at least
    for pid, status in statuses.items():
        assert status["Uid"].split() == [str(uid)] * 4, (pid, status["Name"], status["Uid"])
    server = [pid for pid in statuses if b"streamlit" in open(f"/proc/{pid}/cmdline", "rb").read()]
    assert server, statuses
    status = statuses[server[0]]
    # cap_drop ALL, no-new-privileges and a seccomp filter, as the kernel sees the server.
    assert int(status["CapEff"], 16) == 0 and int(status["CapBnd"], 16) == 0, status
    assert status["NoNewPrivs"].strip() == "1" and status["Seccomp"].strip() == "2", status


@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is absent")
def test_page_runs_the_retracing_example_through_the_proxy(app, proxy, proxied) -> None:
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    with sync_api.sync_playwright() as p:
        browser = launch(p)
        try:
            page = browser.new_page(
                viewport={"width": 1400, "height": 1200}, ignore_https_errors=True
            )  # the self-signed default
            for attempt in range(3):  # the host's network changing under Chromium is not ours
                try:
                    page.goto(f"{proxied}/?example=retracing")
                    break
                except sync_api.Error as error:
                    if "ERR_NETWORK_CHANGED" not in str(error) or attempt == 2:
                        raise
            try:
                wait_idle(page)
            except sync_api.Error:  # say what the page showed and what both servers logged
                page.screenshot(path=str(SHOTS / "container_proxy_page.png"))
                raise AssertionError(
                    f"the page did not open; it shows:\n"
                    f"{page.inner_text('body')[:2000]}\n--- app:\n{app.logs()}"
                    f"\n--- proxy:\n{proxy.logs()}"
                ) from None
            run_and_wait(page)
            assert traces_value(page) == "2"
            assert "isolation bubblewrap" in result_caption(page)
        finally:
            browser.close()


PROBE = """import errno, json, socket

def attempt(action):
    try:
        action()
        return "ok"
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))

def connect(address):
    return lambda: socket.create_connection(address, timeout=5).close()

def write(path):
    return lambda: open(path, "w").close()

checks = {CHECKS}
print("PROBE " + json.dumps(dict(
    {name: attempt(action) for name, action in checks.items()},
    interfaces=sorted(name for _, name in socket.if_nameindex()))))
"""
JOB = """
import tensorflow as tf

@tf.function
def f(x):
    return x * 2
"""


def probe(container: Container, checks: str, *argv: str) -> tuple[dict, str]:
    done = container.exec(*argv, stdin=PROBE.replace("{CHECKS}", checks) + JOB)
    lines = [line for line in done.stdout.splitlines() if "PROBE " in line]
    assert done.returncode == 0 and len(lines) == 1, f"{done.stdout}\n{done.stderr}"
    return json.loads(lines[0].split("PROBE ", 1)[1]), done.stdout


def test_cli_job_runs_in_bubblewrap_with_no_network_and_a_read_only_root(image, app, up) -> None:
    python = image.env["PLAYGROUND_PYTHON"]
    address, gateway = app.address()
    server = f"({address!r}, {app_port()})"
    # The same probe outside the sandbox first: there the app's address answers (so a refusal
    # inside is the sandbox's doing), and the container's root is read-only too.
    outside, _ = probe(
        app,
        f'{{"app": connect({server}), "write_app": write("/app/probe"), "write_tmp": write("/tmp/probe")}}',
        python,
        "-",
    )
    assert outside == {"app": "ok", "write_app": "EROFS", "write_tmp": "ok", "interfaces": ["eth0", "lo"]}, (
        outside
    )
    # No packet leaves for the gateway: with no route, connect fails before sending anything.
    inside, text = probe(
        app,
        f'{{"app": connect({server}), "gateway": connect(({gateway!r}, 9)), '
        f'"write_root": write("/probe"), "write_usr": write("/usr/probe"), '
        f'"write_tmp": write("/tmp/probe")}}',
        python,
        "-m",
        "playground",
        "analyze",
        "-",
        "--function",
        "f",
        "--call",
        "float32[3]",
    )
    assert re.search(r"^TensorFlow \S+ on CPU.*; isolation: bubblewrap$", text, re.M), text
    assert "f: 1 trace(s) in 1 call(s)" in text, text
    assert inside == {
        "app": "ENETUNREACH",
        "gateway": "ENETUNREACH",
        "write_root": "EROFS",
        "write_usr": "EROFS",
        "write_tmp": "ok",
        "interfaces": ["lo"],
    }, inside


def test_bubblewrap_isolation_fails_closed_without_the_seccomp_profile(image) -> None:
    spec = service()
    assert ("--env", "PLAYGROUND_ISOLATION=bubblewrap") in spec.options  # the file's default
    seccomp = [v for f, v in spec.options if f == "--security-opt" and v.startswith("seccomp=")]
    assert len(seccomp) == 1, spec.options
    argv = spec.run_argv(without=lambda flag, value: value == seccomp[0])
    with container_support.running(image.image, argv, f"playground-test-noseccomp-{os.getpid()}") as bare:
        done = bare.exec(
            image.env["PLAYGROUND_PYTHON"],
            "-m",
            "playground",
            "analyze",
            "-",
            "--function",
            "f",
            "--call",
            "float32[3]",
            stdin=JOB,
        )
        init = proc_status(bare.pids()[0])
    assert init["Seccomp"].strip() == "2"  # Docker's default profile, not unconfined
    assert done.returncode == 1, (done.returncode, done.stdout, done.stderr)
    assert re.search(
        r"^error: PLAYGROUND_ISOLATION=bubblewrap, but bubblewrap cannot create "
        r"namespaces here: bwrap: No permissions to create new namespace",
        done.stderr,
        re.M,
    ), done.stderr
    assert "status:" not in done.stdout and "trace" not in done.stdout, done.stdout


# ---------------------------------------------------------------- through the proxy
def test_only_the_proxy_is_published_and_it_serves_tls(app, proxy, proxied) -> None:
    ports = json.loads(app.inspect("{{json .NetworkSettings.Ports}}"))
    assert ports == {f"{app_port()}/tcp": None}, ports  # exposed, not published
    host, port = proxied.split("//")[1].rsplit(":", 1)
    with proxy_support.unverified().wrap_socket(
        socket.create_connection((host, int(port)), timeout=10), server_hostname="localhost"
    ) as tls:
        assert tls.version() in ("TLSv1.2", "TLSv1.3")
        der = tls.getpeercert(binary_form=True)
    text = subprocess.run(
        ["openssl", "x509", "-noout", "-subject", "-ext", "subjectAltName"],
        input=ssl.DER_cert_to_PEM_cert(der),
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    ).stdout
    # The self-signed default, made at start for the file's PROXY_TLS_NAME default.
    assert "CN = localhost" in text and "DNS:localhost" in text, text
    started = container_support.docker("logs", proxy.id).stderr  # the entrypoint's first line
    assert "no certificate in /etc/playground-tls; made a self-signed one" in started, started[:500]
    status, body = proxy_support.request(proxied, path=HEALTH_PATH)
    assert (status, body.strip()) == (200, b"ok")


def test_nginx_runs_the_templates_config_as_a_non_root_user(image, proxy, proxied) -> None:
    statuses = {pid: proc_status(pid) for pid in proxy.pids()}
    assert len(statuses) >= 3  # the master and two workers
    for pid, status in statuses.items():
        assert status["Uid"].split()[0] != "0", (pid, status["Name"], status["Uid"])
        assert int(status["CapEff"], 16) == 0 and status["NoNewPrivs"].strip() == "1", status
    rendered = proxy.exec("cat", "/tmp/nginx/nginx.conf").stdout
    module = proxy_support.entrypoint()
    assert rendered == module.render(
        module.TEMPLATE.read_text(),
        {
            "PROXY_UPSTREAM": "playground:8501",
            "PROXY_LISTEN": "8443",
            "PROXY_CERT": "/tmp/nginx/tls/cert.pem",
            "PROXY_KEY": "/tmp/nginx/tls/key.pem",
        },
    )


def test_the_websocket_opens_through_the_proxy_for_the_pages_own_origin(proxied) -> None:
    # websockets' asyncio client, not its sync one: the sync client reads the TLS socket in a
    # thread of its own while the caller's thread writes the upgrade, and one ssl socket used by
    # two threads at once (OpenSSL forbids it) now and then lost that write under TLS 1.3: nginx
    # waited for a request until client_header_timeout (10 s) and closed the connection, "did not
    # receive a valid HTTP response" here.
    from websockets.asyncio.client import connect
    from websockets.exceptions import InvalidStatus

    stream = proxied.replace("https://", "wss://") + "/_stcore/stream"

    async def talk() -> None:
        # The proxy passes the browser's Host on, so the page's own origin is same-origin there.
        async with connect(
            stream,
            ssl=proxy_support.unverified(),
            origin=proxied,
            open_timeout=30,
            subprotocols=["streamlit"],
        ) as ws:
            await asyncio.wait_for(await ws.ping(), 10)  # answered by the app, through nginx
        with pytest.raises(InvalidStatus) as refused:
            async with connect(
                stream,
                ssl=proxy_support.unverified(),
                origin="https://elsewhere.example",
                open_timeout=30,
                subprotocols=["streamlit"],
            ):
                pass
        assert refused.value.response.status_code == 403

    asyncio.run(talk())


def test_a_body_over_the_proxys_cap_gets_413(proxied) -> None:
    assert proxy_support.refused_413(proxied) == b"HTTP/1.1 413 Request Entity Too Large"


def test_a_burst_from_one_address_gets_429_from_the_proxy(proxied) -> None:
    """Last in the module: the address's request budget takes a few seconds to refill."""
    answers = proxy_support.burst(proxied, "/", 120)
    assert {status for status, _ in answers} == {200, 429}, [status for status, _ in answers]
    # nginx's own page (the app's front door has a request limit of its own, behind this one).
    by_nginx = [body for status, body in answers if status == 429 and b"nginx" in body]
    assert len(by_nginx) >= 20, [status for status, _ in answers]


# ---------------------------------------------------------------- the operator's Prometheus
@pytest.fixture(scope="module")
def prometheus(image, network, up) -> str:
    """The `metrics` profile's Prometheus on the app's network, its data on a volume of this
    test's (the file's named volume would outlive it): its URL once it is ready."""
    spec = services("metrics")["prometheus"]
    volume = f"playground-test-prometheus-{os.getpid()}"
    argv = [
        *spec.run_argv(network=network, without=lambda f, v: f == "--volume"),
        "--volume",
        f"{volume}:/prometheus",
    ]
    with container_support.running(
        spec.image, argv, f"playground-test-prometheus-{os.getpid()}"
    ) as container:
        url = published_url(container, spec.ports[0])
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(url + "/-/ready", timeout=5) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                if time.monotonic() > deadline:
                    raise AssertionError(
                        f"Prometheus was not ready within 60 s:\n{container.logs()}"
                    ) from None
            time.sleep(0.5)
        yield url
    container_support.docker("volume", "rm", "--force", volume, check=False)


def query(prometheus: str, expression: str) -> list[dict]:
    with urllib.request.urlopen(
        f"{prometheus}/api/v1/query?query={urllib.parse.quote(expression)}", timeout=10
    ) as r:
        return json.loads(r.read())["data"]["result"]


def test_prometheus_scrapes_the_apps_metrics_by_its_service_name_and_nobody_else_may(
    app, up, prometheus
) -> None:
    # Its first scrape comes within one interval (15 s) of its start: the target is up, so the
    # app answered 200 to the address its name resolves to, and the playground's series are in.
    deadline = time.monotonic() + 60
    while not [s for s in query(prometheus, 'up{job="playground"}') if s["value"][1] == "1"]:
        assert time.monotonic() < deadline, query(prometheus, 'up{job="playground"}')
        time.sleep(2)
    assert [s["metric"]["__name__"] for s in query(prometheus, "playground_workers_ready")] == [
        "playground_workers_ready"
    ]
    # The host, another peer on the network, is refused.
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(up + "/metrics", timeout=10)
    assert refused.value.code == 403
