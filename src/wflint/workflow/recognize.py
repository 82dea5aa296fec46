"""Is this document a workflow? Recognition by content, for every file a run meets.

A repository holds many YAML and JSON files that are not workflows (CI pipelines, compose
files, manifests, ``package.json``, editor settings). wflint checks a file only when its
content says it is a workflow, whatever its name and however it reached the run (named by
pre-commit, or met while walking a directory):

* a create/update request (``workflow_definition`` at the top);
* an update body (``json_definition`` / ``yaml_definition``);
* a top-level key that is a near miss of those (``workflow_defintion``): a workflow with a typo,
  checked so the typo is reported;
* a bare definition (``parameters`` and ``blocks`` at the top), or a request without its
  wrapper (``title`` and ``blocks`` at the top; a request or a definition under another key);
* the service's stored form (a workflow as GET or list returns it, see ``stored_form``);
* a list of any of these (the service's list answer, or a mistake reported as WF002);
* a ``yaml-language-server`` modeline naming one of wflint's schemas.

Anything else is skipped, with the reason ``--show-files`` prints.
"""

from __future__ import annotations

import re

from ..document.nodes import Node
from ..core.records import Record, assign
from .stored_form import is_stored_form
from ..core.patterns import lazy

REQUEST_KEY = "workflow_definition"
ENVELOPE_KEYS = ("json_definition", "yaml_definition")
TOP_LEVEL_KEYS = (REQUEST_KEY, *ENVELOPE_KEYS)
#: the schema files wflint publishes for workflow files (all but the script ones; a test holds
#: this list equal to what ``wflint schema`` writes); a modeline naming one declares the file a
#: workflow
SCHEMA_FILES = ("workflow-file.schema.json", "workflow-file.editor.schema.json", "workflow-definition.schema.json",
                "update-body.schema.json", "workflow.schema.json")
_MODELINE = lazy(r"^#\s*yaml-language-server:\s*\$schema=(\S+)", re.MULTILINE)
#: how close a top-level key must be to a workflow key to count as a typo of it (difflib's
#: ratio): one or two letters off in ``workflow_definition`` is about 0.95; a plain
#: ``definition`` key (0.8 against ``json_definition``) belongs to other tools
NEAR_MISS_CUTOFF = 0.85


class Recognition(Record):
    """``kind`` is None when the file is not a workflow; ``reason`` says why, either way."""

    def __init__(self, kind: str | None, reason: str) -> None:
        assign(self, locals())

    @property
    def is_workflow(self) -> bool:
        return self.kind is not None


def near_miss(key: object) -> str | None:
    """The workflow key ``key`` is a typo of, if any (never the key itself)."""
    if not isinstance(key, str) or key in TOP_LEVEL_KEYS:
        return None
    import difflib  # here: only an unknown name asks, and most files have none

    close = difflib.get_close_matches(key.lower(), TOP_LEVEL_KEYS, n=1, cutoff=NEAR_MISS_CUTOFF)
    return close[0] if close else None


def modeline_schema(text: str) -> str | None:
    """The schema a ``# yaml-language-server: $schema=...`` modeline names, if it is wflint's."""
    for match in _MODELINE.finditer(text[:4096]):
        url = match.group(1)
        if any(url.endswith(name) for name in SCHEMA_FILES):
            return url
    return None


def recognize(root: Node | None, text: str = "") -> Recognition:
    """What ``root`` (the first document of a file) is, judged by its content."""
    schema = modeline_schema(text)
    if schema is not None:
        return Recognition("modeline", f"its yaml-language-server modeline names wflint's schema ({schema})")
    if root is None:
        if any(k in text for k in TOP_LEVEL_KEYS):
            return Recognition("unparsed", "it does not parse, but names workflow keys")
        return Recognition(None, "not a workflow: it does not parse and holds no workflow key")
    if root.kind == "seq":
        first = next((item for item in root.items if item.kind == "map"), None)
        inner = recognize(first) if first is not None else None
        if inner is not None and inner.is_workflow:
            return Recognition("list", f"a list of workflows ({inner.reason})")
        return Recognition(None, "not a workflow: a list of something else")
    if root.kind != "map":
        return Recognition(None, "not a workflow: not a mapping")
    keys = root.keys()
    if is_stored_form(root):
        return Recognition("stored", "the service's stored form of a workflow (ids, timestamps, output parameters)")
    if REQUEST_KEY in keys:
        return Recognition("request", "a request (workflow_definition at the top)")
    if any(k in keys for k in ENVELOPE_KEYS):
        return Recognition("update-body", "an update body (json_definition / yaml_definition)")
    for key in keys:
        meant = near_miss(key)
        if meant is not None:
            return Recognition("near-miss", f"its top-level key {key!r} looks like a misspelt {meant!r}")
    if "parameters" in keys and "blocks" in keys:
        return Recognition("definition", "a bare definition (parameters and blocks at the top)")
    if "title" in keys and "blocks" in keys:
        return Recognition("flat", "a request without its workflow_definition wrapper (title and blocks at the top)")
    for key, value in root.pairs:
        if value.kind == "map" and REQUEST_KEY in value.keys():
            return Recognition("nested", f"a request nested under {key.value!r}")
        if value.kind == "map" and "parameters" in value.keys() and "blocks" in value.keys():
            return Recognition("renamed", f"a definition under {key.value!r} (parameters and blocks)")
    shown = ", ".join(str(k) for k in keys[:4]) + (", ..." if len(keys) > 4 else "")
    return Recognition(None, f"not a workflow: no workflow key at the top (has {shown or 'nothing'})")
