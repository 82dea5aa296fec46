"""Runs code blocks in one long-lived, isolated child process (``code_worker.py``).

Starting Python costs tens of milliseconds; a run may execute a code block hundreds of times.
So one worker serves every execution, each in a fresh namespace, and is replaced only when it
dies or overruns the time limit (then it is killed: a runaway ``while True`` cannot hang a test
suite). The worker is started isolated (``-I -S``: no site-packages, no user environment).
"""

from __future__ import annotations

import atexit
import json
import os
import select
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

_WORKER = Path(__file__).with_name("code_worker.py")
#: wflint's own cut-off for one code block (the engine's is 300 s; the reported reason names the
#: engine's, since that is what a real run would say).
DEFAULT_TIME_LIMIT = 10.0
#: how long a new worker may take to say it is ready (a loaded machine is slow to start Python)
STARTUP_LIMIT = 60.0


class CodeRunner:
    def __init__(self) -> None:
        self._proc: subprocess.Popen[str] | None = None
        self._lock = threading.Lock()

    def _start(self) -> subprocess.Popen[str]:
        env = {"PATH": os.environ.get("PATH", ""), "PYTHONHASHSEED": "0"}
        proc = subprocess.Popen(
            [sys.executable, "-I", "-S", "-u", str(_WORKER)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True, env=env, cwd=str(_WORKER.parent),
        )
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], STARTUP_LIMIT)
        if not ready or not proc.stdout.readline():
            proc.kill()
            proc.wait()
            raise OSError("the code worker did not start")
        return proc

    def run(self, code: str, params: dict[str, Any], *, network: bool, time_limit: float) -> dict[str, Any]:
        """The worker's answer: ``{"ok": True, "result": …}`` or ``{"ok": False, "kind": …}``;
        ``kind`` is ``timeout`` when the limit passed (the worker is then replaced)."""
        request = json.dumps({"code": code, "params": params, "network": network}, default=_jsonable) + "\n"
        with self._lock:
            for _attempt in range(2):
                proc = self._proc
                sent = False
                try:
                    if proc is None or proc.poll() is not None:
                        proc = self._proc = self._start()
                    assert proc.stdin is not None and proc.stdout is not None
                    proc.stdin.write(request)
                    proc.stdin.flush()
                    sent = True
                    ready, _, _ = select.select([proc.stdout], [], [], time_limit)
                    if not ready:
                        self._kill()
                        return {"ok": False, "kind": "timeout"}
                    line = proc.stdout.readline()
                except (BrokenPipeError, OSError):
                    self._kill()
                    if sent:
                        break
                    continue  # the worker was gone before it had the code: a fresh one runs it
                if line:
                    return json.loads(line)
                # it died with the code in hand (e.g. memory): the code may have run, and may
                # have had effects, so it is not run a second time
                self._kill()
                break
            return {"ok": False, "kind": "error", "type": "RuntimeError", "message": "code worker crashed"}

    def _kill(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.wait()
            self._proc = None

    def close(self) -> None:
        with self._lock:
            self._kill()


def _jsonable(value: Any) -> Any:
    return str(value)


_SHARED: CodeRunner | None = None


def shared_runner() -> CodeRunner:
    global _SHARED
    if _SHARED is None:
        _SHARED = CodeRunner()
        atexit.register(_SHARED.close)
    return _SHARED
