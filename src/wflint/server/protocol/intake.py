"""Reading and decoding a request body with bounded cost (reference §6.2 A2, plus the limits).

* ``read_raw`` reads the body, refusing one over ``body_bytes`` with 413 before it is read
  whole (from ``Content-Length`` when sent, else as the chunks arrive);
* ``decode_json`` decodes it the way FastAPI does (no bytes is "missing"; malformed JSON is a
  422 ``json_invalid``), after a linear scan has measured its nesting, and refuses what the
  service would store but could never answer: ``NaN``/``Infinity``, integers too long for
  Python to read, and text that is not encodable (lone surrogates such as ``\\ud800``); and
  strings over the ``string-chars`` limit, whose checks would hold the interpreter for long.
"""

from __future__ import annotations

import json
import re
from typing import Any

from starlette.requests import Request

from .errors import Reply, detail, json_invalid
from .limits import ServerLimits

MISSING = object()  # no request body at all


def too_large(limit: int) -> Reply:
    return detail(413, f"Request body is larger than {limit} bytes (the mock's 'body-bytes' limit; "
                       "raise it with --limit body-bytes=N)")


async def read_raw(request: Request, limits: ServerLimits) -> bytes:
    limit = limits.body_bytes
    declared = request.headers.get("content-length")
    if declared is not None and declared.strip().isdigit() and int(declared) > limit:
        raise too_large(limit)
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise too_large(limit)
        chunks.append(chunk)
    return b"".join(chunks)


def _is_json(content_type: str) -> bool:
    main = content_type.split(";", 1)[0].strip().lower()
    return main == "application/json" or (main.startswith("application/") and main.endswith("+json"))


#: a JSON string (skipped whole; an unterminated one runs to the end, so no text is scanned
#: twice) or a bracket; everything else is skipped by ``finditer``
_JSON_TOKENS = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]', re.DOTALL)


def json_depth(raw: bytes, stop: int) -> tuple[int, int]:
    """(deepest nesting of ``[]{}`` outside strings, offset where it went past ``stop``): one
    linear pass, ending early once past ``stop``, and none when too few brackets to get there."""
    if raw.count(b"[") + raw.count(b"{") <= stop:
        return 0, -1
    depth = deepest = 0
    for m in _JSON_TOKENS.finditer(raw):
        c = m.group()[0]
        if c in b"[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > stop:
                    return deepest, m.start()
        elif c in b"]}" and len(m.group()) == 1:
            depth = max(depth - 1, 0)
    return deepest, -1


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _bad_string(text: str, max_chars: int | None) -> str | None:
    if max_chars is not None and len(text) > max_chars:
        return "long"
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            return "unencodable"
    return None


def bad_string_at(value: Any, max_chars: int | None = None) -> tuple[list[Any], str, str] | None:
    """(location, text, "unencodable" or "long") of the first string, key or value, that UTF-8
    cannot encode or that is longer than ``max_chars``; None if there is none. Iterative, so
    any nesting is fine."""
    stack: list[tuple[list[Any], Any]] = [([], value)]
    while stack:
        loc, v = stack.pop()
        if isinstance(v, str):
            # a yaml_definition is a whole document: its own strings are measured as it loads
            problem = _bad_string(v, None if loc == ["yaml_definition"] else max_chars)
            if problem:
                return loc, v, problem
        elif isinstance(v, dict):
            for k, item in v.items():
                if isinstance(k, str):
                    problem = _bad_string(k, max_chars)
                    if problem:
                        return loc, k, problem
                stack.append(([*loc, k], item))
        elif isinstance(v, list):
            stack.extend(([*loc, i], item) for i, item in enumerate(v))
    return None


def printable(text: str) -> str:
    """``text`` with what UTF-8 cannot encode written as escapes, so a reply can quote it."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def refuse_bad_strings(value: Any, max_chars: int | None) -> None:
    """422 (list form) at the first string UTF-8 cannot encode (it could be neither stored nor
    answered, so it is refused at the door), or longer than ``max_chars``."""
    found = bad_string_at(value, max_chars)
    if found is None:
        return
    loc, text, problem = found
    if problem == "long":
        item = {"type": "string_too_long", "loc": ["body", *loc],
                "msg": f"String should have at most {max_chars} characters (the mock's 'string-chars' limit; "
                       "raise it with --limit string-chars=N)",
                "input": printable(text[:100]) + "...", "ctx": {"max_length": max_chars}}
    else:
        item = {"type": "string_unicode", "loc": ["body", *loc],
                "msg": "Input should be a valid string, unable to encode it as UTF-8 (a lone surrogate such as \\ud800)",
                "input": printable(text)}
    raise Reply(422, {"detail": [item]})


def decode_json(raw: bytes, content_type: str | None, limits: ServerLimits, *, long_strings: bool = False) -> Any:
    """A2, the way FastAPI reads a JSON body, with the limits: no bytes is "missing"; a JSON (or
    absent) content type is decoded, where malformed JSON is a 422; any other content type is
    passed on as text, which the body model then refuses. ``long_strings`` lifts the
    ``string-chars`` limit (script files carry their content as one string)."""
    if not raw:
        return MISSING
    if content_type is not None and not _is_json(content_type):
        return raw.decode("utf-8", "replace")
    deepest, where = json_depth(raw, limits.depth)
    if deepest > limits.depth:
        raise json_invalid(where, f"nested deeper than {limits.depth} levels (the mock's 'depth' limit; "
                                  "raise it with --limit depth=N)")
    try:
        value = json.loads(raw, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise json_invalid(exc.pos, exc.msg) from None
    except UnicodeDecodeError:
        raise detail(400, "There was an error parsing the body") from None
    except (ValueError, RecursionError) as exc:  # NaN/Infinity, integers over 4300 digits
        raise json_invalid(0, str(exc)) from None
    refuse_bad_strings(value, None if long_strings else limits.string_chars)
    return value
