"""The service's error body shapes (reference §6.1) and a way to return them early.

* L: ``{"detail": [{"type", "loc", "msg", "input", "ctx"?}, ...]}`` (422) from request parsing;
* S: ``{"detail": "<loc> -> <loc>: <msg>; ..."}`` (422) from model validation in the handler;
* D: ``{"detail": "<message>"}`` for every explicit service error.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from pydantic import ValidationError


class Reply(Exception):
    """Raised anywhere in a request's pipeline to answer at once with ``status`` / ``body``."""

    def __init__(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        super().__init__(status, body)
        self.status = status
        self.body = body
        self.headers = headers


def detail(status: int, message: str) -> Reply:
    """Shape D."""
    return Reply(status, {"detail": message})


def _jsonable(value: Any) -> Any:
    """Inputs are plain JSON/YAML data; exceptions in ``ctx`` encode as ``{}`` (as FastAPI
    does), anything else exotic (YAML sets, bytes, dates) as text."""
    if isinstance(value, BaseException):
        return {}
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_jsonable(v) for v in value]
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def list_items(errors: Iterable[dict[str, Any]], prefix: Sequence[Any]) -> list[dict[str, Any]]:
    """pydantic errors as shape-L items located under ``prefix`` (``("body",)``, ``("query",)``)."""
    items = []
    for e in errors:
        item = {"type": e["type"], "loc": [*prefix, *e["loc"]], "msg": e["msg"], "input": _jsonable(e.get("input"))}
        if "ctx" in e:
            item["ctx"] = {k: _jsonable(v) for k, v in e["ctx"].items()}
        items.append(item)
    return items


def shape_l(exc: ValidationError, prefix: Sequence[Any] = ("body",)) -> Reply:
    return Reply(422, {"detail": list_items(exc.errors(include_url=False), prefix)})


def shape_s_text(exc: ValidationError) -> str:
    parts = []
    for e in exc.errors(include_url=False):
        loc = [str(p) for p in e["loc"] if p not in ("body", "__root__")]
        parts.append(f"{' -> '.join(loc)}: {e['msg']}" if loc else e["msg"])
    return "; ".join(parts)


def shape_s(exc: ValidationError) -> Reply:
    return Reply(422, {"detail": shape_s_text(exc)})


def not_found(wpid: str) -> str:
    """The service's message for a workflow the organization does not have."""
    return f"Workflow not found. workflow_permanent_id={wpid}"


def missing_body() -> Reply:
    return Reply(422, {"detail": [{"type": "missing", "loc": ["body"], "msg": "Field required", "input": None}]})


def json_invalid(position: int, message: str) -> Reply:
    return Reply(422, {"detail": [{"type": "json_invalid", "loc": ["body", position], "msg": "JSON decode error",
                                   "input": {}, "ctx": {"error": message}}]})
