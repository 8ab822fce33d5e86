"""The service image, built by scripts/build-image.sh and run with the options docker-compose.yml
gives (read from the file): its health check, the app in Chromium, a CLI job under bubblewrap,
failing closed without the seccomp profile, and the non-root uid. Real Docker throughout.

Needs a Docker engine; one is started (and stopped) when none answers. Where none can run this
module skips, except under CI (CI=true), where that is a failure. PLAYGROUND_CONTAINER_TESTS=0
skips it on purpose (a cold build takes minutes)."""
from __future__ import annotations

import contextlib
import json
import os
import re
import time

import pytest

import compose_service
import container_support
import docker_engine
import figures
from browser_support import CHROMIUM, free_port, launch, result_caption, run_and_wait, \
    traces_value, wait_idle
from container_support import ROOT, Container, proc_status

pytestmark = pytest.mark.skipif(os.environ.get("PLAYGROUND_CONTAINER_TESTS") == "0",
                                reason="PLAYGROUND_CONTAINER_TESTS=0")
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
    figures.report(request.config, f"container tests: {time.monotonic() - started:.0f} s in "
                                   f"all ({which})")


def service() -> compose_service.Service:
    """The compose service, each published port moved to a free one on the file's address."""
    return compose_service.load(COMPOSE, environ=ENVIRON, publish=lambda port: free_port())


def app_port() -> int:
    """The container port the file publishes (the app's)."""
    (port,) = service().ports
    return port


@pytest.fixture(scope="module")
def image(engine, request) -> container_support.Build:
    spec = service()
    built = container_support.build(spec.image, spec.build_args.get("TF_VARIANT", "cpu"))
    for line in built.lines:
        figures.report(request.config, f"build-image.sh: {line}")
    figures.report(request.config, f"build-image.sh: {built.seconds:.0f} s in all; image "
                                   f"{built.image} {built.size_bytes / 1e6:.0f} MB")
    return built


def published_url(container: Container, port: int) -> str:
    """http://ADDRESS:PORT where the host reaches the container's port (the file's address)."""
    binding = json.loads(container.inspect("{{json .NetworkSettings.Ports}}"))[f"{port}/tcp"][0]
    address = binding["HostIp"] if binding["HostIp"] not in ("", "0.0.0.0") else "127.0.0.1"
    return f"http://{address}:{binding['HostPort']}"


@pytest.fixture(scope="module")
def app(image) -> Container:
    spec = service()
    container_support.remove_leftovers()
    with container_support.running(image.image, spec.run_argv(),
                                   f"playground-test-{os.getpid()}") as container:
        yield container


@pytest.fixture(scope="module")
def up(app, request) -> str:
    """The app's URL once its health endpoint answers and Docker calls it healthy."""
    url = published_url(app, app_port())
    answered = app.wait_answer(url + HEALTH_PATH, timeout_s=180)
    # Docker runs the first check one interval after the start, so this takes at least that.
    healthy = app.wait_healthy(timeout_s=300)
    figures.report(request.config, f"container start: {HEALTH_PATH} answered after "
                                   f"{answered:.1f} s, HEALTHCHECK healthy after {healthy:.1f} s")
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
    assert len(statuses) >= 2                       # the init (tini) and the server at least
    for pid, status in statuses.items():
        assert status["Uid"].split() == [str(uid)] * 4, (pid, status["Name"], status["Uid"])
    server = [pid for pid in statuses
              if b"streamlit" in open(f"/proc/{pid}/cmdline", "rb").read()]
    assert server, statuses
    status = statuses[server[0]]
    # cap_drop ALL, no-new-privileges and a seccomp filter, as the kernel sees the server.
    assert int(status["CapEff"], 16) == 0 and int(status["CapBnd"], 16) == 0, status
    assert status["NoNewPrivs"].strip() == "1" and status["Seccomp"].strip() == "2", status


