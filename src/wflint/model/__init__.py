"""The declarative request model: the one source of truth about what the service accepts.

Every request object is declared once (``toplevel``, ``parameters``, ``blocks*``, ``enums``,
built from ``types``); what derives from the declarations lives beside them: ``schema``
generates the JSON Schemas, ``validators`` compiles them once per process, and ``lax`` reads
values as the service's lax model does. Everything else in wflint (rules, fixer, mock server)
reads field knowledge from here: ``BLOCK_TYPES`` and ``PARAMETER_TYPES`` by tag in the service's order, ``OBJECTS`` by
``ObjectModel.name``, and a few helpers.

One declaration describes several service releases: ``release(X)`` is the view of release X
(``releases`` explains the since/until marks); the module-level names are the newest
release's view.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from . import releases
from .releases import NEWEST, RELEASES, UnknownRelease

if TYPE_CHECKING:
    from .release_view import Release
    from .types import Field, ObjectModel

# The declarations and the newest release's view are made when a name below is first read
# (``__getattr__``): ``wflint --version`` needs the release list only, and building the model
# cost it about 14 ms. Once made, each name is a plain module attribute.
#
#   NEWEST_RELEASE: Release: the newest modelled release; the names below are its view
#   BLOCK_TYPES: dict[str, ObjectModel]: tag → block model, in the service's tag order (§5.1)
#   PARAMETER_TYPES: dict[str, ObjectModel]: tag → parameter model, in the service's tag order (§4.1)
#   OBJECTS: dict[str, ObjectModel]: every named object by ``ObjectModel.name``: the nested
#       request objects first, then the block and parameter models (which are tagged; their
#       ``name`` is the service class name)
#   COMMON_BLOCK_FIELDS, REQUEST, DEFINITION, ENVELOPE: as in ``Release``
#   TASK_STYLE_TYPES: tuple[str, ...]: the 9 task-style block types (§9.9.2), in tag order
_OF_NEWEST = ("BLOCK_TYPES", "PARAMETER_TYPES", "OBJECTS", "COMMON_BLOCK_FIELDS", "REQUEST", "DEFINITION", "ENVELOPE")
_FROM_MODULES = {
    "Array": "types", "Field": "types", "ObjectModel": "types", "Ref": "types", "Union": "types",
    "STORED_BLOCK_HEAD": "blocks", "TASK_STYLE_STORED_FIELDS": "blocks",
    "Release": "release_view", "release": "release_view",
}


def __getattr__(name: str) -> Any:
    if name in _FROM_MODULES:
        value = getattr(importlib.import_module(f"{__name__}.{_FROM_MODULES[name]}"), name)
    elif name == "NEWEST_RELEASE":
        from .release_view import release

        value = release(NEWEST)
    elif name in _OF_NEWEST:
        value = getattr(_newest(), name)
    elif name == "TASK_STYLE_TYPES":
        value = tuple(tag for tag, m in _newest().BLOCK_TYPES.items() if m.extra.get("task_style"))
    elif name in ("enums", "types", "blocks", "release_view", "declarations"):
        value = importlib.import_module(f"{__name__}.{name}")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def _newest() -> Release:
    newest = globals().get("NEWEST_RELEASE")
    return newest if newest is not None else __getattr__("NEWEST_RELEASE")


#: parameter keys a user may not declare (§4.4), in the reference's order; ``<label>_output``
#: keys are reserved too
RESERVED_PARAMETER_KEYS: tuple[str, ...] = (
    "current_item", "current_value", "current_index", "current_date", "workflow_title",
    "workflow_id", "workflow_permanent_id", "workflow_run_id", "workflow_run_outputs",
    "workflow_run_summary",
)

#: block types without a ``parameter_keys`` field, as listed in §5.7 (the tests check that the
#: block models agree)
BLOCKS_WITHOUT_PARAMETER_KEYS: tuple[str, ...] = (
    "for_loop", "while_loop", "conditional", "download_to_s3", "upload_to_s3", "file_upload",
    "send_email", "file_url_parser", "pdf_parser", "wait", "human_interaction", "terminate",
    "goto_url", "task_v2",
)

#: variables always present in the run-time template context (§7.2)
RUNTIME_VARIABLES: tuple[str, ...] = (
    "workflow_title", "workflow_id", "workflow_permanent_id", "workflow_run_id", "current_date",
    "browser_session_id", "workflow_run_outputs", "workflow_run_summary",
)
#: variables present inside loop bodies only (§7.2)
LOOP_VARIABLES: tuple[str, ...] = ("current_item", "current_value", "current_index")


def block_fields(tag: str) -> tuple[Field, ...]:
    """The common block fields followed by the type's own fields (newest release)."""
    return _newest().block_fields(tag)


def _is_block(m: ObjectModel) -> bool:
    return _newest().is_block(m)


def _is_parameter(m: ObjectModel) -> bool:
    return _newest().is_parameter(m)


def known_keys(model: ObjectModel) -> frozenset[str]:
    """Keys the newest release reads on this object (see ``Release.known_keys``)."""
    return _newest().known_keys(model)


def templated_fields() -> list[tuple[str, str, str]]:
    """(object, field, kind) for every templated field, for the documentation.

    ``object`` is the tag for blocks and parameters and ``ObjectModel.name`` otherwise; kinds
    are "text", "leaves" and "values" (see ``Field.templated``)."""
    out: list[tuple[str, str, str]] = []
    for m in _newest().OBJECTS.values():
        label = m.tag if (_is_block(m) or _is_parameter(m)) else m.name
        for f in m.fields:
            if f.templated:
                out.append((label or m.name, f.name, f.templated))
    return out


def _refs(typ: object) -> list[str]:
    from .types import Array, Ref, Union

    if isinstance(typ, Ref):
        return [typ.target]
    if isinstance(typ, Array):
        return _refs(typ.items)
    if isinstance(typ, Union):
        return [r for o in typ.options for r in _refs(o)]
    return []


def ref_targets() -> set[str]:
    """Every ``Ref`` target used anywhere in the model (each must be a key of ``OBJECTS``)."""
    rel = _newest()
    return {r for m in rel.OBJECTS.values() for f in (*m.fields, *rel.COMMON_BLOCK_FIELDS)
            for r in _refs(f.type)}


__all__ = [
    "NEWEST", "NEWEST_RELEASE", "RELEASES", "Release", "UnknownRelease", "release", "releases", "types",
    "BLOCKS_WITHOUT_PARAMETER_KEYS", "BLOCK_TYPES", "COMMON_BLOCK_FIELDS", "DEFINITION",
    "ENVELOPE", "LOOP_VARIABLES", "OBJECTS", "PARAMETER_TYPES", "REQUEST",
    "RESERVED_PARAMETER_KEYS", "RUNTIME_VARIABLES", "STORED_BLOCK_HEAD", "TASK_STYLE_STORED_FIELDS",
    "TASK_STYLE_TYPES", "block_fields", "enums", "known_keys", "ref_targets", "templated_fields",
]
