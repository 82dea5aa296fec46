"""Write a corpus of realistic workflow files for the benchmark (``bench/run.py``).

Every file is derived from one of the service-valid fixtures in ``fixtures/valid``:

* the blocks are copied 1..k times so that the workflow has between 3 and 60 blocks (nested
  blocks included); copies get their own labels (``extract_prices_2`` ...), every reference is
  renamed with them (``next_block_label``, branch targets, ``finally_block_label``,
  ``{{ label_output }}``, ``parameter_keys``, loop sources, context sources, code), v2 copies are
  chained one after the other, and a finally block is kept once, at the end;
* labels may get a region suffix (``_eu``, ``_us`` ...) so that files differ;
* the file is written in one of five forms: bare YAML (``yaml_definition``), bare JSON
  (``json_definition``), ``{"json_definition": {...}}``, ``{"yaml_definition": "..."}`` and a
  YAML update body whose ``yaml_definition`` is a block scalar;
* about 10% of the files get one known mistake the service rejects at save time. They are
  listed in ``manifest.tsv`` (file, base fixture, blocks, form, mistake or ``-``).

The output is deterministic for a given ``--seed``. ``bench/corpus/`` is git-ignored.

    PYTHONPATH=src python bench/make_corpus.py            # 1000 files into bench/corpus
    PYTHONPATH=src python bench/make_corpus.py -n 200 --out /tmp/corpus --seed 7
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import re
import shutil
import sys
from pathlib import Path
from typing import Any, Callable

import yaml

ROOT = Path(__file__).resolve().parents[1]
VALID = ROOT / "fixtures" / "valid"
DEFAULT_OUT = ROOT / "bench" / "corpus"
MIN_BLOCKS, MAX_BLOCKS = 3, 60
MISTAKE_RATE = 0.10
REGIONS = ("eu", "us", "uk", "apac", "nordics", "latam")
#: (form, weight): how the file reaches the service
FORMS = (("yaml", 45), ("json", 35), ("json_envelope", 8), ("yaml_in_json", 7), ("yaml_body", 5))

_TIMESTAMP = "tag:yaml.org,2002:timestamp"


# ------------------------------------------------------------------------------ loading


def _loader() -> type:
    """YAML 1.1 as the service reads it: safe, no timestamps (reference §8.1)."""
    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    cls = type("CorpusLoader", (base,), {})
    cls.yaml_implicit_resolvers = {
        k: [(tag, rx) for tag, rx in v if tag != _TIMESTAMP] for k, v in base.yaml_implicit_resolvers.items()
    }
    return cls


LOADER = _loader()


def load_request(path: Path) -> dict[str, Any]:
    """The bare create/update request a fixture holds, whatever its form."""
    text = path.read_text(encoding="utf-8")
    data = json.loads(text) if path.suffix == ".json" else yaml.load(text, Loader=LOADER)  # noqa: S506
    if isinstance(data.get("yaml_definition"), str) and data["yaml_definition"]:
        return yaml.load(data["yaml_definition"], Loader=LOADER)  # noqa: S506
    if isinstance(data.get("json_definition"), dict):
        return data["json_definition"]
    return data


def bases() -> list[tuple[str, dict[str, Any]]]:
    out = [(p.name, load_request(p)) for p in sorted(VALID.iterdir()) if p.suffix in (".json", ".yaml")]
    if not out:
        sys.exit(f"no fixtures found in {VALID}")
    return out


# ------------------------------------------------------------------------------ structure helpers


def walk_blocks(blocks: list[dict[str, Any]]):
    for b in blocks:
        yield b
        yield from walk_blocks(b.get("loop_blocks") or [])


def count_blocks(blocks: list[dict[str, Any]]) -> int:
    return sum(1 for _ in walk_blocks(blocks))


def rename(value: Any, mapping: dict[str, str]) -> Any:
    """Rename labels in every string of ``value``: whole identifiers ``label`` and
    ``label_output`` (templates, references, parameter_keys, Python code alike). Dictionary keys
    are left alone (error codes, headers, column names)."""
    if not mapping:
        return value
    pattern = re.compile(r"(?<![A-Za-z0-9_])(" + "|".join(map(re.escape, sorted(mapping, key=len, reverse=True)))
                         + r")(_output)?(?![A-Za-z0-9_])")

    def fix(text: str) -> str:
        return pattern.sub(lambda m: mapping[m.group(1)] + (m.group(2) or ""), text)

    def go(v: Any) -> Any:
        if isinstance(v, str):
            return fix(v)
        if isinstance(v, list):
            return [go(x) for x in v]
        if isinstance(v, dict):
            return {k: go(x) for k, x in v.items()}
        return v

    return go(value)


def is_v2(definition: dict[str, Any]) -> bool:
    version = definition.get("version")
    if isinstance(version, int) and version >= 2:
        return True
    return any(b.get("block_type") == "conditional" or b.get("next_block_label") for b in definition["blocks"])


def grow(request: dict[str, Any], copies: int, suffix: str | None) -> dict[str, Any]:
    """The request with its top-level blocks repeated ``copies`` times under fresh labels."""
    req = copy.deepcopy(request)
    wd = req["workflow_definition"]
    finally_label = wd.get("finally_block_label")
    labels = [b["label"] for b in walk_blocks(wd["blocks"])]
    v2 = is_v2(wd)

    def label_map(i: int) -> dict[str, str]:
        parts = [suffix] if suffix else []
        if copies > 1:
            parts.append(str(i + 1))
        return {lbl: "_".join([lbl, *parts]) for lbl in labels} if parts else {}

    maps = [label_map(i) for i in range(copies)]
    body = [b for b in wd["blocks"] if b["label"] != finally_label]
    final = [b for b in wd["blocks"] if b["label"] == finally_label]
    new_blocks: list[dict[str, Any]] = []
    previous_tail: dict[str, Any] | None = None
    for i, mapping in enumerate(maps):
        chunk = rename(copy.deepcopy(body), mapping)
        if v2 and previous_tail is not None and chunk:
            previous_tail["next_block_label"] = chunk[0]["label"]
        previous_tail = chunk[-1] if chunk else previous_tail
        new_blocks.extend(chunk)
    if final:
        new_blocks.extend(rename(copy.deepcopy(final), maps[-1]))
        wd["finally_block_label"] = rename(finally_label, maps[-1])
    wd["blocks"] = new_blocks
    # parameters are shared by every copy; context sources point at the first copy's blocks
    wd["parameters"] = rename(wd["parameters"], maps[0])
    if copies > 1:
        req["title"] = f"{req.get('title', 'Workflow')} (x{copies})"
    return req


# ------------------------------------------------------------------------------ known mistakes


def _params(req):
    return req["workflow_definition"]["parameters"]


def m_output_parameter(req, rng):
    _params(req).append({"parameter_type": "output", "key": "previous_run_output_copy",
                         "description": "Result of the previous run"})


def m_reserved_key(req, rng):
    _params(req).append({"parameter_type": "workflow", "key": "current_date", "workflow_parameter_type": "string",
                         "description": "Business date of the run"})


def m_bad_integer_default(req, rng):
    _params(req).append({"parameter_type": "workflow", "key": "max_pages", "workflow_parameter_type": "integer",
                         "default_value": rng.choice(["ten", "1,000", "2.5"]), "description": "Page limit"})


def m_context_unknown_source(req, rng):
    _params(req).append({"parameter_type": "context", "key": "account_number",
                         "source_parameter_key": "read_account_details_output", "description": "Account number"})


def m_duplicate_key(req, rng):
    ps = _params(req)
    dup = copy.deepcopy(next((p for p in ps if p["parameter_type"] == "workflow"), ps[0]))
    dup["description"] = "Copied by mistake"
    ps.append(dup)


def m_unknown_finally(req, rng):
    req["workflow_definition"]["finally_block_label"] = "cleanup_session"


def m_wait_zero(req, rng):
    waits = [b for b in walk_blocks(req["workflow_definition"]["blocks"]) if b.get("block_type") == "wait"]
    if waits:
        rng.choice(waits)["wait_sec"] = 0
    else:  # fall back to another save-time mistake
        req["webhook_callback_url"] = "ftp://files.acme-logistics.com/hooks/skyvern"


def m_undefined_parameter_key(req, rng):
    with_keys = [b for b in walk_blocks(req["workflow_definition"]["blocks"]) if isinstance(b.get("parameter_keys"), list)]
    if with_keys:
        rng.choice(with_keys)["parameter_keys"].append("customer_refrence")
    else:
        m_unknown_finally(req, rng)


MISTAKES: dict[str, Callable[[dict[str, Any], random.Random], None]] = {
    "output-parameter": m_output_parameter,
    "reserved-key": m_reserved_key,
    "bad-integer-default": m_bad_integer_default,
    "context-unknown-source": m_context_unknown_source,
    "duplicate-parameter-key": m_duplicate_key,
    "unknown-finally-block": m_unknown_finally,
    "wait-zero": m_wait_zero,
    "undefined-parameter-key": m_undefined_parameter_key,
}


# ------------------------------------------------------------------------------ writing


class _Dumper(yaml.SafeDumper):
    """Block style, key order kept, multi-line strings as literal blocks."""


def _str(dumper: yaml.SafeDumper, value: str):
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def to_yaml(data: Any) -> str:
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100, default_flow_style=False)


def render(req: dict[str, Any], form: str, base: str) -> tuple[str, str]:
    """(file suffix, text)."""
    header = f"# Generated by bench/make_corpus.py from fixtures/valid/{base}\n"
    if form == "yaml":
        return ".yaml", header + to_yaml(req)
    if form == "json":
        return ".json", json.dumps(req, indent=2, ensure_ascii=False) + "\n"
    if form == "json_envelope":
        return ".json", json.dumps({"json_definition": req}, indent=2, ensure_ascii=False) + "\n"
    if form == "yaml_in_json":
        return ".json", json.dumps({"yaml_definition": to_yaml(req)}, indent=2, ensure_ascii=False) + "\n"
    if form == "yaml_body":
        inner = to_yaml(req).rstrip("\n").replace("\n", "\n  ")
        return ".yaml", header + "yaml_definition: |\n  " + inner + "\n"
    raise ValueError(form)


def make(n: int, out: Path, seed: int) -> list[tuple[str, str, int, str, str]]:
    rng = random.Random(seed)
    sources = bases()
    forms, weights = zip(*FORMS)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    mistakes_left = round(n * MISTAKE_RATE)
    rows = []
    for i in range(n):
        base, request = sources[i % len(sources)] if i < len(sources) else rng.choice(sources)
        size = count_blocks(request["workflow_definition"]["blocks"])
        target = rng.randint(MIN_BLOCKS, MAX_BLOCKS)
        copies = max(1, min(target // max(size, 1), MAX_BLOCKS // max(size, 1)))
        suffix = rng.choice(REGIONS) if rng.random() < 0.5 else None
        req = grow(request, copies, suffix)
        mistake = "-"
        # spread the mistakes evenly: each remaining file has the same chance
        if mistakes_left and rng.random() < mistakes_left / (n - i):
            mistake = rng.choice(sorted(MISTAKES))
            MISTAKES[mistake](req, rng)
            mistakes_left -= 1
        form = rng.choices(forms, weights)[0]
        suffix_ext, text = render(req, form, base)
        name = f"wf_{i:04d}_{Path(base).stem}{suffix_ext}"
        (out / name).write_text(text, encoding="utf-8")
        rows.append((name, base, count_blocks(req["workflow_definition"]["blocks"]), form, mistake))
    with (out / "manifest.tsv").open("w", encoding="utf-8") as f:
        f.write("file\tbase\tblocks\tform\tmistake\n")
        for row in rows:
            f.write("\t".join(map(str, row)) + "\n")
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", "--files", type=int, default=1000, help="number of files (default 1000)")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"output directory (default {DEFAULT_OUT.relative_to(ROOT)})")
    ap.add_argument("--seed", type=int, default=20261122)
    args = ap.parse_args(argv)
    rows = make(args.files, args.out, args.seed)
    sizes = [r[2] for r in rows]
    injected = sum(1 for r in rows if r[4] != "-")
    by_form: dict[str, int] = {}
    for r in rows:
        by_form[r[3]] = by_form.get(r[3], 0) + 1
    print(f"wrote {len(rows)} files to {args.out}: blocks {min(sizes)}..{max(sizes)} (mean {sum(sizes) / len(sizes):.1f}), "
          f"{injected} with a known mistake; forms: " + ", ".join(f"{k} {v}" for k, v in sorted(by_form.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
