"""How long an editor waits for the first diagnostics when it starts ``wflint lsp`` as it
opens a workflow, next to the floor every pygls server pays: a fresh Python importing pygls
and lsprotocol. Both are measured in the same run, interleaved, so the ratio holds on a busy
machine.

    python bench/lsp_startup.py [--repeat 10] [--file fixtures/valid/nightly_order_status_sync.yaml]

The client is a few lines of raw JSON-RPC over the server's stdin and stdout (no pygls on the
client's side): it writes ``initialize``, ``initialized``, ``textDocument/didOpen`` and a
``textDocument/documentSymbol`` request at once, as an editor does, and stops the clock when
``textDocument/publishDiagnostics`` for the opened file arrives. The server publishes those
before it imports pygls (``wflint.lsp.opening``); the answer to the request waits for pygls,
and its time is printed too, so the cost that moved is in view. The floor's clock runs from the spawn of
``python -c "import pygls.lsp.server, lsprotocol.types"`` to its exit.

Wall time on a shared machine also counts the time other users held the cores, so the CPU
time of each (user + system: the floor's from ``wait4``, the server's from ``/proc`` when
the diagnostics arrive) is printed next to it, and is the steadier ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import guard  # noqa: E402  (the bounds the ratios are held to)

FLOOR = "import pygls.lsp.server, lsprotocol.types"
#: the children run as an installed wflint does: with bytecode caches
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def frame(message: dict) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def read_message(stream) -> dict | None:
    length = None
    while True:
        line = stream.readline()
        if not line:
            return None
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode("ascii").partition(":")
        if name.strip().lower() == "content-length":
            length = int(value)
    return json.loads(stream.read(length))


def cpu_of(pid: int) -> float:
    """CPU seconds (user + system, all threads) a running process has used (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def first_diagnostics(path: Path, python: str = sys.executable) -> tuple[float, float, list[str], float]:
    """Seconds from spawning ``wflint lsp`` to the first diagnostics of ``path``, the CPU
    seconds the server had used by then, the diagnostics' codes, and the seconds to the answer
    of the first request."""
    uri = path.resolve().as_uri()
    opening = b"".join(frame(m) for m in (
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"processId": None, "rootUri": None, "capabilities": {}}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri, "languageId": "yaml", "version": 1, "text": path.read_text(encoding="utf-8")}}},
        {"jsonrpc": "2.0", "id": 2, "method": "textDocument/documentSymbol", "params": {"textDocument": {"uri": uri}}},
    ))
    t0 = time.perf_counter()
    proc = subprocess.Popen([python, "-m", "wflint", "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=ENV)
    try:
        proc.stdin.write(opening)
        proc.stdin.flush()
        first = None
        while True:
            message = read_message(proc.stdout)
            if message is None:
                raise SystemExit("wflint lsp exited before publishing diagnostics and answering")
            if first is None and message.get("method") == "textDocument/publishDiagnostics" \
                    and message["params"]["uri"] == uri:
                elapsed = time.perf_counter() - t0
                first = elapsed, cpu_of(proc.pid), sorted(str(d.get("code")) for d in message["params"]["diagnostics"])
            if message.get("id") == 2 and "method" not in message:
                answered = time.perf_counter() - t0
                if first is not None:
                    return (*first, answered)
    finally:
        proc.kill()
        proc.wait()


def floor(python: str = sys.executable) -> tuple[float, float]:
    """Wall and CPU seconds of a fresh Python importing pygls and lsprotocol."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([python, "-c", FLOOR], env=ENV)
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit("the floor's imports failed: is the lsp extra installed?")
    return time.perf_counter() - t0, usage.ru_utime + usage.ru_stime


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--file", type=Path, default=ROOT / "fixtures" / "valid" / "nightly_order_status_sync.yaml")
    args = ap.parse_args(argv)
    floors, firsts, floor_cpus, first_cpus, codes, answers = [], [], [], [], [], []
    for _ in range(args.repeat):
        wall, cpu = floor()
        floors.append(wall)
        floor_cpus.append(cpu)
        wall, cpu, codes, answered = first_diagnostics(args.file)
        answers.append(answered)
        firsts.append(wall)
        first_cpus.append(cpu)
    f, d = statistics.median(floors), statistics.median(firsts)
    fc, dc = statistics.median(floor_cpus), statistics.median(first_cpus)
    print(f"{args.file.name}: first diagnostics {codes or 'none'}; {args.repeat} runs each, interleaved; "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"floor (python -c {FLOOR!r}): median {f * 1000:.0f} ms wall (min {min(floors) * 1000:.0f}), "
          f"{fc * 1000:.0f} ms CPU")
    print(f"wflint lsp, spawn to first diagnostics: median {d * 1000:.0f} ms wall (min {min(firsts) * 1000:.0f}), "
          f"{dc * 1000:.0f} ms CPU; {d / f:.2f}x the floor's wall (medians), {min(firsts) / min(floors):.2f}x (minima), "
          f"{dc / fc:.2f}x its CPU")
    a = statistics.median(answers)
    print(f"wflint lsp, spawn to the answer of the first request (after pygls is imported): median {a * 1000:.0f} ms "
          f"wall; {a / f:.2f}x the floor's wall")
    lines, ok = guard.judge({"editor": d / f})  # bench/guard.py: the editor stays within 1.25x
    print("\n".join(lines))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
