"""The code worker's walls hold even for code that got past the policy.

These tests start a worker that skips the policy check (``_unchecked_for_tests``: wflint never
does) and hand it code holding ``os`` through the classic escape, as if the AST policy had been
bypassed. What must still hold: nothing of the parent's environment or files is readable, nothing
is written outside the scratch directory, no packet leaves with the network off, nothing outlives
a SIGKILL of wflint, and writing to a descriptor cannot forge a reply. Linux (the walls differ
elsewhere: docs/untrusted-workflows.md).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from wflint.engine import code_runner, simulate
from wflint.engine.code_runner import CodeRunner, CodeWorker, WorkerGone

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the Linux walls")

OS = "os = json.loads.__globals__['codecs'].sys.modules['os']\n"


@pytest.fixture
def worker():
    made = []

    def start(network: bool = False) -> CodeWorker:
        made.append(CodeWorker(network=network, _unchecked_for_tests=True))
        return made[-1]

    yield start
    for w in made:
        w.close()


def call(w: CodeWorker, code: str) -> dict:
    return w.call({"code": code, "params": {}}, 30)


def test_the_escape_used_here_really_holds_os(worker):
    answer = call(worker(), OS + "r = os.getpid() > 0")
    assert answer["ok"] and answer["result"]["r"] is True


def test_every_wall_holds_on_this_machine():
    with CodeRunner() as runner:
        held = runner.contained(network=False)
    assert held["pdeathsig"] and held["netns"] and held["seccomp"] and held["landlock"] >= 1 and held["scratch_tmpfs"]
    assert {"CPU", "AS", "FSIZE", "NOFILE"} <= set(held["rlimits"])


def test_nothing_of_the_parents_environment_is_readable(worker, monkeypatch):
    monkeypatch.setenv("WFLINT_TEST_CI_TOKEN", "s3cret-token")
    answer = call(worker(), OS + "e = dict(os.environ)")
    assert "s3cret-token" not in json.dumps(answer)
    assert set(answer["result"]["e"]) == {"PYTHONHASHSEED", "PYTHONIOENCODING", "PYTHONDONTWRITEBYTECODE", "HOME",
                                          "TMPDIR", "LANG"}


def test_files_outside_the_scratch_directory_can_be_neither_read_nor_written(worker, tmp_path):
    secret = tmp_path / "expectations.yaml"
    secret.write_text("token: s3cret\n")
    w = worker()
    read = call(w, OS + f"r = os.open({str(secret)!r}, os.O_RDONLY)")
    assert read["kind"] == "error" and read["type"] == "PermissionError"
    write = call(w, OS + f"r = os.open({str(tmp_path / 'pwned')!r}, os.O_WRONLY | os.O_CREAT)")
    assert write["type"] == "PermissionError" and not (tmp_path / "pwned").exists()
    package = Path(code_runner.__file__).parent / "pwned.py"
    into_package = call(w, OS + f"r = os.open({str(package)!r}, os.O_WRONLY | os.O_CREAT)")
    assert into_package["type"] == "PermissionError" and not package.exists()
    scratch = call(w, OS + "fd = os.open('note.txt', os.O_WRONLY | os.O_CREAT)\nn = os.write(fd, b'ok')\nd = os.getcwd()")
    assert scratch["ok"] and scratch["result"]["n"] == 2
    where = Path(scratch["result"]["d"])
    assert where.is_dir() and where != Path.cwd()
    w.close()
    assert not where.exists()  # the scratch directory goes with its worker


def _udp_listener():
    listener = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    listener.bind(("127.0.0.1", 0))
    listener.settimeout(1.0)
    return listener


def _received(listener) -> bytes | None:
    try:
        return listener.recv(100)
    except (TimeoutError, socket.timeout):
        return None


def _send_code(port: int, tcp_port: int) -> str:
    return OS + textwrap.dedent(f"""\
        socket = os.sys.modules['socket']
        out = []
        for attempt in ('udp', 'tcp', 'raw'):
            try:
                if attempt == 'udp':
                    s = socket._socket.socket(2, 2)
                    s.sendto(b'leak', ('127.0.0.1', {port}))
                elif attempt == 'tcp':
                    s = socket._socket.socket(2, 1)
                    s.connect(('127.0.0.1', {tcp_port}))
                else:
                    s = socket._socket.socket(2, 3, 17)
                out.append(attempt + ' sent')
            except OSError as exc:
                out.append(attempt + ' ' + exc.__class__.__name__)
        """)


def test_no_packet_leaves_with_the_network_off(worker):
    listener = _udp_listener()
    tcp = socket.create_server(("127.0.0.1", 0))
    tcp.settimeout(1.0)
    try:
        answer = call(worker(network=False), _send_code(listener.getsockname()[1], tcp.getsockname()[1]))
        assert answer["ok"], answer
        assert answer["result"]["out"] == ["udp PermissionError", "tcp PermissionError", "raw PermissionError"]
        assert _received(listener) is None
        with pytest.raises((TimeoutError, socket.timeout)):
            tcp.accept()
    finally:
        listener.close()
        tcp.close()


def test_with_the_network_on_the_same_packet_arrives(worker):
    """The listener above would have seen a packet: here one is let through."""
    listener = _udp_listener()
    try:
        code = OS + f"s = os.sys.modules['socket'].socket(2, 2)\nn = s.sendto(b'hello', ('127.0.0.1', {listener.getsockname()[1]}))"
        answer = call(worker(network=True), code)
        assert answer["ok"], answer
        assert _received(listener) == b"hello"
    finally:
        listener.close()


def test_processes_cannot_be_started_or_signalled(worker):
    w = worker()
    assert call(w, OS + "p = os.fork()")["type"] == "PermissionError"
    assert call(w, OS + "r = os.system('true')")["result"]["r"] != 0
    assert call(w, OS + "r = os.kill(os.getppid(), 0)")["type"] == "PermissionError"
    posix_spawn = call(w, OS + "r = os.posix_spawn('/bin/true', ['true'], {})")
    assert posix_spawn["ok"] is False


def test_nothing_outlives_a_sigkill_of_wflint(tmp_path):
    script = tmp_path / "parent.py"
    script.write_text(textwrap.dedent(f"""\
        import json, sys, time
        from wflint.engine.code_runner import CodeWorker
        w = CodeWorker(network=False, _unchecked_for_tests=True)
        answer = w.call({{"code": {OS!r} + "me = os.getpid()\\ntry:\\n    child = os.fork()\\nexcept OSError as exc:\\n    child = str(exc)",
                         "params": {{}}}}, 30)
        print(json.dumps(answer), flush=True)
        time.sleep(300)
        """))
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        answer = json.loads(parent.stdout.readline())
        worker_pid = answer["result"]["me"]
        assert "Operation not permitted" in str(answer["result"]["child"])
        assert _alive(worker_pid)
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        deadline = time.monotonic() + 10
        while _alive(worker_pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(worker_pid)
    finally:
        parent.kill()
        parent.wait()


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return state not in ("Z", "X")


def test_writing_to_fd_1_or_the_reply_pipe_cannot_forge_a_reply(worker):
    w = worker()
    forged = '{"ok": true, "result": {"forged": 1}}\\n'
    answer = call(w, OS + f"n = os.write(1, b'{forged}')")
    assert answer["ok"] and "forged" not in answer["result"]
    with pytest.raises(WorkerGone):  # a line without the request's token ends the worker
        call(w, OS + "for fd in range(3, 64):\n    try:\n        os.write(fd, b'{\"ok\": true, \"result\": {\"forged\": 1}}\\n')\n    except OSError:\n        pass\nr = 1")
    assert not w.alive()


def test_resources_are_bounded(worker):
    w = worker()
    assert call(w, "x = 'a' * (3 * 1024 * 1024 * 1024)")["type"] == "MemoryError"
    big = call(w, OS + "fd = os.open('big', os.O_WRONLY | os.O_CREAT)\ntry:\n    n = os.write(fd, b'x' * (32 * 1024 * 1024))\nexcept OSError as exc:\n    n = str(exc)")
    assert big["ok"] and big["result"]["n"] != 32 * 1024 * 1024
    fill = call(w, OS + "n = 0\ntry:\n    for i in range(100):\n        fd = os.open(str(i), os.O_WRONLY | os.O_CREAT)\n"
                       "        n += os.write(fd, b'x' * (8 * 1024 * 1024))\n        os.close(fd)\nexcept OSError as exc:\n    e = str(exc)")
    assert fill["ok"] and fill["result"]["n"] <= 64 * 1024 * 1024 and "No space left" in fill["result"]["e"]
    files = call(w, OS + "fds = []\ntry:\n    while True:\n        fds.append(os.open('.', os.O_RDONLY))\nexcept OSError as exc:\n    e = str(exc)\nn = len(fds)")
    assert files["result"]["n"] < 64 and "Too many open files" in files["result"]["e"]


def test_a_runaway_is_killed_with_its_group_and_the_next_execution_gets_a_new_worker():
    with CodeRunner() as runner:
        first = runner.run("r = 1", {}, network=False, time_limit=30)
        assert first["ok"]
        started = time.monotonic()
        assert runner.run("while True:\n    pass", {}, network=False, time_limit=1.0) == {"ok": False, "kind": "timeout"}
        assert time.monotonic() - started < 20
        assert runner.run("r = 2", {}, network=False, time_limit=30)["result"] == {"r": 2}


@pytest.mark.skipif(os.geteuid() != 0 or not Path("/usr/bin/setpriv").exists(), reason="needs root to become nobody")
def test_an_unprivileged_user_gets_the_same_walls(tmp_path):
    tmp_path.chmod(0o777)
    script = textwrap.dedent("""\
        import json
        from wflint.engine.code_runner import CodeRunner
        with CodeRunner() as runner:
            print(json.dumps(runner.contained(network=False)))
        """)
    done = subprocess.run(["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable,
                           "-c", script], capture_output=True, text=True, timeout=120, cwd=tmp_path,
                          env={**os.environ, "TMPDIR": str(tmp_path), "HOME": str(tmp_path)})
    if done.returncode != 0 and "Permission denied" in done.stderr:
        pytest.skip("the project is not readable by nobody here")
    assert done.returncode == 0, done.stderr
    held = json.loads(done.stdout)
    assert held["netns"] and held["seccomp"] and held["landlock"] >= 1 and "NPROC" in held["rlimits"]


def _confine_alone(layer: str, code: str) -> dict:
    """One wall alone, in a fresh process, then ``code`` (as if the others were missing)."""
    setup = {
        "seccomp": "held = c.lock({}, network=False)['seccomp']",
        "landlock": "held = c._landlock(os.getcwd(), [p for p in sys.path if os.path.isdir(p)], network=False)",
        "netns": "import tempfile; held = c._namespaces(tempfile.mkdtemp(), network=False)[0]",
    }[layer]
    script = "\n".join([
        "import json, os, socket, sys",
        "from wflint.engine import code_confine as c",
        setup,
        "out = {'held': held}",
        "try:",
        textwrap.indent(code, "    "),
        "except OSError as exc:",
        "    out['error'] = type(exc).__name__",
        "print(json.dumps(out))",
    ])
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("layer", ["seccomp", "landlock", "netns"])
def test_each_network_wall_holds_alone(layer):
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.5)
    try:
        port = listener.getsockname()[1]
        out = _confine_alone(layer, f"s = socket.create_connection(('127.0.0.1', {port}), timeout=2)\nout['connected'] = True")
        assert out["held"] and "connected" not in out and out["error"] in ("PermissionError", "OSError", "ConnectionRefusedError")
        with pytest.raises((TimeoutError, socket.timeout)):
            listener.accept()
    finally:
        listener.close()


def test_landlock_alone_keeps_files_out(tmp_path):
    secret = tmp_path / "secret"
    secret.write_text("x")
    out = _confine_alone("landlock", f"open({str(secret)!r}).read()\nout['read'] = True")
    assert out["held"] and out["error"] == "PermissionError"



def _count_workers(monkeypatch) -> list:
    """Every code worker started from now on, in order (the list fills as they start)."""
    started = []

    class Counting(CodeWorker):
        def __init__(self, **kw):
            super().__init__(**kw)
            started.append(self)

    monkeypatch.setattr(code_runner, "CodeWorker", Counting)
    return started

def test_each_mock_run_gets_a_worker_of_its_own(monkeypatch):
    started = _count_workers(monkeypatch)
    wf = {"title": "t", "workflow_definition": {"parameters": [], "blocks": [
        {"block_type": "code", "label": "a", "code": "x = 1"}, {"block_type": "code", "label": "b", "code": "y = 2"}]}}
    for _ in range(2):
        assert simulate(wf, {"name": "t"}, own_code_worker=True)["status"] == "completed"
    assert len(started) == 2  # one per run, shared by the run's blocks
    assert not any(w.alive() for w in started)  # stopped when the run ended


def test_in_the_mock_one_organizations_code_never_sees_anothers_run(monkeypatch):
    """The safe-runs finding: key A replaced ``json.loads`` in the long-lived worker and read key
    B's secret run parameter. Now each run has its own worker and each execution new shims."""
    from wflint.server.testing import make_client

    started = _count_workers(monkeypatch)
    client = make_client()
    steal = {"title": "steal", "workflow_definition": {"parameters": [], "blocks": [
        {"block_type": "code", "label": "plant", "code": "seen = []\njson.loads = lambda s: seen.append(s) or s\nr = 1"},
        {"block_type": "code", "label": "look", "code": "r = json.loads('[1]')"}]}}
    victim = {"title": "victim", "workflow_definition": {"parameters": [
        {"parameter_type": "workflow", "key": "token", "workflow_parameter_type": "string"}], "blocks": [
        {"block_type": "code", "label": "use", "code": "r = json.loads('{\"t\": \"' + token + '\"}')",
         "parameter_keys": ["token"]}]}}
    replies = {}
    for key, request, params in (("key-a", steal, {}), ("key-b", victim, {"token": "b-secret"}), ("key-a", steal, {})):
        headers = {"x-api-key": key}
        wpid = client.post("/v1/agents", json={"json_definition": request}, headers=headers).json()["workflow_permanent_id"]
        run_id = client.post("/v1/run/agents", json={"agent_id": wpid, "parameters": params}, headers=headers).json()["run_id"]
        assert client.app.state.wflint.run_worker.wait(run_id, 120)
        replies.setdefault(key, []).append(client.get(f"/v1/runs/{run_id}", headers=headers).json())
    assert replies["key-b"][0]["output"]["use_output"] == {"r": {"t": "b-secret"}}
    for reply in replies["key-a"]:
        assert "b-secret" not in json.dumps(reply)
        assert reply["output"]["look_output"] == {"r": [1]}  # the planted loads died with its execution
    assert len(started) == 3 and not any(w.alive() for w in started)
