"""Runs code blocks in a contained child process (``code_worker.py``), one per owner.

Starting Python costs tens of milliseconds and a run may execute a code block hundreds of times,
so a worker serves many executions, each in a namespace built afresh. Who shares a worker is the
caller's choice: ``wflint simulate`` / ``wflint test`` use one per process and network mode
(``shared_runner``: the same person's workflows), the mock one per run (``fresh_runner``), so no
organization's run ever executes in a process another's code touched. At most
``MAX_LIVE_WORKERS`` workers live at once.

The worker is started with what it needs and nothing of wflint's: an environment of its own
(``PYTHONHASHSEED=0`` and nothing inherited: no token of a CI job reaches it), an empty scratch
directory as its working and temporary directory (removed when it stops), no site-packages
(``-s -S -P``; not ``-I``, which ignores ``PYTHONHASHSEED``), its own session (so it and anything
it could start are killed as one group), and a private pipe on descriptors it is told about
(0, 1 and 2 are ``/dev/null``). Every request carries a random token the reply must echo. The
worker confines itself before it reads code (``code_confine``) and reports which walls held
(:attr:`CodeWorker.contained`). A worker that overruns the time limit is killed with its group,
and the next execution gets a new one.
"""

from __future__ import annotations

import atexit
import json
import os
import secrets
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

_WORKER = Path(__file__).with_name("code_worker.py")
#: wflint's own cut-off for one code block (the engine's is 300 s; the reported reason names the
#: engine's, since that is what a real run would say).
DEFAULT_TIME_LIMIT = 10.0
#: how long a new worker may take to say it is ready (a loaded machine is slow to start Python)
STARTUP_LIMIT = 60.0
#: code workers alive at once in this process (the mock runs at most 4 runs at a time)
MAX_LIVE_WORKERS = 8
#: the largest reply read from a worker (a stored output is capped at 100 MB; JSON escapes add)
MAX_REPLY_BYTES = 512 * 1024 * 1024

_LIVE = threading.BoundedSemaphore(MAX_LIVE_WORKERS)
CRASHED = {"ok": False, "kind": "error", "type": "RuntimeError", "message": "code worker crashed"}


class WorkerGone(Exception):
    """The worker died, overran its time, or answered out of protocol; it has been killed."""

    def __init__(self, why: str, *, timed_out: bool = False) -> None:
        super().__init__(why)
        self.timed_out = timed_out


