"""How a conditional's output shows a Jinja criterion (``_render_jinja_expression_for_display``):
variable references replaced by their values, for people, not evaluated. Only the matched
branch keeps it (``_trim_branch_evaluations``)."""

from __future__ import annotations

import re
from typing import Any

from . import semantics

_FILTERS = {
    "lower": lambda v: str(v).lower(), "upper": lambda v: str(v).upper(), "trim": lambda v: str(v).strip(),
    "title": lambda v: str(v).title(), "capitalize": lambda v: str(v).capitalize(), "int": int,
    "float": float, "string": str, "length": len, "abs": abs,
}
#: ``DECISION_BLOCK_FIELD_MAX_BYTES``: the cap on the matched branch's display text
_CAP_BYTES = 64 * 1024


def _resolve(value: Any, path: str) -> Any:
    for key, index in re.findall(r"\.([a-zA-Z_]\w*)|\[(\d+)\]", path):
        if key:
            if not isinstance(value, dict) or key not in value:
                raise LookupError(key)
            value = value[key]
        else:
            if not isinstance(value, (list, tuple)) or int(index) >= len(value):
                raise LookupError(index)
            value = value[int(index)]
    return value


def render_for_display(expression: str, values: dict[str, Any]) -> str:
    if not semantics.is_pure_jinja_expression(expression):
        return expression
    try:
        display = expression.strip()[2:-2].strip()
        for name in sorted(values, key=len, reverse=True):
            pattern = r"\b" + re.escape(name) + r"((?:\.[a-zA-Z_]\w*|\[\d+\])*)(\|[a-zA-Z_]\w*)?"

            def replace(match: re.Match[str], _name: str = name) -> str:
                value = values[_name]
                path, flt = match.group(1), match.group(2)
                if path:
                    try:
                        value = _resolve(value, path)
                    except LookupError:
                        return match.group(0)
                if flt:
                    fn = _FILTERS.get(flt[1:])
                    try:
                        if fn is None:
                            raise LookupError(flt)
                        value = fn(value)
                    except Exception:  # noqa: BLE001 - shown with the filter text, as the engine does
                        return f'"{value}"{flt}' if isinstance(value, str) else f"{value}{flt}"
                return f'"{value}"' if isinstance(value, str) else str(value)

            display = re.sub(pattern, replace, display)
        return display
    except Exception:  # noqa: BLE001 - display only: the expression itself is the fallback
        return expression


def cap(text: Any) -> Any:
    if not isinstance(text, str):
        return text
    encoded = text.encode("utf-8")
    if len(encoded) <= _CAP_BYTES:
        return text
    suffix = f"…[truncated {len(encoded) - _CAP_BYTES} bytes]"
    return encoded[: max(0, _CAP_BYTES - len(suffix.encode('utf-8')))].decode("utf-8", errors="ignore") + suffix
