"""Workers forked from a zygote: each job is as alone as in a freshly started sandbox.

One zygote (pool_size=1) serves every job here, so each test's jobs come from the same warm
parent, one after another: exactly where a leak between jobs would show.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import uuid

import pytest
from sandbox_support import SETTINGS, need_bwrap, poll, script, timed

from playground.sandbox import WorkerPool, forked


@pytest.fixture(scope="module")
def one():
    with WorkerPool(dataclasses.replace(SETTINGS, pool_size=1, fork_workers="on")) as p:
        need_bwrap(p, "forked workers isolate themselves with namespaces")
        assert p._zygotes is not None and p.wait_ready()
        yield p


def test_fork_is_wanted_only_under_bubblewrap_and_without_a_gpu(monkeypatch):
    monkeypatch.setattr(forked.glob, "glob", lambda pattern: [])
    assert forked.fork_wanted("auto", "bubblewrap")
    assert not forked.fork_wanted("auto", "process")  # no namespaces: a fresh process each
    assert not forked.fork_wanted("on", "process")
    assert not forked.fork_wanted("off", "bubblewrap")
    monkeypatch.setattr(forked.glob, "glob", lambda pattern: ["/dev/nvidia0"])
    assert not forked.fork_wanted("auto", "bubblewrap")  # CUDA does not survive a fork
    assert forked.fork_wanted("on", "bubblewrap")


def test_reports_say_the_worker_was_forked(one):
    report, _ = timed(one, script("print('hi')\n"))
    assert report.stdout == "hi\n"
    assert forked.NOTE in report.sandbox.notes


def test_the_next_job_finds_nothing_of_the_last(one):
    token = uuid.uuid4().hex
    # '.' is a path of its own: the working directory may be a mount that '/tmp' no longer names.
    first = (
        "import os, subprocess, sys\n"
        "for folder in ('/tmp', '/dev/shm', os.environ.get('HOME', '/tmp'), '.'):\n"
        f"    open(os.path.join(folder, 'left-{token}'), 'w').write('x')\n"
        "for folder in ('/job', '/dev', '/'):\n"
        "    try:\n"
        f"        open(os.path.join(folder, 'left-{token}'), 'w').write('x')\n"
        "        print('WROTE', folder)\n"
        "    except OSError:\n"
        "        pass\n"
        f"subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)  # {token}'],"
        " start_new_session=True)\n"
        "print('init', open('/proc/1/stat').read().rsplit(')', 1)[1].split()[19])\n"
    )
    report, _ = timed(one, script(first))
    assert report.status == "ok", report.message
    assert "WROTE" not in report.stdout  # /job, /dev and / are read-only
    second = (
        "import os\nfound = []\n"
        "for top in ('/tmp', '/dev', '/job', '/'):\n"
        "    for folder, dirs, files in os.walk(top):\n"
        "        if folder.startswith(('/proc', '/sys', '/usr')):\n"
        "            dirs[:] = []\n"
        f"        found += [f for f in files if '{token}' in f]\n"
        f"found += [f for f in os.listdir('.') if '{token}' in f]\n"
        "for pid in [p for p in os.listdir('/proc') if p.isdigit()]:\n"
        "    try:\n"
        f"        if b'{token}' in open(f'/proc/{{pid}}/cmdline', 'rb').read():\n"
        "            found.append('process ' + pid)\n"
        "    except OSError:\n"
        "        pass\n"
        "print('found', found, sorted(os.listdir('/job')))\n"
        "print('init', open('/proc/1/stat').read().rsplit(')', 1)[1].split()[19])\n"
    )
    after, _ = timed(one, script(second))
    assert after.status == "ok", after.message
    assert "found [] ['main.py']" in after.stdout, after.stdout
    # A PID namespace of its own, started after the last one: its init is younger. (The
    # namespace's inode number says nothing: the kernel reuses a freed namespace's number.)
    started = [int(r.stdout.split("init ")[1]) for r in (report, after)]
    assert started[1] > started[0], started


def test_a_job_sees_only_its_own_processes_and_holds_no_privilege(one):
    source = (
        "import os\nprint('pids', sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))\n"
        "status = dict(l.split(':', 1) for l in open('/proc/self/status'))\n"
        "print('caps', status['CapEff'].strip(), status['CapBnd'].strip(),"
        " status['NoNewPrivs'].strip())\n"
        "links = []\nfor fd in os.listdir('/proc/self/fd'):\n    try:\n"
        "        links.append(os.readlink(f'/proc/self/fd/{fd}'))\n"
        "    except OSError:\n        pass   # listdir's own fd, closed by now\n"
        "print('sockets', [l for l in links if l.startswith('socket:')])\n"
        # A fresh interpreter is single-threaded (the worker is not; unshare refuses those).
        "import subprocess, sys\nprobe = ('import ctypes, errno; c = ctypes.CDLL(None, use_errno=True); '\n"
        "    'bad = c.unshare(0x10000000) != 0; '\n"  # CLONE_NEWUSER
        "    'print(errno.errorcode.get(ctypes.get_errno()) if bad else \"made\")')\n"
        "out = subprocess.run([sys.executable, '-c', probe], capture_output=True, text=True)\n"
        "print('userns', out.stdout.strip() or out.stderr.strip()[-80:])\n"
        "init = dict(l.split(':', 1) for l in open('/proc/1/status'))\n"
        "print('init_kb', init['VmRSS'].split()[0])\n"
    )
    report, _ = timed(one, script(source))
    assert report.status == "ok", report.message
    lines = dict(line.split(" ", 1) for line in report.stdout.splitlines())
    assert lines["pids"] == "[1, 2]"  # its namespace's init and itself: no zygote
    assert lines["caps"] == "0000000000000000 0000000000000000 1"
    assert lines["sockets"] == "[]"  # the zygote's control socket never reaches a job
    assert lines["userns"] == "ENOSPC"  # no nested user namespace: no fresh capabilities
    # PID 1 is spawned, not another copy of the 600 MB zygote (two copies per job, not three)
    assert int(lines["init_kb"]) < 20_000, lines["init_kb"]


def test_the_host_reads_the_cpu_of_a_worker_that_has_already_exited(one):
    """The Exit line is written once the worker is dead, and the host reads the job's CPU only
    after it: a worker reaped outside its namespace would read as 0 here, every time."""
    body = (
        "import os, time\nend = time.process_time() + 0.6\n"
        "while time.process_time() < end:\n    pass\nos._exit(3)\n"
    )
    for _ in range(3):
        report, _ = timed(one, script(body))
        assert report.status == "killed" and "exit status 3" in report.message, report.message
        assert report.sandbox.cpu_s is not None and report.sandbox.cpu_s >= 0.55, report.sandbox


def test_stderr_stays_with_its_job(one):
    secret = uuid.uuid4().hex
    # Writes to every fd it has (the worker's stderr among them), then dies without a report.
    leak = (
        "import os, signal\nfor fd in range(3, 64):\n    try:\n"
        f"        os.write(fd, b'{secret}\\n')\n    except OSError:\n        pass\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    first, _ = timed(one, script(leak))
    assert first.status == "killed" and "SIGKILL" in first.message, first.message
    assert secret in first.stdout  # its own stderr tail is shown to it...
    second, _ = timed(one, script("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n"))
    assert second.status == "killed" and "SIGKILL" in second.message, second.message
    assert secret not in second.stdout + second.message  # ...and to no one else


def test_a_dead_zygote_is_replaced(one):
    zygote = one._zygotes.running()[0]
    os.killpg(zygote.proc.pid, signal.SIGKILL)
    assert poll(lambda: not zygote.alive())
    report, _ = timed(one, script("print('after')\n"))
    assert (report.status, report.stdout) == ("ok", "after\n"), report.message
    assert one._zygotes.running()[0] is not zygote


def test_device_binds_come_before_dev_turns_read_only(monkeypatch):
    """A GPU worker's --dev-bind creates its mount point in /dev: that must precede the remount
    (bwrap runs its steps in order), or no GPU worker could start."""
    from playground.sandbox import bwrap

    monkeypatch.setattr(bwrap.glob, "glob", lambda pattern: ["/dev/nvidia0", "/dev/nvidiactl"])
    argv = bwrap.argv(["true"], {}, prefix=None, code_dir="/c", job_dir="/j", tmp_mb=8)
    binds = [i for i, a in enumerate(argv) if a == "--dev-bind"]
    readonly = [i for i, a in enumerate(argv) if a == "--remount-ro"]
    assert len(binds) == 2 and {argv[i + 1] for i in readonly} == {"/dev", "/"}
    assert max(binds) < min(readonly) < argv.index("--")
