"""The model of one release, derived from the declarations and their since/until marks.

``release("1.0.55")`` returns a ``Release``: the block and parameter types, objects, common
block fields and enumerations that release has, as plain ``ObjectModel``s (fields whose span
excludes the release are gone, enumerations keep only the release's values). Every consumer
reads one of these views; the module-level names of ``wflint.model`` are the newest release's.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable, TypeVar

from . import enums, releases
from . import types as t
from ..core.records import Record, assign
from .types import replace

R = TypeVar("R")


def _enum_in(e: t.Enum, version: str) -> t.Enum:
    if not e.spans:
        return e
    keep = [i for i, v in enumerate(e.values) if releases.within(*e.span_of(v), version)]
    members = tuple(e.members[i] for i in keep) if e.members else ()
    return replace(e, values=tuple(e.values[i] for i in keep), members=members, spans=())


def _type_in(typ: Any, version: str) -> Any:
    if isinstance(typ, t.Enum):
        return _enum_in(typ, version)
    if isinstance(typ, t.Array):
        return replace(typ, items=_type_in(typ.items, version))
    if isinstance(typ, t.Union):
        return replace(typ, options=tuple(_type_in(o, version) for o in typ.options))
    return typ


def fields_in(fields: tuple[t.Field, ...], version: str) -> tuple[t.Field, ...]:
    out = []
    for f in fields:
        if not releases.within(f.since, f.until, version):
            continue
        typ = _type_in(f.type, version)
        out.append(f if typ is f.type and f.since is None and f.until is None
                   else replace(f, type=typ, since=None, until=None))
    return tuple(out)


def object_in(obj: t.ObjectModel, version: str) -> t.ObjectModel:
    return replace(obj, fields=fields_in(obj.fields, version), since=None, until=None)


class Release(Record, eq=False):
    """The request model of one service release (one object per release, ``release`` caches it:
    compared by identity)."""

    def __init__(self, version: str, BLOCK_TYPES: dict[str, t.ObjectModel],  # noqa: N803 - the model's names
                 PARAMETER_TYPES: dict[str, t.ObjectModel], OBJECTS: dict[str, t.ObjectModel],
                 COMMON_BLOCK_FIELDS: tuple[t.Field, ...], REQUEST: t.ObjectModel, DEFINITION: t.ObjectModel,
                 ENVELOPE: t.ObjectModel, BLOCK_TYPE: t.Enum, PARAMETER_TYPE: t.Enum) -> None:
        assign(self, locals())

    @property
    def is_newest(self) -> bool:
        return self.version == releases.NEWEST

    def block_fields(self, tag: str) -> tuple[t.Field, ...]:
        """The common block fields followed by the type's own. KeyError for unknown tags."""
        return (*self.COMMON_BLOCK_FIELDS, *self.BLOCK_TYPES[tag].fields)

    def is_block(self, m: t.ObjectModel) -> bool:
        return m.tag is not None and self.BLOCK_TYPES.get(m.tag) is m

    def is_parameter(self, m: t.ObjectModel) -> bool:
        return m.tag is not None and self.PARAMETER_TYPES.get(m.tag) is m

    def known_keys(self, m: t.ObjectModel) -> frozenset[str]:
        """Keys the release reads on this object: its fields, plus the discriminator and the
        common block fields for tagged models. Any other key is dropped silently."""
        return _known_keys(self, m)

    def has_check(self, name: str) -> bool:
        """Does this release run the save-time check ``name`` (see ``releases.CHECKS``)?"""
        return releases.has_check(name, self.version)

    def enum(self, e: t.Enum) -> t.Enum:
        """The values of ``e`` this release accepts."""
        return _enum_in(e, self.version)


def per_model(derive: Callable[["Release", t.ObjectModel], R]) -> Callable[["Release", t.ObjectModel], R]:
    """``derive(release, model)``, worked out once per release and model: the walks over a
    file's objects ask the same question of the same few dozen models for every object of
    every file. Models live as long as the process, and each is kept with its answer, so its
    ``id`` stays its own."""
    answers: dict[tuple[str, int], tuple[t.ObjectModel, R]] = {}

    def cached(release: "Release", model: t.ObjectModel) -> R:
        found = answers.get((release.version, id(model)))
        if found is None:
            found = answers[(release.version, id(model))] = (model, derive(release, model))
        return found[1]

    return cached


@per_model
def _known_keys(release: Release, m: t.ObjectModel) -> frozenset[str]:
    keys = set(m.field_names)
    if release.is_block(m):
        keys |= {f.name for f in release.COMMON_BLOCK_FIELDS} | {"block_type"}
    elif release.is_parameter(m):
        keys.add("parameter_type")
    return frozenset(keys)


def release(version: str | None = None) -> Release:
    """The model of ``version`` (default: the newest modelled release), one object per
    release. UnknownRelease for a release wflint does not model."""
    return _release(releases.check_release(version or releases.NEWEST))


@lru_cache(maxsize=None)
def _release(version: str) -> Release:
    from . import declarations as d
    tag_enum = _enum_in(enums.BLOCK_TYPE, version)
    blocks = {tag: object_in(d.DECLARED_BLOCKS[tag], version) for tag in tag_enum.values
              if releases.within(d.DECLARED_BLOCKS[tag].since, d.DECLARED_BLOCKS[tag].until, version)}
    param_enum = _enum_in(enums.PARAMETER_TYPE, version)
    params = {tag: object_in(d.DECLARED_PARAMETERS[tag], version) for tag in param_enum.values
              if releases.within(d.DECLARED_PARAMETERS[tag].since, d.DECLARED_PARAMETERS[tag].until, version)}
    tops = {m.name: object_in(m, version) for m in d.TOPLEVEL_OBJECTS}
    objects = {**tops, **{m.name: m for m in blocks.values()}, **{m.name: m for m in params.values()}}
    return Release(
        version=version,
        BLOCK_TYPES=blocks,
        PARAMETER_TYPES=params,
        OBJECTS=objects,
        COMMON_BLOCK_FIELDS=fields_in(d.COMMON_BLOCK_FIELDS, version),
        REQUEST=tops[d.REQUEST.name],
        DEFINITION=tops[d.DEFINITION.name],
        ENVELOPE=tops[d.ENVELOPE.name],
        BLOCK_TYPE=replace(tag_enum, values=tuple(blocks), members=tuple(
            m for v, m in zip(tag_enum.values, tag_enum.members) if v in blocks)),
        PARAMETER_TYPE=replace(param_enum, values=tuple(params), members=tuple(
            m for v, m in zip(param_enum.values, param_enum.members) if v in params)),
    )
