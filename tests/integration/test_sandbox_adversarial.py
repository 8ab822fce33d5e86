"""Hostile jobs against the real sandbox: each must end in a clear Report and leave no trace."""

from __future__ import annotations

import os
import socket
import threading
import uuid
from importlib.metadata import version

import pytest
from sandbox_support import (
    SECRET,
    SETTINGS,
    cmdline_gone,
    need_bwrap,
    need_own_uid,
    nothing_left,
    pool,  # noqa: F401 - pool is a fixture
    script,
    timed,
)

from playground.contract.job import Job
from playground.sandbox import bwrap, layout


def test_endless_python_loop_stops_at_wall_time(pool):
    report, wall = timed(pool, script("while True:\n    pass\n", timeout_s=3))
    assert report.status == "timeout"
    assert report.message == "Time limit: stopped after 3 s"
    assert wall < 3 + 4
    assert nothing_left(report, pool)
    # The worker said where it ran before the user's code started; a stopped run keeps it.
    assert report.tensorflow_version == version("tensorflow")
    assert report.device.startswith(("CPU", "GPU")) and report.environment["intra_op_threads"] >= 0


def test_endless_tf_while_loop_stops_at_cpu_limit(pool):
    source = (
        "import tensorflow as tf\n@tf.function\ndef spin():\n"
        "    return tf.while_loop(lambda i: i >= 0, lambda i: i + 1, [tf.constant(0)])\n"
        "spin()\n"
    )
    report, wall = timed(pool, script(source))
    assert report.status == "timeout"
    assert report.message.startswith("CPU limit: stopped after 5 s"), report.message
    assert wall < SETTINGS.timeout_s  # CPU, not wall time, ended it
    assert nothing_left(report, pool)


def test_sleeping_forever_stops_at_wall_time(pool):
    report, wall = timed(pool, script("import time\ntime.sleep(10**6)\n", timeout_s=2))
    assert (report.status, report.message) == ("timeout", "Time limit: stopped after 2 s")
    assert wall < 2 + 4


def test_numpy_allocation_beyond_ram_is_a_memory_report(pool):
    report, wall = timed(pool, script("import numpy as np\na = np.ones(1 << 40, np.uint8)\n"))
    assert report.status == "memory"
    assert report.message.startswith("Memory limit: could not allocate"), report.message
    assert "1.00 TiB" in report.message
    assert wall < 8


def test_tf_allocation_beyond_ram_is_a_memory_report(pool):
    report, wall = timed(pool, script("import tensorflow as tf\nx = tf.ones([1 << 17, 1 << 17])\n"))
    assert report.status == "memory", report.message
    assert report.message.startswith("Memory limit: could not allocate")
    assert wall < 8  # oneDNN off: the plain allocator fails at once, no 10 s retries


def test_fork_bomb_is_capped_and_leaves_no_process(pool):
    need_own_uid(pool, "RLIMIT_NPROC counts per uid and does nothing for root")
    source = "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n"
    report, wall = timed(pool, script(source, timeout_s=4))
    assert (report.status, report.message) == ("timeout", "Time limit: stopped after 4 s")
    assert wall < 4 + 5
    assert nothing_left(report, pool)


def test_thread_bomb_hits_the_process_limit(pool):
    need_own_uid(pool, "RLIMIT_NPROC counts threads per uid")
    source = (
        "import threading, time\nwhile True:\n"
        "    threading.Thread(target=time.sleep, args=(60,), daemon=True).start()\n"
    )
    report, wall = timed(pool, script(source))
    assert report.status == "error"
    assert "can't start new thread" in report.message, report.message
    assert wall < 8
    assert nothing_left(report, pool)


def test_setsid_daemon_does_not_survive(pool):
    need_own_uid(pool, "a setsid child escapes killpg; the PID namespace or uid sweep gets it")
    token = f"daemon-{uuid.uuid4().hex}"
    source = (
        "import subprocess, sys\n"
        f"p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)  # {token}'],"
        " start_new_session=True)\nprint('spawned', p.pid)\n"
    )
    report, wall = timed(pool, script(source))
    assert report.status == "ok", report.message
    assert "spawned" in report.stdout
    assert wall < 8
    assert cmdline_gone(token), "the setsid daemon outlived its job"
    assert nothing_left(report, pool)


