"""JSON Schema validation of a request, with errors mapped to rule codes and nodes.

The schemas are the generated ones (``model.schema``), so a file that validates here validates in
an editor too. Each jsonschema error becomes a ``Finding`` (code, path, message, suggestion);
the WF101-WF105 rule modules yield their share of the findings, computed once per request.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable

from ..model import schema
from ..model.validators import _defs, lint_schema, validator
from ..core.records import Record, assign
from . import fast_validation

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

Path = tuple[Any, ...]


class Finding(Record):
    def __init__(self, code: str, path: Path, message: str, help: str | None = None,  # noqa: A002
                 #: point at the key rather than the value
                 key: bool = False) -> None:
        assign(self, locals())


# ------------------------------------------------------------------------------ findings


def findings(request: Any, root_def: str, parts: Iterable[tuple[Path, str, dict[str, Any]]] = (),
             version: str | None = None) -> list[Finding]:
    """Validate ``request`` against ``root_def`` (blocks and parameters shallowly) and each
    ``(path, def, data)`` in ``parts`` (every typed block and parameter), and map every error
    to a finding. A document the compiled validator accepts skips the error tree."""
    out: list[Finding] = []
    sure = fast_validation.checker()
    for base, def_name, data in ((), root_def, request), *parts:
        if sure is not None and sure(lint_schema(def_name, version), data):
            continue
        for err in validator(def_name, version).iter_errors(data):
            out.extend(_map_error(err, base))
    return out


def _field_for(err: ValidationError) -> str | None:
    for part in reversed(list(err.absolute_path)):
        if isinstance(part, str):
            return part
    return None


def _describe_value(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean" + f" ({str(v).lower()})"
    if isinstance(v, (int, float)):
        return f"a number ({v!r})"
    if isinstance(v, str):
        return f"the string {_short(v)}"
    if isinstance(v, list):
        return "a list"
    if isinstance(v, dict):
        return "an object"
    return type(v).__name__


def _short(v: Any, limit: int = 60) -> str:
    s = repr(v)
    return s if len(s) <= limit else s[: limit - 4] + "...'"


_TYPE_WORDS = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "a boolean",
    "object": "an object",
    "array": "a list",
    "null": "null",
}


def _expected_from_schema(s: dict[str, Any]) -> list[str]:
    if "type" in s:
        types = s["type"] if isinstance(s["type"], list) else [s["type"]]
        return [_TYPE_WORDS.get(x, x) for x in types]
    if "anyOf" in s:
        out: list[str] = []
        for sub in s["anyOf"]:
            for w in _expected_from_schema(sub):
                if w not in out:
                    out.append(w)
        return out
    if "$ref" in s:
        ref = s["$ref"].rsplit("/", 1)[-1]
        target = _defs().get(ref, {})
        if "enum" in target:
            return ["one of its allowed values"]
        return ["an object" if target.get("type") == "object" else ref]
    if "enum" in s:
        return ["one of " + ", ".join(map(repr, s["enum"]))]
    return ["a valid value"]


def _lax_kind(s: dict[str, Any]) -> str | None:
    """Recognise the lax integer/number/boolean encodings of ``schema.type_schema``."""
    branches = s.get("anyOf")
    if not isinstance(branches, list):
        return None
    patterns = {b.get("pattern") for b in branches if isinstance(b, dict)}
    if schema.INT_STRING in patterns:
        return "integer"
    if schema.BOOL_STRING in patterns:
        return "boolean"
    if schema.NUMBER_STRING in patterns:
        return "number"
    return None


def _map_error(err: ValidationError, base: Path) -> list[Finding]:
    import difflib  # here: only a refused object is mapped, and most files have none

    path = base + tuple(err.absolute_path)
    v = err.validator
    inst = err.instance
    if v == "required":
        missing = [name for name in err.validator_value if isinstance(inst, dict) and name not in inst]
        return [Finding("WF101", path, f"missing required field '{name}'") for name in missing]
    if v == "enum":
        allowed = [a for a in err.validator_value if isinstance(a, str)]
        field = _field_for(err) or "value"
        close = difflib.get_close_matches(str(inst), allowed, n=1, cutoff=0.75) if isinstance(inst, str) else []
        shown = ", ".join(allowed) if len(allowed) <= 12 else ", ".join(allowed[:12]) + ", ..."
        msg = f"{_short(inst)} is not a valid {field}; allowed: {shown}"
        if not isinstance(inst, str):
            return [Finding("WF102", path, f"'{field}' must be a string, got {_describe_value(inst)}")]
        return [Finding("WF103", path, msg, help=f"did you mean '{close[0]}'?" if close else None)]
    if v == "const":
        return []
    if v in ("minimum", "maximum", "minLength", "maxLength", "minItems", "exclusiveMinimum", "exclusiveMaximum"):
        field = _field_for(err) or "value"
        bound = err.validator_value
        words = {
            "minimum": f"at least {bound}",
            "maximum": f"at most {bound}",
            "minLength": "not empty" if bound == 1 else f"at least {bound} characters long",
            "maxLength": f"at most {bound} characters long",
            "minItems": f"a list of at least {bound} item(s)",
        }.get(v, f"within bounds ({v} {bound})")
        return [Finding("WF105", path, f"'{field}' must be {words}, got {_short(inst)}")]
    if v == "pattern" and err.validator_value == r"\S":
        field = _field_for(err) or "value"
        return [Finding("WF105", path, f"'{field}' must not be empty or only whitespace")]
    if v == "anyOf":
        lax = _lax_kind(err.schema)
        enum = _enum_branch(err.schema)
        if enum is not None and isinstance(inst, str):
            # a string where an enumeration (or an object) is expected: the string was meant
            # as one of the values (proxy_location: MARS)
            field = _field_for(err) or "value"
            close = difflib.get_close_matches(inst, enum, n=1, cutoff=0.75)
            shown = ", ".join(enum) if len(enum) <= 12 else ", ".join(enum[:12]) + ", ..."
            return [Finding("WF103", path, f"{_short(inst)} is not a valid {field}; allowed: {shown}",
                            help=f"did you mean '{close[0]}'?" if close else None)]
        # a value of the right JSON type that breaks a bound inside one branch: report that
        for sub in err.context or []:
            if sub.validator in ("minimum", "maximum", "minLength", "maxLength", "minItems", "enum", "required"):
                if len(sub.relative_schema_path) and _branch_type_matches(err.schema, sub, inst):
                    return _map_error(sub, base)
        field = _field_for(err) or "value"
        if lax == "integer" and isinstance(inst, float):
            return [Finding("WF102", path, f"'{field}' must be a whole number, got {inst!r}")]
        expected = [lax] if lax else _expected_from_schema(err.schema)
        words = " or ".join(_TYPE_WORDS.get(e, e) for e in expected)
        return [Finding("WF102", path, f"'{field}' must be {words}, got {_describe_value(inst)}")]
    if v == "type":
        field = _field_for(err) or "value"
        expected = _expected_from_schema(err.schema)
        return [Finding("WF102", path, f"'{field}' must be {' or '.join(expected)}, got {_describe_value(inst)}")]
    # anything else (should not happen with our schemas): still report, never drop
    return [Finding("WF102", path, err.message)]


def _enum_branch(any_of: dict[str, Any]) -> list[str] | None:
    for branch in any_of.get("anyOf", []):
        if isinstance(branch, dict) and "$ref" in branch:
            branch = _defs().get(branch["$ref"].rsplit("/", 1)[-1], {})
        if isinstance(branch, dict) and isinstance(branch.get("enum"), list):
            return [v for v in branch["enum"] if isinstance(v, str)]
    return None


def _branch_type_matches(any_of: dict[str, Any], sub: ValidationError, inst: Any) -> bool:
    idx = sub.relative_schema_path[0]
    try:
        branch = any_of["anyOf"][idx]
    except (KeyError, IndexError, TypeError):
        return False
    if "$ref" in branch:
        return isinstance(inst, dict)
    types = branch.get("type")
    if types is None:
        return False
    types = types if isinstance(types, list) else [types]
    checks = {
        "string": lambda x: isinstance(x, str),
        "integer": lambda x: isinstance(x, int) and not isinstance(x, bool),
        "number": lambda x: isinstance(x, (int, float)) and not isinstance(x, bool),
        "array": lambda x: isinstance(x, list),
        "object": lambda x: isinstance(x, dict),
    }
    return any(checks.get(ty, lambda x: False)(inst) for ty in types)