@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is absent")
def test_page_runs_the_retracing_example_from_the_containers_port(up) -> None:
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    with sync_api.sync_playwright() as p:
        browser = launch(p)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1200})
            page.goto(f"{up}/?example=retracing")
            wait_idle(page)
            run_and_wait(page)
            assert traces_value(page) == "2"
            assert "isolation bubblewrap" in result_caption(page)
        finally:
            browser.close()


PROBE = '''import errno, json, socket

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
'''
JOB = '''
import tensorflow as tf

@tf.function
def f(x):
    return x * 2
'''


def probe(container: Container, checks: str, *argv: str) -> tuple[dict, str]:
    done = container.exec(*argv, stdin=PROBE.replace("{CHECKS}", checks) + JOB)
    lines = [l for l in done.stdout.splitlines() if "PROBE " in l]
    assert done.returncode == 0 and len(lines) == 1, f"{done.stdout}\n{done.stderr}"
    return json.loads(lines[0].split("PROBE ", 1)[1]), done.stdout


def test_cli_job_runs_in_bubblewrap_with_no_network_and_a_read_only_root(image, app, up) -> None:
    python = image.env["PLAYGROUND_PYTHON"]
    address = app.inspect("{{.NetworkSettings.IPAddress}}")
    gateway = app.inspect("{{.NetworkSettings.Gateway}}")
    server = f"({address!r}, {app_port()})"
    # The same probe outside the sandbox first: there the app's address answers (so a refusal
    # inside is the sandbox's doing), and the container's root is read-only too.
    outside, _ = probe(app, f'{{"app": connect({server}), "write_app": write("/app/probe"), '
                            f'"write_tmp": write("/tmp/probe")}}', python, "-")
    assert outside == {"app": "ok", "write_app": "EROFS", "write_tmp": "ok",
                       "interfaces": ["eth0", "lo"]}, outside
    # No packet leaves for the gateway: with no route, connect fails before sending anything.
    inside, text = probe(app, f'{{"app": connect({server}), "gateway": connect(({gateway!r}, 9)), '
                              f'"write_root": write("/probe"), "write_usr": write("/usr/probe"), '
                              f'"write_tmp": write("/tmp/probe")}}',
                         python, "-m", "playground", "analyze", "-", "--function", "f",
                         "--call", "float32[3]")
    assert re.search(r"^TensorFlow \S+ on CPU.*; isolation: bubblewrap$", text, re.M), text
    assert "f: 1 trace(s) in 1 call(s)" in text, text
    assert inside == {"app": "ENETUNREACH", "gateway": "ENETUNREACH", "write_root": "EROFS",
                      "write_usr": "EROFS", "write_tmp": "ok", "interfaces": ["lo"]}, inside


def test_bubblewrap_isolation_fails_closed_without_the_seccomp_profile(image) -> None:
    spec = service()
    assert ("--env", "PLAYGROUND_ISOLATION=bubblewrap") in spec.options   # the file's default
    seccomp = [v for f, v in spec.options if f == "--security-opt" and v.startswith("seccomp=")]
    assert len(seccomp) == 1, spec.options
    argv = spec.run_argv(without=lambda flag, value: value == seccomp[0])
    with container_support.running(image.image, argv, f"playground-test-noseccomp-{os.getpid()}"
                                   ) as bare:
        done = bare.exec(image.env["PLAYGROUND_PYTHON"], "-m", "playground", "analyze", "-",
                         "--function", "f", "--call", "float32[3]", stdin=JOB)
        init = proc_status(bare.pids()[0])
    assert init["Seccomp"].strip() == "2"          # Docker's default profile, not unconfined
    assert done.returncode == 1, (done.returncode, done.stdout, done.stderr)
    assert re.search(r"^error: PLAYGROUND_ISOLATION=bubblewrap, but bubblewrap cannot create "
                     r"namespaces here: bwrap: No permissions to create new namespace",
                     done.stderr, re.M), done.stderr
    assert "status:" not in done.stdout and "trace" not in done.stdout, done.stdout
