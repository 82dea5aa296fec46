"""What changed from one modelled release to the next, read from the model's marks.

``differences(before, after)`` lists, in words, the block and parameter types, fields, field
shapes (required, nullable, default, bounds), enumeration values and save-time checks (``CHECKS``)
that ``after`` added, dropped or changed. ``markdown_table()`` renders every release against the
one before it: the table of ``docs/releases.md``, which a test holds equal to this output.
"""

from __future__ import annotations

from typing import Any

from . import releases
from . import types as t
from .release_view import Release, release



def _added_and_gone(before, after) -> tuple[list, list]:
    """What ``after`` has that ``before`` lacks, and the reverse, each in its own order."""
    return [x for x in after if x not in before], [x for x in before if x not in after]

def _shape(f: t.Field) -> dict[str, Any]:
    typ = f.type
    out: dict[str, Any] = {"required": f.required, "nullable": f.nullable,
                           "default": None if f.default is t.MISSING else repr(f.default)}
    for bound in ("ge", "le", "min_length", "max_length", "min_items"):
        if getattr(typ, bound, None) is not None:
            out[bound] = getattr(typ, bound)
    return out


def _describe_shape(name: str, old: dict[str, Any], new: dict[str, Any]) -> str:
    parts = []
    if old["required"] != new["required"]:
        parts.append("optional" if not new["required"] else "required")
    if old["nullable"] != new["nullable"]:
        parts.append("nullable" if new["nullable"] else "not nullable")
    if old["default"] != new["default"] and not new["required"]:
        parts.append(f"default {new['default']}")
    for bound, word in (("ge", ">="), ("le", "<="), ("min_length", "min length"), ("max_length", "max length"),
                        ("min_items", "min items")):
        if old.get(bound) != new.get(bound):
            parts.append(f"{word} {new.get(bound)}" if new.get(bound) is not None else f"no {word} bound")
    return f"`{name}` now " + ", ".join(parts) if parts else ""


def _enum_values(typ: Any) -> tuple[str, ...]:
    if isinstance(typ, t.Enum):
        return typ.values
    if isinstance(typ, t.Array):
        return _enum_values(typ.items)
    if isinstance(typ, t.Union):
        return tuple(v for o in typ.options for v in _enum_values(o))
    return ()


def _objects(rel: Release) -> dict[str, t.ObjectModel]:
    """Every object of a release by a stable name: block and parameter types by tag."""
    out: dict[str, t.ObjectModel] = {}
    for tag, m in rel.BLOCK_TYPES.items():
        out[f"{tag} block"] = m
    for tag, m in rel.PARAMETER_TYPES.items():
        out[f"{tag} parameter"] = m
    tagged = {id(m) for m in (*rel.BLOCK_TYPES.values(), *rel.PARAMETER_TYPES.values())}
    for name, m in rel.OBJECTS.items():
        if id(m) not in tagged:
            out[{"WorkflowRequest": "request", "WorkflowDefinition": "workflow_definition"}.get(name, name)] = m
    return out


def differences(before: str, after: str) -> list[str]:
    """What ``after`` changed since ``before``, one item each, in model order."""
    old, new = release(before), release(after)
    out: list[str] = []
    for kind, a, b in (("block types", old.BLOCK_TYPES, new.BLOCK_TYPES),
                       ("parameter types", old.PARAMETER_TYPES, new.PARAMETER_TYPES)):
        added, gone = _added_and_gone(a, b)
        if added:
            out.append(f"new {kind}: " + ", ".join(f"`{x}`" for x in added))
        if gone:
            out.append(f"{kind} removed: " + ", ".join(f"`{x}`" for x in gone))
    old_objects, new_objects = _objects(old), _objects(new)
    for name, obj in new_objects.items():
        prior = old_objects.get(name)
        if prior is None:
            continue
        fields_before = {f.name: f for f in prior.fields}
        fields_after = {f.name: f for f in obj.fields}
        added, gone = _added_and_gone(fields_before, fields_after)
        notes = []
        if added:
            notes.append("new " + ", ".join(f"`{f}`" for f in added))
        if gone:
            notes.append("dropped " + ", ".join(f"`{f}`" for f in gone))
        for fname in fields_after:
            if fname not in fields_before:
                continue
            fa, fb = fields_before[fname], fields_after[fname]
            shape = _describe_shape(fname, _shape(fa), _shape(fb))
            if shape:
                notes.append(shape)
            va, vb = _enum_values(fa.type), _enum_values(fb.type)
            more, less = _added_and_gone(va, vb)
            if more:
                notes.append(f"`{fname}` accepts " + ", ".join(f"`{v}`" for v in more))
            if less:
                notes.append(f"`{fname}` no longer accepts " + ", ".join(f"`{v}`" for v in less))
        if notes:
            out.append(f"{name}: " + "; ".join(notes))
    for name, (since, until, words) in releases.CHECKS.items():
        if releases.within(since, until, after) != releases.within(since, until, before):
            out.append(words if releases.within(since, until, after) else f"no longer: {words}")
    return out


def markdown_table() -> str:
    """Every modelled release against the modelled release before it."""
    rows = ["| release | changes from the release before it |", "|---|---|"]
    for before, after in zip(releases.RELEASES, releases.RELEASES[1:]):
        items = differences(before, after)
        cell = "<br>".join(f"• {i}" for i in items) if items else "no difference in what a save accepts"
        rows.append(f"| **{after}** (after {before}) | {cell} |")
    return "\n".join(rows) + "\n"


if __name__ == "__main__":  # python -m wflint.model.release_diff: the table of docs/releases.md
    print(markdown_table(), end="")
