"""WF004: quoting the YAML 1.1 traps in string fields.

A plain scalar in a field whose model type is a string (``Str``, the items of ``Array(Str)``,
the values of a string map), or the ``default_value`` of a workflow parameter of type
``string``, that YAML 1.1 reads as a non-string is quoted so that the service receives the text
as written: ``yes``/``no``/``on``/``off`` in any of YAML's spellings, numbers that are not plain
decimals (``010``, ``0x1F``, ``0b11``, ``1_000``, ``7:30``) and floats with ``_`` or ``:``.
Not fixed: ``~`` (null may be meant), ``true``/``false`` and plain decimals (a JSON reader reads
them as non-strings too, so the author may mean them), free-form objects (``payload``,
``body``, a ``json`` parameter's default: the author may mean a boolean), keys, loop children
whose type the service has to guess (only their common fields are fixed). JSON documents have
no such traps. The quote is added around the scalar's own text, in the style an embedded
``yaml_definition`` allows (a note says so when none does).
"""

from __future__ import annotations


from .. import model
from ..model import types as t
from ..document.nodes import Node
from ..workflow.unwrap import workflow_for
from ..workflow.view import modeled_objects
from ..checks.yaml11 import yaml11_reading
from .document import _blocks, _get, _pairs
from .edits import _Edit, _Fixer, _Unsafe, _check_outer

def _yaml11_trap(node: Node) -> str | None:
    """How YAML 1.1 reads a plain scalar whose text a string field means literally, or None.
    The same reading WF004 reports, less ``~`` and exponent-looking strings: the author may
    well mean null, and ``1e3`` already stays text."""
    reading = yaml11_reading(node)
    return reading if reading is not None and isinstance(node.value, (bool, int, float)) else None


def quote_traps(fixer: _Fixer) -> None:
    """Quote every trap in the string fields of the fixer's (YAML) document."""
    if fixer.doc.syntax != "yaml":
        return
    root = fixer.doc.root
    wf = workflow_for("<fix>", fixer.doc.mode, root)
    guessed = {b.path for b in wf.all_blocks if b.tag_guessed}
    for path, _data, obj in modeled_objects(wf):
        fields = obj.fields
        if obj.tag is not None and model.BLOCK_TYPES.get(obj.tag) is obj:
            fields = model.COMMON_BLOCK_FIELDS if path in guessed else (*model.COMMON_BLOCK_FIELDS, *fields)
        elif any(path[: len(g)] == g for g in guessed):
            continue  # an object inside a loop child of guessed type
        for f in fields:
            node = root.at(path + (f.name,))
            if node is None:
                continue
            typ = f.type
            if isinstance(typ, t.Str):
                _quote(fixer, node, f.name)
            elif isinstance(typ, t.Array) and isinstance(typ.items, t.Str) and node.kind == "seq":
                for item in node.items:
                    _quote(fixer, item, f"{f.name} entry")
            elif isinstance(typ, t.StrMap) and node.kind == "map":
                for k, v in _pairs(node):
                    _quote(fixer, v, f"{f.name}.{k.raw if k.raw is not None else k.value}")
    # label and next_block_label are strings in every block type, known or not
    common = [f.name for f in model.COMMON_BLOCK_FIELDS if isinstance(f.type, t.Str)]
    for _path, block in _blocks(_get(root, "workflow_definition")):
        for name in common:
            node = block.get(name)
            if node is not None:
                _quote(fixer, node, name)
    for p in wf.params:
        if p.type == "workflow" and p.data.get("workflow_parameter_type") == "string":
            node = root.at(p.path + ("default_value",))
            if node is not None:
                _quote(fixer, node, "default_value of a string parameter")


def _quote(fixer: _Fixer, node: Node, what: str) -> None:
    reading = _yaml11_trap(node)
    if reading is None or id(node) in fixer.edits:
        return
    raw = node.raw or ""
    start, end = node.start.offset, node.end.offset
    if fixer.text[start:end] != raw:
        return
    replacement = fixer.doc.quote + raw + fixer.doc.quote
    try:
        _check_outer(fixer.doc, replacement)
    except _Unsafe as exc:
        fixer.note(node, f"{what}: `{raw}` is read as {reading}, not fixed ({exc})")
        return
    message = f"{what}: quoted `{raw}`, which YAML 1.1 reads as {reading}, so the service receives the text"
    fixer.edits[id(node)] = _Edit(node, raw, [(start, end, replacement)], start, message + fixer.where(), "WF004")
