"""How long `wflint lsp` takes to catch up with a burst of edits to a very large document.

Starts the real server (``python -m wflint lsp``) over stdio, opens a YAML document of
``--megabytes`` (a workflow followed by a long comment-free list, far over the editor's
checking limit), then sends ``--edits`` incremental changes at once (one character typed at the
end of the first line each, as a fast typist or an editor replaying edits does) and measures
the time from the first change to the diagnostics of the last version. The same run measures
the floor: the time to the diagnostics of one change after a pause, so the ratio holds on a
busy machine.

    python bench/lsp_big_edits.py                      # 21 MB, 100 edits; needs the lsp extra
    python bench/lsp_big_edits.py --megabytes 5 --edits 50
    python bench/lsp_big_edits.py --before /tmp/old/src --rounds 2   # another tree, in alternation

``--before SRC`` runs the server of another tree (``PYTHONPATH=SRC``) in alternation with this
one, ``--rounds`` times each, and prints the ratio of the two in the same run.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient

HERE = Path(__file__).resolve().parent


def document(megabytes: float) -> str:
    head = "title: big\nworkflow_definition:\n  parameters: []\n  blocks:\n"
    line = "    - {block_type: wait, label: w%07d, wait_sec: 1}\n"
    out, size, i = [head], len(head), 0
    while size < megabytes * 1_000_000:
        row = line % i
        out.append(row)
        size += len(row)
        i += 1
    return "".join(out)


async def measure(text: str, edits: int, src: str | None = None) -> tuple[float, float]:
    client = LanguageClient("wflint-bench", "1")
    arrived: dict[int, float] = {}

    @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def published(params: lsp.PublishDiagnosticsParams) -> None:
        if params.version is not None:
            arrived[params.version] = time.perf_counter()

    env = {**os.environ, "PYTHONPATH": src} if src else None
    await client.start_io(sys.executable, "-m", "wflint", "lsp", env=env)
    await client.initialize_async(lsp.InitializeParams(capabilities=lsp.ClientCapabilities(), process_id=None))
    client.initialized(lsp.InitializedParams())
    uri = (HERE / "lsp-big.yaml").as_uri()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        text_document=lsp.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=text)))
    await _wait(arrived, 1)
    end_of_title = len("title: big")

    def change(version: int) -> None:
        col = end_of_title + version - 2
        client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[lsp.TextDocumentContentChangePartial(
                range=lsp.Range(start=lsp.Position(line=0, character=col), end=lsp.Position(line=0, character=col)),
                text="x")]))

    change(2)  # the server imports pygls after the first file's diagnostics: a first change waits for it
    await _wait(arrived, 2)
    await asyncio.sleep(0.5)
    sent = time.perf_counter()
    change(3)  # one change after a pause: the floor
    await _wait(arrived, 3)
    single = arrived[3] - sent
    await asyncio.sleep(0.5)
    sent = time.perf_counter()
    last = 3 + edits
    for version in range(4, last + 1):
        change(version)
    await _wait(arrived, last)
    burst = arrived[last] - sent
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return single, burst


async def _wait(arrived: dict[int, float], version: int, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while version not in arrived:
        if time.monotonic() > deadline:
            raise SystemExit(f"no diagnostics for version {version} within {timeout} s")
        await asyncio.sleep(0.002)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--megabytes", type=float, default=21)
    parser.add_argument("--edits", type=int, default=100)
    parser.add_argument("--before", metavar="SRC", default=None, help="another tree's src/, measured in alternation")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args(argv)
    text = document(args.megabytes)
    trees = [("this tree", None)] + ([("before", args.before)] if args.before else [])
    results: dict[str, list[tuple[float, float]]] = {name: [] for name, _ in trees}
    for _ in range(args.rounds):
        for name, src in trees:
            results[name].append(asyncio.run(measure(text, args.edits, src)))
    print(f"{len(text) / 1e6:.1f} MB document, {args.edits} changes at once, {args.rounds} round(s); "
          f"load average {os.getloadavg()[0]:.1f}")
    medians = {}
    for name, runs in results.items():
        single, burst = statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)
        medians[name] = burst
        print(f"  {name}: one change -> diagnostics {single * 1000:.0f} ms; the burst -> the last change's "
              f"diagnostics {burst * 1000:.0f} ms ({burst / single:.1f}x one change)")
    if args.before:
        print(f"  the burst, this tree over before: {medians['this tree'] / medians['before']:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