def test_disk_filler_hits_the_file_limit(pool):
    source = "with open('big.bin', 'wb') as f:\n    while True:\n        f.write(b'x' * (1 << 20))\n"
    report, wall = timed(pool, script("import os, tempfile\nos.chdir(tempfile.gettempdir())\n" + source))
    assert report.status == "error"
    assert report.message.startswith("File limit: a file may grow to 16 MiB"), report.message
    assert "File too large" in report.message
    assert wall < 8


def test_disk_filler_with_many_files_hits_the_tmpfs_size(pool):
    need_bwrap(pool, "the size-capped private /tmp is a tmpfs mount")
    source = (
        "import tempfile\nfor i in range(1000):\n"
        "    with open(f'{tempfile.gettempdir()}/f{i}', 'wb') as f:\n"
        "        f.write(b'x' * (8 << 20))\n"
    )
    report, wall = timed(pool, script(source))
    assert report.status in ("error", "killed")
    assert (
        "No space left on device" in (report.error.message if report.error else "")
        or "No space left" in report.message
    ), report.message
    assert wall < 8


def test_output_flood_is_capped(pool):
    report, wall = timed(pool, script("for i in range(300_000):\n    print('x' * 40)\n"))
    assert report.status == "killed"
    assert report.message == "Output limit: 1 MiB printed, rest dropped"
    assert len(report.stdout.encode()) <= (1 << 20) + 4096
    assert wall < 8


@pytest.fixture()
def listener():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.setblocking(False)
    yield server
    server.close()


def _accepted(server: socket.socket) -> bool:
    try:
        server.accept()[0].close()
        return True
    except BlockingIOError:
        return False


def test_loopback_connection_is_refused(pool, listener):
    need_bwrap(pool, "only a network namespace removes loopback")
    port = listener.getsockname()[1]
    source = f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=2)\n"
    report, wall = timed(pool, script(source))
    assert report.status == "error"
    assert report.message.startswith("Network access is disabled in the playground"), report.message
    assert not _accepted(listener)
    assert wall < 8


def test_loopback_from_a_fresh_interpreter_is_refused(pool, listener):
    need_bwrap(pool, "only a network namespace removes loopback")
    port = listener.getsockname()[1]
    child = (
        f"import socket\\ntry:\\n    socket.create_connection(('127.0.0.1', {port}), 2)\\n"
        f"    print('CONNECTED')\\nexcept OSError as e:\\n    print('BLOCKED', type(e).__name__)"
    )
    source = f"import subprocess, sys\nsubprocess.run([sys.executable, '-c', \"{child}\"])\n"
    report, _ = timed(pool, script(source))
    assert report.status == "ok", report.message
    assert "BLOCKED" in report.stdout and "CONNECTED" not in report.stdout
    assert not _accepted(listener)


def test_root_only_file_cannot_be_read(pool):
    """The file sits where the job can see it (the staged code dir is mounted into every job),
    so only the dropped uid stands between the job and the secret."""
    if os.geteuid() != 0:
        pytest.skip("needs root: the job must run as a uid other than the file's owner")
    name = f"secret-{uuid.uuid4().hex}.txt"
    host_path = os.path.join(layout.code_dir(), name)
    with open(host_path, "w") as f:
        f.write(SECRET)
    os.chmod(host_path, 0o600)
    seen = f"{bwrap.CODE_MOUNT}/{name}" if pool.isolation == "bubblewrap" else host_path
    try:
        source = (
            f"import os\nprint('EXISTS', os.path.exists({seen!r}))\n"
            f"try:\n    print('READ', open({seen!r}).read())\n"
            "except OSError as e:\n    print('DENIED', type(e).__name__)\n"
            "for path in ('/etc/shadow', '/root/.bashrc'):\n"
            "    try:\n        open(path).read(); print('READ', path)\n"
            "    except OSError as e:\n        print('DENIED', path, type(e).__name__)\n"
        )
        report, _ = timed(pool, script(source))
    finally:
        os.unlink(host_path)
    assert report.status == "ok", report.message
    assert "EXISTS True" in report.stdout  # it was there to be read
    assert "DENIED PermissionError" in report.stdout and SECRET not in report.stdout
    assert "READ /etc/shadow" not in report.stdout and "READ /root/.bashrc" not in report.stdout


