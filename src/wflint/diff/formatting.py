"""What kind of formatting change two spellings of one request are, for the one line a diff says
about them: the format (YAML/JSON), the order of keys, the quoting or style of scalars, reflowed
text, values spelt differently that the service reads alike, and the rest of the layout.

Read from the positioned trees (``wflint.document.nodes``): a node keeps its scalar style and
raw text, so nothing here searches the text.
"""

from __future__ import annotations

from typing import Any

FORMAT, KEY_ORDER, QUOTING, FLOW, REFLOW, SPELLING, LAYOUT = (
    "format", "key order", "quoting", "flow", "reflow", "spelling", "layout")

#: how each kind is said
WORDS = {
    FORMAT: "converted between YAML and JSON",
    KEY_ORDER: "keys reordered",
    QUOTING: "scalars quoted or styled differently",
    FLOW: "mappings or lists written inline ({...}, [...]) instead of one item a line, or back",
    REFLOW: "text reflowed (same value)",
    SPELLING: "values written differently that the service reads alike (\"5\" for 5, a field set to its default)",
    LAYOUT: "whitespace, indentation or comments",
}


def file_format(text: str) -> str:
    stripped = text.lstrip("\ufeff \t\r\n")
    return "json" if stripped[:1] in ("{", "[") else "yaml"


def kinds(old_text: str, new_text: str, old_root: Any, new_root: Any, old_data: Any, new_data: Any) -> list[str]:
    """The kinds of formatting change between two texts that hold one request (in WORDS order)."""
    found: set[str] = set()
    swapped = file_format(old_text) != file_format(new_text)
    if swapped:
        found.add(FORMAT)
    if old_root is not None and new_root is not None:
        _walk(old_root, new_root, found, swapped, (old_text, new_text))
    if old_data != new_data:
        found.add(SPELLING)
    if old_text != new_text and not found:
        found.add(LAYOUT)
    return [k for k in WORDS if k in found]


def _inline(node: Any, text: str) -> bool:
    """Whether a mapping or list is written in flow style (it starts with its bracket)."""
    at = node.start.offset
    return text[at: at + 1] in ("{", "[")


def _walk(a: Any, b: Any, found: set[str], swapped: bool, texts: tuple[str, str]) -> None:
    if a.kind != b.kind:
        return
    if a.kind in ("map", "seq") and not swapped and (a.pairs or a.items) and (b.pairs or b.items) \
            and _inline(a, texts[0]) != _inline(b, texts[1]):
        found.add(FLOW)
    if a.kind == "map":
        keys_a = [k.value for k, _ in a.pairs]
        keys_b = [k.value for k, _ in b.pairs]
        if keys_a != keys_b and _sortable(keys_a) == _sortable(keys_b):
            found.add(KEY_ORDER)
        values_b = {}
        for k, v in b.pairs:
            try:
                values_b[k.value] = v
            except TypeError:
                pass
        for k, v in a.pairs:
            try:
                twin = values_b.get(k.value)
            except TypeError:
                twin = None
            if twin is not None:
                _walk(v, twin, found, swapped, texts)
    elif a.kind == "seq":
        for x, y in _aligned(a.items, b.items):
            _walk(x, y, found, swapped, texts)
    elif a.value == b.value and type(a.value) is type(b.value):
        if swapped:
            return  # a YAML scalar and a JSON one always differ in style: the swap says it
        if (a.style or None) != (b.style or None):
            found.add(QUOTING)
        elif a.raw != b.raw and isinstance(a.value, str):
            found.add(REFLOW)


def _name(node: Any) -> Any:
    """A list item's name: its ``label`` (a block) or ``key`` (a parameter), if it has one."""
    if node.kind != "map":
        return None
    for k, v in node.pairs:
        if k.value in ("label", "key") and v.kind == "scalar" and isinstance(v.value, str):
            return (k.value, v.value)
    return None


def _aligned(old: list[Any], new: list[Any]) -> list[tuple[Any, Any]]:
    """Items of two lists paired by name when they have one (blocks that moved, or around an
    inserted one, are still compared with themselves), else by position."""
    named = {}
    for item in new:
        name = _name(item)
        if name is not None:
            named.setdefault(name, item)
    if not named:
        return list(zip(old, new))
    return [(item, named[_name(item)]) for item in old if _name(item) in named]


def _sortable(keys: list[Any]) -> list[str]:
    return sorted(repr(k) for k in keys)
