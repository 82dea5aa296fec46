"""How long `wflint lsp` takes to publish diagnostics after a change, on a 60-block workflow.

Starts the real server (``python -m wflint lsp``) over stdio, opens a workflow grown from
``fixtures/valid/nightly_order_status_sync.yaml`` to at least 60 blocks (as ``make_corpus.py``
grows them), then makes ``--edits`` changes one after the other, alternately breaking a
``next_block_label`` (WF202) and restoring it, and measures, for each, the time from sending
``textDocument/didChange`` to receiving the ``publishDiagnostics`` of that version. Each edit
waits for its diagnostics before the next is sent, so each comes after a pause, as a
keystroke does (bursts of changes less than 30 ms apart are debounced; see ``wflint.lsp.server``).

    python bench/lsp_latency.py              # needs the lsp extra: pip install -e '.[lsp]'
    python bench/lsp_latency.py --edits 100 --base fixtures/valid/freight_rate_quotes_v2.yaml
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import make_corpus  # noqa: E402

TARGET_BLOCKS = 60


def workflow(base: Path) -> tuple[str, int]:
    request = make_corpus.load_request(base)
    copies = 1
    while True:  # a finally block is kept once, so count the grown workflow itself
        grown = make_corpus.grow(request, copies, None)
        blocks = make_corpus.count_blocks(grown["workflow_definition"]["blocks"])
        if blocks >= TARGET_BLOCKS:
            return make_corpus.to_yaml(grown), blocks
        copies += 1


async def measure(text: str, edits: int) -> list[float]:
    client = LanguageClient("wflint-bench", "1")
    arrived: dict[int, float] = {}
    codes: dict[int, list[str]] = {}

    @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def published(params: lsp.PublishDiagnosticsParams) -> None:
        if params.version is not None:
            arrived[params.version] = time.perf_counter()
            codes[params.version] = sorted(str(d.code) for d in params.diagnostics)

    await client.start_io(sys.executable, "-m", "wflint", "lsp")
    await client.initialize_async(lsp.InitializeParams(capabilities=lsp.ClientCapabilities(), process_id=None))
    client.initialized(lsp.InitializedParams())
    uri = (HERE / "lsp-latency.yaml").as_uri()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        text_document=lsp.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=text)))
    await _wait(arrived, 1)
    if codes[1]:
        raise SystemExit(f"the grown workflow is not clean: {codes[1]}")
    anchor = text.index("next_block_label: ") + len("next_block_label: ")
    broken = text[:anchor] + "no_such_" + text[anchor:]
    times = []
    for i in range(edits):
        version = i + 2
        new_text = broken if i % 2 == 0 else text
        sent = time.perf_counter()
        client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=new_text)]))
        await _wait(arrived, version)
        times.append((arrived[version] - sent) * 1000)
        expected = ["WF202"] if i % 2 == 0 else []
        if codes[version] != expected:
            raise SystemExit(f"edit {i}: expected {expected}, got {codes[version]}")
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return times


async def _wait(arrived: dict[int, float], version: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while version not in arrived:
        if time.monotonic() > deadline:
            raise SystemExit(f"no diagnostics for version {version} within {timeout} s")
        await asyncio.sleep(0.001)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--edits", type=int, default=40)
    parser.add_argument("--base", type=Path, default=make_corpus.VALID / "nightly_order_status_sync.yaml")
    args = parser.parse_args(argv)
    text, blocks = workflow(args.base)
    times = asyncio.run(measure(text, args.edits))
    times.sort()
    p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
    print(f"{blocks} blocks, {len(text.splitlines())} lines, {len(text)} characters; {len(times)} edits")
    print(f"change → diagnostics: median {statistics.median(times):.0f} ms, p95 {p95:.0f} ms, "
          f"max {times[-1]:.0f} ms, min {times[0]:.0f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
