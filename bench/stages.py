"""The check's stages side by side in one process: CPU time over a folder of workflows.

    python bench/stages.py [FOLDER] [--rounds 3]

Reads every file into memory, checks one to load the rules, then measures, interleaved for
``--rounds`` rounds, the CPU time (``time.process_time``) of libyaml's C composer over the
bytes (the floor), of wflint's positioned parse (``document.parse.parse``) and of the whole
check (``api.check_bytes``), and prints each stage's best round and its ratio to the floor's
best round, as one JSON object. No start-up, no worker processes: what the stages cost. The
per-string caches are emptied before each round of the check, so no round reuses another's.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import yaml

from wflint import api
from wflint.project.config import Config
from wflint.document.parse import parse
from wflint.document.source import decode

HERE = Path(__file__).resolve().parent


def _forget() -> None:
    """Empty wflint's per-string caches (Jinja analyses, parsed code ...)."""
    for name, module in list(sys.modules.items()):
        if name.startswith("wflint.") and module is not None:
            for value in list(vars(module).values()):
                if callable(getattr(value, "cache_clear", None)) and hasattr(value, "cache_info"):
                    value.cache_clear()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", nargs="?", type=Path, default=HERE / "corpus")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    files = sorted(p for p in args.folder.iterdir() if p.suffix in (".yaml", ".yml", ".json"))
    data = [(p.read_bytes(), str(p)) for p in files]
    sources = [decode(d, p)[0] for d, p in data]
    config = Config()
    api.check_bytes(*data[0], config)

    def floor() -> None:
        for d, _ in data:
            yaml.compose(d, Loader=yaml.CSafeLoader)

    def positioned() -> None:
        for s in sources:
            parse(s, None, config.limits)

    def check() -> None:
        _forget()  # each round starts as a fresh run does: no template seen yet
        for d, p in data:
            api.check_bytes(d, p, config)

    best: dict[str, float] = {}
    for _ in range(args.rounds):
        for name, stage in (("floor", floor), ("parse", positioned), ("check", check)):
            t0 = time.process_time()
            stage()
            took = time.process_time() - t0
            best[name] = min(best.get(name, took), took)
    print(json.dumps({"files": len(files), **{k: round(v, 4) for k, v in best.items()},
                      "parse_ratio": round(best["parse"] / best["floor"], 2),
                      "check_ratio": round(best["check"] / best["floor"], 2)}))


if __name__ == "__main__":
    main()
