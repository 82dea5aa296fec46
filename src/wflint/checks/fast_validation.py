"""A compiled yes/no answer before the error tree: most files in a repository are valid.

python-jsonschema's ``iter_errors`` builds the detailed errors the WF101-WF105 findings are
made from, and costs as much on a valid document as on a broken one. ``jsonschema-rs``
(compiled, an optional dependency installed by default) answers "valid?" many times faster, so
a document it accepts skips the error tree; one it refuses, or cannot read, takes the slow
path, which alone decides what is reported. The fast path can only skip work, never change a
finding: it is trusted only when it says *valid*, and the tests check that both paths agree on
every fixture.

This is a thin layer over a schema: whatever derives the schema (the request model, per
release) hands it in; the compiled validator is built lazily, once per schema object.
"""

from __future__ import annotations

import os
import re
from typing import Any, Callable

#: set to 0 to disable the compiled path (for comparisons and the agreement tests)
ENV_SWITCH = "WFLINT_FAST_VALIDATION"

_UNLOADED = object()
_rs: Any = _UNLOADED

#: id(schema) -> (schema kept alive so the id stays its own, compiled is_valid or None)
_compiled: dict[int, tuple[Any, Callable[[Any], bool] | None]] = {}


def _module() -> Any:
    """jsonschema_rs, imported on first use (``wflint rule`` never pays for it); None when it
    is not installed: every document then takes the slow path, with the same findings."""
    global _rs
    if _rs is _UNLOADED:
        try:
            import jsonschema_rs as _rs
        except ImportError:  # pragma: no cover - depends on the environment
            _rs = None
    return _rs


def available() -> bool:
    return os.environ.get(ENV_SWITCH, "1") != "0" and _module() is not None


class _Pattern:
    """The ``pattern`` keyword read with Python's ``re``, as python-jsonschema reads it
    (``re.search`` on strings). jsonschema-rs compiles every occurrence of a pattern with its own
    engine, once per validator: the lax-bool and lax-int patterns recur in every block's
    schema, and compiling them was three quarters of each validator's making (0.7 -> 0.18 ms for
    a task block; 11 validators for a typical file). Python's ``re`` caches compiled patterns,
    and reading them as the slow path does keeps the two paths' answers the same."""

    __slots__ = ("search",)

    def __init__(self, parent_schema: Any, value: str, schema_path: Any) -> None:
        self.search = re.compile(value).search

    def validate(self, instance: Any) -> None:
        if isinstance(instance, str) and self.search(instance) is None:
            raise ValueError("does not match the pattern")


def _compile(schema: dict[str, Any]) -> Callable[[Any], bool] | None:
    if _module() is None:
        return None
    # formats are annotations in 2020-12, as python-jsonschema treats them by default
    try:
        return _rs.Draft202012Validator(schema, validate_formats=False, keywords={"pattern": _Pattern}).is_valid
    except TypeError:  # a jsonschema-rs without custom keywords (before 0.30): its own patterns
        pass
    except Exception:  # noqa: BLE001 - a schema it cannot compile simply takes the slow path
        return None
    try:
        return _rs.Draft202012Validator(schema, validate_formats=False).is_valid
    except Exception:  # noqa: BLE001
        return None


def surely_valid(schema: dict[str, Any], instance: Any) -> bool:
    """True when the compiled validator accepts ``instance``; False means "ask the slow
    path" (invalid, not representable as JSON, or no compiled validator)."""
    return available() and _accepts(schema, instance)


def checker() -> Callable[[dict[str, Any], Any], bool] | None:
    """``surely_valid`` for many documents in a row: the switch is read once (None when the
    compiled path is off)."""
    return _accepts if available() else None


def _accepts(schema: dict[str, Any], instance: Any) -> bool:
    entry = _compiled.get(id(schema))
    if entry is None or entry[0] is not schema:
        entry = _compiled[id(schema)] = (schema, _compile(schema))
    is_valid = entry[1]
    if is_valid is None:
        return False
    try:
        return bool(is_valid(instance))
    except Exception:  # noqa: BLE001 - non-string keys, NaN, huge integers: the slow path decides
        return False