def test_server_environment_is_invisible(pool):
    need_own_uid(pool, "/proc/<server pid>/environ is readable by the same uid")
    source = (
        "import os\nprint(dict(os.environ))\n"
        "for pid in ('1', 'self', str(os.getppid())):\n"
        "    try:\n        print(pid, open(f'/proc/{pid}/environ', 'rb').read())\n"
        "    except OSError as e:\n        print(pid, 'DENIED', e)\n"
    )
    report, _ = timed(pool, script(source))
    assert report.status == "ok", report.message
    assert "PLAYGROUND_TEST_SECRET" not in report.stdout and SECRET not in report.stdout
    assert "TF_NUM_INTRAOP_THREADS" in report.stdout  # the allowlist did reach the job


def test_project_tree_and_own_source_are_read_only(pool):
    need_own_uid(pool, "the project tree is writable by the server's uid")
    import playground

    project = os.path.dirname(os.path.dirname(playground.__file__))
    target = os.path.join(project, f"pwned-{uuid.uuid4().hex}.txt")
    # The job names its file as the user does; the copy it runs from is the job dir's.
    own = [f"{bwrap.JOB_MOUNT}/{layout.JOB_FILE}"] if pool.isolation == "bubblewrap" else []
    source = (
        "import os, sys, playground\n"
        f"paths = [{target!r}, os.path.join(os.path.dirname(playground.__file__), 'x.py')]"
        f" + {own!r}\n"
        "for p in paths:\n    try:\n        open(p, 'a').write('pwned')\n        print('WROTE', p)\n"
        "    except OSError as e:\n        print('DENIED', type(e).__name__, p)\n"
    )
    report, _ = timed(pool, script(source))
    assert report.status == "ok", report.message
    assert "WROTE" not in report.stdout and report.stdout.count("DENIED") == 2 + len(own)
    assert not os.path.exists(target)


def test_killing_the_parent_does_not_hurt_the_pool(pool):
    need_own_uid(pool, "without a uid or PID namespace the job may signal the server")
    source = (
        "import os, signal\ntry:\n    os.kill(os.getppid(), signal.SIGKILL)\n"
        "except OSError as e:\n    print('DENIED', e)\nprint('still here')\n"
    )
    report, wall = timed(pool, script(source))
    assert report.status in ("ok", "killed"), report.message
    assert wall < 8
    after, _ = timed(pool, script("print('next job')\n"))
    assert (after.status, after.stdout.strip()) == ("ok", "next job")


def test_concurrent_jobs_cannot_see_each_other(pool):
    need_own_uid(pool, "jobs must run as different uids or in different mount namespaces")
    tokens = [uuid.uuid4().hex for _ in range(2)]
    # Files hold the reversed token, so a job's own source (which names both) never matches.
    source = (
        "import os, sys, tempfile, time\nmine, theirs = {mine!r}[::-1], {theirs!r}[::-1]\n"
        "open(os.path.join(tempfile.gettempdir(), 'mark'), 'w').write(mine)\n"
        "job = os.path.dirname(sys._getframe().f_code.co_filename)\n"
        "base = os.path.dirname(os.path.dirname(job))\n"
        "roots = {{tempfile.gettempdir(), '/tmp'}} | ({{base}} | {{f'{{base}}/w{{k}}' for k in range(400)}}"
        " if base != '/' else set())\n"
        "deadline = time.monotonic() + 3\nwhile time.monotonic() < deadline:\n"
        "    for root in roots:\n        for d, _, files in os.walk(root):\n"
        "            for f in files:\n                try:\n"
        "                    if theirs.encode() in open(os.path.join(d, f), 'rb').read(100):\n"
        "                        print('FOUND'); deadline = 0\n"
        "                except OSError:\n                    pass\n    time.sleep(0.1)\n"
        "print('done', mine[::-1])\n"
    )
    reports = [None, None]

    def run(i):
        reports[i] = pool.submit(script(source.format(mine=tokens[i], theirs=tokens[1 - i])))

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    for i, report in enumerate(reports):
        assert report is not None and report.status == "ok", report and report.message
        assert f"done {tokens[i]}" in report.stdout
        assert "FOUND" not in report.stdout and tokens[1 - i] not in report.stdout


def test_autograph_still_converts_inside_the_sandbox(pool):
    source = (
        "import tensorflow as tf\n\ndef f(x):\n    if tf.reduce_sum(x) > 0:\n"
        "        x = x * 2\n    return x\n"
    )
    report, wall = timed(pool, Job(source=source, function="f", calls=("float32[3]",)))
    assert report.status == "ok", report.message
    code = report.functions[0].converted_code
    assert code is not None and "ag__" in code
    assert report.functions[0].tracing_count == 1
    assert wall < 8
