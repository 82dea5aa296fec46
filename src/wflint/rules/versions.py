"""What the rules say about names a later modelled release knows (shared by WF103/WF104).

A key, block type or value the target release does not know may be one a later release
added: then the message names that release, so a team on an older server knows why, and a
team on a newer one knows to raise its target. One no modelled release knows names the
newest modelled release, so a user of a newer service knows to update wflint or ignore it.
"""

from __future__ import annotations

from typing import Any

from .. import model
from ..model import releases
from ..model import types as t


def _later(rel: model.Release):
    return [model.release(r) for r in model.RELEASES
            if releases.version_key(r) > releases.version_key(rel.version)]


def field_from_later_release(rel: model.Release, obj: t.ObjectModel, key: str) -> str | None:
    """The first later modelled release in which ``obj`` (a view of ``rel``) has field ``key``."""
    for later in _later(rel):
        if rel.is_block(obj):
            other = later.BLOCK_TYPES.get(obj.tag or "")
            if other is not None and key in later.known_keys(other):
                return later.version
        elif rel.is_parameter(obj):
            other = later.PARAMETER_TYPES.get(obj.tag or "")
            if other is not None and key in later.known_keys(other):
                return later.version
        else:
            other = later.OBJECTS.get(obj.name)
            if other is not None and other.field(key) is not None:
                return later.version
    return None


def tag_from_later_release(rel: model.Release, kind: str, tag: Any) -> str | None:
    """The first later modelled release with the block type (``kind="block"``) or parameter
    type ``tag``."""
    if not isinstance(tag, str):
        return None
    for later in _later(rel):
        if tag in (later.BLOCK_TYPES if kind == "block" else later.PARAMETER_TYPES):
            return later.version
    return None


def value_from_later_release(rel: model.Release, enum_name: str, value: Any) -> str | None:
    """The first later modelled release whose enumeration ``enum_name`` has ``value``."""
    declared = model.enums.ALL_ENUMS.get(enum_name)
    if declared is None or not isinstance(value, str) or value not in declared.values:
        return None
    for later in _later(rel):
        if value in later.enum(declared).values:
            return later.version
    return None


def newest_hint(rel: model.Release, what: str) -> str:
    """The note for a name no modelled release knows."""
    return (f"no service release wflint models (up to {model.NEWEST}) knows this {what}; if your "
            f"service is newer, update wflint or ignore this finding")