class CodeWorker:
    """One live worker process."""

    def __init__(self, *, network: bool, _unchecked_for_tests: bool = False) -> None:
        if not _LIVE.acquire(timeout=STARTUP_LIMIT):
            raise OSError(f"more than {MAX_LIVE_WORKERS} code workers are busy")
        self._scratch = tempfile.mkdtemp(prefix="wflint-code-")
        self._buffer = bytearray()
        self.contained: dict[str, Any] = {}
        self._proc: subprocess.Popen[bytes] | None = None
        request_read, self._requests = os.pipe()
        self._replies, reply_write = os.pipe()
        try:
            env = {"PYTHONHASHSEED": "0", "PYTHONIOENCODING": "utf-8", "PYTHONDONTWRITEBYTECODE": "1",
                   "HOME": self._scratch, "TMPDIR": self._scratch, "LANG": "C.UTF-8"}
            self._proc = subprocess.Popen(
                [sys.executable, "-s", "-S", "-P", "-u", str(_WORKER), str(request_read), str(reply_write),
                 str(os.getpid()), "network" if network else "offline",
                 *(["unchecked-for-tests"] if _unchecked_for_tests else [])],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                pass_fds=(request_read, reply_write), env=env, cwd=self._scratch, start_new_session=True,
            )
        except BaseException:
            os.close(self._requests)
            os.close(self._replies)
            self._cleanup()
            raise
        finally:
            os.close(request_read)
            os.close(reply_write)
        try:
            ready = self._read_line(time.monotonic() + STARTUP_LIMIT)
            self.contained = json.loads(ready).get("contained") or {}
        except (WorkerGone, ValueError, AttributeError):
            self.close()
            raise OSError("the code worker did not start") from None

    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def call(self, request: dict[str, Any], time_limit: float) -> dict[str, Any]:
        """The worker's answer to ``request``; raises :class:`WorkerGone` (the worker is then
        killed) when it overran ``time_limit``, died, or answered without the request's token."""
        token = secrets.token_hex(16)
        line = json.dumps({**request, "id": token}, default=str) + "\n"
        try:
            _write_all(self._requests, line.encode("utf-8"))
            answer = json.loads(self._read_line(time.monotonic() + time_limit))
        except (OSError, ValueError) as exc:
            self.close()
            raise WorkerGone(str(exc)) from None
        except WorkerGone:
            self.close()
            raise
        if not isinstance(answer, dict) or answer.get("id") != token:
            self.close()
            raise WorkerGone("the worker answered out of protocol")
        answer.pop("id", None)
        if "result_json" in answer:
            answer["result"] = json.loads(answer.pop("result_json"))
        return answer

    def _read_line(self, deadline: float) -> str:
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self._replies], [], [], max(left, 0))
            if not ready:
                raise WorkerGone("timeout", timed_out=True)
            chunk = os.read(self._replies, 1 << 20)
            if not chunk:
                raise WorkerGone("the worker closed its pipe")
            self._buffer += chunk
            if len(self._buffer) > MAX_REPLY_BYTES:
                raise WorkerGone("the worker's reply is too large")
        line, _, rest = self._buffer.partition(b"\n")
        self._buffer = bytearray(rest)
        return line.decode("utf-8")

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the worker and anything it started in its session
        except (ProcessLookupError, PermissionError):
            pass
        proc.kill()
        proc.wait()
        for fd in (self._requests, self._replies):
            try:
                os.close(fd)
            except OSError:
                pass
        self._cleanup()

    def _cleanup(self) -> None:
        shutil.rmtree(self._scratch, ignore_errors=True)
        _LIVE.release()


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


class CodeRunner:
    """Code execution for one owner: a worker per network mode, started when first needed and
    replaced when it dies or overruns."""

    def __init__(self) -> None:
        self._workers: dict[bool, CodeWorker] = {}
        self._lock = threading.Lock()

    def run(self, code: str, params: dict[str, Any], *, network: bool, time_limit: float) -> dict[str, Any]:
        """The worker's answer: ``{"ok": True, "result": …}`` or ``{"ok": False, "kind": …}``;
        ``kind`` is ``timeout`` when the limit passed (the worker is then replaced). A request is
        sent once: a worker that dies while running it is reported, not asked again."""
        with self._lock:
            worker = self._workers.get(network)
            if worker is None or not worker.alive():
                try:
                    worker = self._workers[network] = CodeWorker(network=network)
                except OSError as exc:
                    return {**CRASHED, "message": str(exc)}
            try:
                return worker.call({"code": code, "params": params}, time_limit)
            except WorkerGone as gone:
                self._workers.pop(network, None)
                return {"ok": False, "kind": "timeout"} if gone.timed_out else dict(CRASHED)

    def contained(self, *, network: bool) -> dict[str, Any]:
        """Which walls the worker for ``network`` reports (starting it if need be)."""
        with self._lock:
            worker = self._workers.get(network)
            if worker is None or not worker.alive():
                worker = self._workers[network] = CodeWorker(network=network)
            return dict(worker.contained)

    def close(self) -> None:
        with self._lock:
            for worker in self._workers.values():
                worker.close()
            self._workers.clear()

    def __enter__(self) -> "CodeRunner":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_SHARED: CodeRunner | None = None


def shared_runner() -> CodeRunner:
    """The process's runner for ``simulate`` / ``test`` (one person's workflows)."""
    global _SHARED
    if _SHARED is None:
        _SHARED = CodeRunner()
        atexit.register(_SHARED.close)
    return _SHARED
