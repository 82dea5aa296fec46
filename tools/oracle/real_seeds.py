"""Real workflow definitions the project did not write, taken from the service's repository.

    python tools/oracle/real_seeds.py GIT_DIR [--out DIR]

``GIT_DIR`` is a clone (or bare mirror) of the service's source repository (github:
Skyvern-AI/skyvern). Its documentation, cookbooks, skills, prompts and tests hold hundreds
of definitions written by the service's own authors: fenced YAML/JSON blocks in Markdown,
YAML strings and dict literals in Python, whole YAML/JSON files. ``seeds`` finds every one
that is a whole document a person would send (a request, an update body, or one of the
forms wflint reports as refused: a flat layout, a definition under another key), and gives
each as a ``Case`` in the form it was written (YAML text as YAML, a dict literal as JSON).

Nothing is copied into this repository: the harness reads the clone each time, so the seeds
stay the service authors' and the figures can be reproduced against any revision.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate import Case  # noqa: E402

SUFFIXES = (".md", ".mdx", ".py", ".json", ".yaml", ".yml")
SKIPPED = ("node_modules/", "skyvern-frontend/", "skyvern-ts/", ".github/", "k8s/", "kubernetes-deployment/")
_FENCE = re.compile(r"^([ \t]*)```[ \t]*(yaml|yml|json|jsonc)?[^\n]*\n(.*?)^\1```", re.MULTILINE | re.DOTALL)
WORKFLOW_KEYS = ("workflow_definition", "json_definition", "yaml_definition")


def _git(git_dir: Path, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", str(git_dir), *args], capture_output=True, text=True,
                          check=True, errors="replace").stdout


def is_document(data: Any) -> bool:
    """A whole document someone would send: a request or update body, or a refused form of
    one (definition keys at the top beside a title, a request or definition under one key)."""
    if not isinstance(data, dict):
        return False
    keys = set(data)
    if keys & set(WORKFLOW_KEYS):
        return True
    if "blocks" in keys and ("title" in keys or "parameters" in keys):
        return True
    return any(isinstance(v, dict) and "workflow_definition" in v for v in data.values())


def _yaml_documents(text: str) -> Iterator[str]:
    try:
        data = yaml.safe_load(text)
    except (yaml.YAMLError, RecursionError, ValueError):
        return
    if is_document(data):
        yield text


def _json_documents(text: str) -> Iterator[str]:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return
    if is_document(data):
        yield text


def _from_markdown(text: str) -> Iterator[tuple[str, str]]:
    for match in _FENCE.finditer(text):
        indent, lang, body = match.group(1), (match.group(2) or "").lower(), match.group(3)
        if indent:
            body = "".join(line[len(indent):] if line.startswith(indent) else line
                           for line in body.splitlines(keepends=True))
        if "block_type" not in body:
            continue
        if lang.startswith("json") or (not lang and body.lstrip().startswith("{")):
            yield from (("json", t) for t in _json_documents(body))
        else:
            yield from (("yaml", t) for t in _yaml_documents(body))


def _from_python(text: str) -> Iterator[tuple[str, str]]:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return
    inside: set[int] = set()  # the nodes within a document already taken (its definition ...)
    for node in ast.walk(tree):  # breadth first: an outer literal comes before what it holds
        if id(node) in inside:
            continue
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and "block_type" in node.value:
            import textwrap

            body = textwrap.dedent(node.value).strip("\n") + "\n"
            if body.lstrip().startswith("{"):
                yield from (("json", t) for t in _json_documents(body))
            else:
                yield from (("yaml", t) for t in _yaml_documents(body))
        elif isinstance(node, ast.Dict) and any(
                isinstance(k, ast.Constant) and k.value in ("workflow_definition", "json_definition", "blocks")
                for k in node.keys):
            try:
                data = ast.literal_eval(node)
            except (ValueError, SyntaxError, TypeError, RecursionError, MemoryError):
                continue
            if is_document(data):
                inside.update(id(n) for n in ast.walk(node))
                try:
                    yield "json", json.dumps(data, indent=2, ensure_ascii=False) + "\n"
                except (TypeError, ValueError):
                    continue


def seeds(git_dir: Path, rev: str = "HEAD") -> list[Case]:
    """Every real definition in the repository at ``rev``, deduplicated, in path order."""
    names = [n for n in _git(git_dir, "ls-tree", "-r", "--name-only", rev).splitlines()
             if n.endswith(SUFFIXES) and not n.startswith(SKIPPED)]
    out: list[Case] = []
    seen: set[str] = set()
    for name in names:
        try:
            text = _git(git_dir, "show", f"{rev}:{name}")
        except subprocess.CalledProcessError:
            continue  # a blob missing from a partial mirror
        if "block_type" not in text:
            continue
        if name.endswith((".md", ".mdx")):
            found = list(_from_markdown(text))
        elif name.endswith(".py"):
            found = list(_from_python(text))
        elif name.endswith(".json"):
            found = [("json", t) for t in _json_documents(text)]
        else:
            found = [("yaml", t) for t in _yaml_documents(text)]
        for n, (kind, body) in enumerate(found):
            key = kind + "\0" + body.strip()
            if key in seen:
                continue
            seen.add(key)
            data = json.loads(body) if kind == "json" else None
            if kind == "json" and isinstance(data, dict) and ("json_definition" in data or "yaml_definition" in data):
                kind = "body"
            out.append(Case(f"real:{name}#{n}", kind, body, ["real"]))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("git_dir", type=Path)
    ap.add_argument("--out", type=Path, help="write each seed to this directory (outside the repository)")
    args = ap.parse_args(argv)
    found = seeds(args.git_dir)
    by_source: dict[str, int] = {}
    for case in found:
        top = case.id.split(":", 1)[1].split("/", 1)[0]
        by_source[top] = by_source.get(top, 0) + 1
    print(f"{len(found)} real definitions: " + ", ".join(f"{k} {v}" for k, v in sorted(by_source.items())))
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        for case in found:
            name = re.sub(r"[^A-Za-z0-9_.-]+", "_", case.id.split(":", 1)[1]) + case.suffix
            (args.out / name).write_text(case.text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
