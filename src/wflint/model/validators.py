"""Compiled JSON Schema validators for the model's objects.

Built once per process from the generated schemas (``schema``) and cached: the request
validator with shallow block and parameter items, and one validator per block or parameter
type, so the linter validates each object against its own definition.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping

from . import schema
from .releases import NEWEST

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator


@lru_cache(maxsize=None)
def _defs(version: str | None = None) -> dict[str, Any]:
    return schema.all_defs(version)


class _OnDemand(Mapping[str, Any]):
    """Definitions built when first looked up (``schema.def_builders``): a file's objects
    lead to a few of the 78, and building all of them cost the first check of every process."""

    def __init__(self, builders: dict[str, Callable[[], Any]]) -> None:
        self._builders = builders
        self._built: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        if name not in self._built:
            self._built[name] = self._builders[name]()
        return self._built[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._builders)

    def __len__(self) -> int:
        return len(self._builders)


@lru_cache(maxsize=None)
def _lint_defs(version: str | None = None) -> Mapping[str, Any]:
    """The same definitions with shallow block and parameter items.

    The editor schemas dispatch every block through 33 ``if``/``then`` pairs; the linter
    already knows each block's type from the view, so it validates the request with items
    that only check their tag, then each block and parameter against its own definition.
    Same verdicts, a fraction of the work."""
    builders = dict(schema.def_builders(version))
    builders["block"] = lambda: {"type": "object", "required": ["block_type"], "properties": {"block_type": {"$ref": "#/$defs/BlockType"}}}
    builders["loop_block"] = lambda: {"type": "object", "properties": {"block_type": {"$ref": "#/$defs/BlockType"}}}
    builders["parameter"] = lambda: {"type": "object", "required": ["parameter_type"], "properties": {"parameter_type": {"$ref": "#/$defs/ParameterType"}}}
    return _OnDemand(builders)


def _inline(schema: Any, defs: Mapping[str, Any], depth: int = 0) -> Any:
    """Replace every local ``$ref`` by the definition it names. With shallow block items the
    linting definitions are not recursive, and resolving references at validation time was
    the largest single cost of a check."""
    if depth > 50:  # pragma: no cover - the lint definitions are not recursive
        raise ValueError("recursive schema")
    if isinstance(schema, dict):
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            rest = {k: v for k, v in schema.items() if k != "$ref"}
            target = _inline(defs[ref.rsplit("/", 1)[-1]], defs, depth + 1)
            return {**target, **_inline(rest, defs, depth + 1)} if rest else target
        return {k: _inline(v, defs, depth + 1) for k, v in schema.items()}
    if isinstance(schema, list):
        return [_inline(v, defs, depth + 1) for v in schema]
    return schema


def validator(def_name: str, version: str | None = None) -> Draft202012Validator:
    """A linting validator for one ``$defs`` entry (``WorkflowRequest``, ``block.wait`` ...)
    of release ``version`` (default: the newest modelled one)."""
    return _validator(def_name, version or NEWEST)


@lru_cache(maxsize=None)
def _lint_schema(def_name: str, version: str) -> dict[str, Any]:
    defs = _lint_defs(version)
    return _inline(defs[def_name], defs)


def lint_schema(def_name: str, version: str | None = None) -> dict[str, Any]:
    """The inlined linting schema of one ``$defs`` entry (``WorkflowRequest``, ``block.wait`` ...)
    of release ``version`` (default: the newest modelled one)."""
    return _lint_schema(def_name, version or NEWEST)


@lru_cache(maxsize=None)
def _validator(def_name: str, version: str) -> Draft202012Validator:
    """jsonschema is imported on first use: a run whose documents the compiled fast path
    accepts never needs it."""
    from jsonschema import Draft202012Validator

    return Draft202012Validator(lint_schema(def_name, version))


def accepts_as(tag: str, data: dict[str, Any], version: str | None = None) -> bool:
    """Would the ``tag`` block model accept ``data`` (whose block_type is absent)?"""
    return validator(f"block.{tag}", version).is_valid({**data, "block_type": tag})
