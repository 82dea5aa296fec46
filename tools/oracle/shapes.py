"""Mutation operators for the shape of a document, and mutated cases from any seed.

``generate.py`` mutates fields of a definition it made. The mistakes people make with whole
files are of another kind, and these operators make them from any request (generated or
real): an empty, whitespace, comment-only, ``null``, scalar or ``{}`` document; a list of
blocks or of requests; the top-level key renamed, misspelt or nested under another key; the
flat layout (the definition's keys beside the title); a bare definition; the request wrapped
in an update body (JSON or YAML, empty or both definitions set); an export (the service's
stored form) edited by hand; a second YAML document; a JSON syntax slip.

``mutated(seeds, seed, count)`` mixes them with ``generate.Gen.mutate``'s field mutations,
applied to the given seeds, so that a harness run measures what it did not make.
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any, Callable

import yaml

from generate import Case, Gen

REPO = Path(__file__).resolve().parent.parent.parent


def _yaml(data: Any) -> str:
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


def _definition(req: dict[str, Any]) -> dict[str, Any]:
    d = req.get("workflow_definition")
    return d if isinstance(d, dict) else {}


def _empty(req, r):
    return "yaml", r.choice(["", "\n", "   \n", "# a workflow, to be written\n", "null\n", "~\n", "{}\n", "---\n"])


def _scalar(req, r):
    return r.choice([("yaml", "workflow.yaml\n"), ("yaml", "42\n"), ("json", '"a string"'), ("json", "null"),
                     ("json", "[]"), ("json", "{}"), ("json", "")])


def _list_of_blocks(req, r):
    blocks = _definition(req).get("blocks") or []
    return r.choice(["yaml", "json"]), (_yaml(blocks) if r.random() < 0.5 else json.dumps(blocks, indent=2))


def _list_of_requests(req, r):
    return ("yaml", _yaml([req])) if r.random() < 0.5 else ("json", json.dumps([req], indent=2))


def _renamed(req, r):
    out = {}
    new = r.choice(["definition", "workflow", "workflowDefinition", "workflow_defintion", "workflow_definitions",
                    "Workflow_definition"])
    for k, v in req.items():
        out[new if k == "workflow_definition" else k] = v
    return _either(out, r)


def _nested(req, r):
    return _either({r.choice(["workflow", "request", "agent", "spec"]): req}, r)


def _flat(req, r):
    out = {k: v for k, v in req.items() if k != "workflow_definition"}
    if r.random() < 0.3:
        out.pop("title", None)
    out.update(_definition(req))
    return _either(out, r)


def _bare(req, r):
    return _either(_definition(req), r)


def _wrapped(req, r):
    choice = r.choice(["json_body", "yaml_body", "yaml_body_in_yaml", "empty_yaml", "both", "null_json"])
    if choice == "json_body":
        return "body", json.dumps({"json_definition": req}, indent=2)
    if choice == "yaml_body":
        return "body", json.dumps({"yaml_definition": _yaml(req)}, indent=2)
    if choice == "yaml_body_in_yaml":
        return "yaml-body", _yaml({"yaml_definition": _yaml(req)})  # sent as the body it reads as
    if choice == "empty_yaml":
        return "body", json.dumps({"yaml_definition": "", "json_definition": None})
    if choice == "both":
        return "body", json.dumps({"json_definition": req, "yaml_definition": _yaml(req)}, indent=2)
    return "body", json.dumps({"json_definition": None})


def _two_documents(req, r):
    return "yaml", _yaml(req) + "---\n" + _yaml({"title": "second"})


def _json_slip(req, r):
    text = json.dumps(req, indent=2)
    choice = r.choice(["trailing_comma", "comment", "single_quotes", "truncated"])
    if choice == "trailing_comma":
        return "json", text[:-1].rstrip() + ",\n}"
    if choice == "comment":
        return "json", "// exported\n" + text
    if choice == "single_quotes":
        return "json", text.replace('"title"', "'title'", 1)
    return "json", text[: max(1, len(text) // 2)]


def _either(data: Any, r: random.Random) -> tuple[str, str]:
    return ("yaml", _yaml(data)) if r.random() < 0.5 else ("json", json.dumps(data, indent=2))


OPERATORS: dict[str, Callable[[dict[str, Any], random.Random], tuple[str, str]]] = {
    "empty": _empty, "scalar": _scalar, "list_of_blocks": _list_of_blocks, "list_of_requests": _list_of_requests,
    "renamed_key": _renamed, "nested_request": _nested, "flat_layout": _flat, "bare_definition": _bare,
    "wrapper": _wrapped, "two_documents": _two_documents, "json_slip": _json_slip,
}


def exports() -> list[dict[str, Any]]:
    """The service's stored form of real saves (``fixtures/exports``, written by the official
    client from the service's answers), for the edited-export operator."""
    out = []
    for f in sorted((REPO / "fixtures" / "exports").glob("*.json")):
        data = json.loads(f.read_text(encoding="utf-8"))
        if isinstance(data, dict) and isinstance(data.get("workflow_definition"), dict):
            out.append(data)
    return out


def as_request(case: Case) -> dict[str, Any] | None:
    """The request a seed case holds, normalised for the field mutations (lists present), or
    None when it is not one."""
    try:
        body = case.body()
    except (ValueError, yaml.YAMLError):
        return None
    if not isinstance(body, dict):
        return None
    if isinstance(body.get("json_definition"), dict):
        body = body["json_definition"]
    elif isinstance(body.get("yaml_definition"), str):
        try:
            body = yaml.safe_load(body["yaml_definition"])
        except yaml.YAMLError:
            return None
    if not isinstance(body, dict) or not isinstance(body.get("workflow_definition"), dict):
        return None
    req = json.loads(json.dumps(body, default=str))
    d = req["workflow_definition"]
    if not isinstance(d.get("parameters"), list):
        d["parameters"] = []
    if not isinstance(d.get("blocks"), list):
        return None
    return req


def mutated(seeds: list[Case], seed: int, count: int, prefix: str, tag: str) -> list[Case]:
    """``count`` cases made from ``seeds``: half with a shape operator, the rest with a field
    mutation (``Gen.mutate``), some of them on an edited export."""
    requests = [req for req in map(as_request, seeds) if req is not None]
    if not requests:
        return []
    g = Gen(seed)
    r = g.r
    stored = exports()
    out = []
    for i in range(count):
        base = copy.deepcopy(r.choice(requests))
        pick = r.random()
        if pick < 0.5:
            name = r.choice(list(OPERATORS))
            kind, text = OPERATORS[name](base, r)
            tags = [tag, "shape", name]
        elif pick < 0.6 and stored:
            req, tags = g.mutate(copy.deepcopy(r.choice(stored)))
            kind, text = _either(req, r)
            tags = [tag, "edited_export", *tags]
        else:
            try:
                req, tags = g.mutate(base)
            except (KeyError, TypeError, IndexError, AttributeError):
                continue  # a real seed the field mutations cannot walk (an odd but real shape)
            kind, text = _either(req, r)
            tags = [tag, "field", *tags]
        out.append(Case(f"{prefix}-{seed}-{i:05d}", kind, text, tags))
    return out
