"""The child process that runs code blocks (standard library only: started with no site-packages).

``code_runner`` starts it with a clean environment, in an empty scratch directory, in a session of
its own, and speaks to it on a private pipe (two descriptors named on the command line; fds 0, 1
and 2 are ``/dev/null``, so code that writes to fd 1 reaches nobody). Before it reads any code the
worker puts up the operating system's walls (``code_confine``) and says which held.

Each request is one JSON line ``{"id", "code", "params"}``; the answer is one JSON line carrying
the same ``id`` (a random token the code never sees). Every execution gets a namespace built
afresh the way release 1.0.56's ``CodeBlock.build_safe_vars`` / ``generate_async_user_function``
build it: the safe builtins, new module shims (``SimpleNamespace`` objects, not modules), the
``ErrorCode`` class with its argument checks, and the parameters; the code, checked again against
``code_policy``, is wrapped in ``async def wrapper(<parameters>)`` and every local it leaves,
except the parameters, is the output. Nothing is cached between executions.
"""

from __future__ import annotations

import ast
import asyncio
import builtins
import datetime
import functools
import html
import importlib.util
import json
import keyword
import os
import re
import socket
import sys
import textwrap
import unicodedata
from pathlib import Path
from time import struct_time
from types import SimpleNamespace
from typing import Any


def _load(name: str) -> Any:
    """A sibling module by path (the worker runs with ``-P``: its directory is not on sys.path)."""
    spec = importlib.util.spec_from_file_location(f"_wflint_{name}", Path(__file__).with_name(f"{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


policy = _load("code_policy")
confinement = _load("code_confine")

_REAL_SOCKET = socket.socket


class _NoNetwork(_REAL_SOCKET):
    """The last line when no OS layer could take the network away: refused in-process."""

    def connect(self, *args: object) -> None:  # noqa: D102
        raise OSError("network access is disabled in wflint simulate (use --network)")

    connect_ex = connect  # type: ignore[assignment]
    sendto = connect  # type: ignore[assignment]


class _Permissive:
    """The fake page: every attribute is an awaitable no-op (the oracle's seam 3)."""

    def __getattr__(self, name: str) -> "_Permissive":
        return self

    def __call__(self, *args: object, **kwargs: object) -> "_Permissive":
        return self

    def __await__(self):  # type: ignore[no-untyped-def]
        if False:
            yield None
        return None


def _error_code_class() -> type:
    class ErrorCode(Exception):
        """The engine's ``ErrorCode``: its arguments are checked when it is built."""

        def __init__(self, error_code: str, reasoning: str) -> None:
            if (type(error_code) is not str or not error_code or error_code != error_code.strip()
                    or len(error_code) > policy.ERROR_CODE_MAX_LENGTH):
                raise ValueError(policy.ERROR_CODE_BAD_CODE)
            if (type(reasoning) is not str or not reasoning or reasoning != reasoning.strip()
                    or len(reasoning) > policy.ERROR_CODE_REASONING_MAX_LENGTH):
                raise ValueError(policy.ERROR_CODE_BAD_REASONING)
            self.error_code = error_code
            self.reasoning = reasoning
            super().__init__(policy.ERROR_CODE_MESSAGE)

    return ErrorCode


def _build_class(func: Any, name: str, /, *bases: Any, **kwds: Any) -> Any:
    if kwds:  # ``_code_block_build_class``: even ``metaclass=None`` stays out
        raise RuntimeError(policy.CLASS_KEYWORDS_AT_RUN_TIME)
    return builtins.__build_class__(func, name, *bases)


def _platform_helper(name: str) -> Any:
    async def helper(*args: object, **kwargs: object) -> None:
        raise RuntimeError(f"{name}() needs the Skyvern service; wflint does not simulate it (stub this block)")

    helper.__name__ = helper.__qualname__ = name
    return helper


def _datetime_shim() -> SimpleNamespace:
    """``module_shims()``'s datetime: date types whose C methods run from a frame with real
    globals (the code's globals lack ``__import__``), built per execution so a change to one
    (they are writable heap types) dies with it."""

    class _Time(datetime.time):
        __slots__ = ()

        def strftime(self, format: str) -> str:  # noqa: A002 - the stdlib's name
            return super().strftime(format)

    class _Date(datetime.date):
        __slots__ = ()

        @classmethod
        def today(cls):  # type: ignore[no-untyped-def]
            return super().today()

        def strftime(self, format: str) -> str:  # noqa: A002
            return super().strftime(format)

        def timetuple(self) -> struct_time:
            return super().timetuple()

    class _DateTime(_Date, datetime.datetime):
        __slots__ = ()

        @classmethod
        def today(cls):  # type: ignore[no-untyped-def]
            return super().today()

        @classmethod
        def strptime(cls, date_string: str, format: str, /):  # type: ignore[no-untyped-def] # noqa: A002
            return super().strptime(date_string, format)

        @classmethod
        def utcnow(cls):  # type: ignore[no-untyped-def]
            return super().utcnow()

        @classmethod
        def utcfromtimestamp(cls, timestamp: float, /):  # type: ignore[no-untyped-def]
            return super().utcfromtimestamp(timestamp)

        def strftime(self, format: str) -> str:  # noqa: A002
            return super().strftime(format)

        def timetuple(self) -> struct_time:
            return super().timetuple()

        def utctimetuple(self) -> struct_time:
            return super().utctimetuple()

        def date(self) -> datetime.date:
            return _Date(self.year, self.month, self.day)

        def time(self) -> datetime.time:
            return _Time(self.hour, self.minute, self.second, self.microsecond, fold=self.fold)

        def timetz(self) -> datetime.time:
            return _Time(self.hour, self.minute, self.second, self.microsecond, self.tzinfo, fold=self.fold)

    # reprs and failure reasons name the stdlib types, as the engine's do
    for sandbox_type, stdlib_name in ((_Time, "time"), (_Date, "date"), (_DateTime, "datetime")):
        sandbox_type.__module__ = "datetime"
        sandbox_type.__name__ = f"datetime.{stdlib_name}"
        sandbox_type.__qualname__ = stdlib_name
        for attribute, member in vars(sandbox_type).items():
            function = member.__func__ if isinstance(member, classmethod) else member
            if not attribute.startswith("_") and callable(function):
                function.__module__ = "datetime"
                function.__qualname__ = f"datetime.{stdlib_name}.{attribute}"
    for sandbox_type, stdlib_type in ((_Time, datetime.time), (_Date, datetime.date), (_DateTime, datetime.datetime)):
        sandbox_type.min = sandbox_type.fromisoformat(stdlib_type.min.isoformat())  # type: ignore[attr-defined]
        sandbox_type.max = sandbox_type.fromisoformat(stdlib_type.max.isoformat())  # type: ignore[attr-defined]
    return SimpleNamespace(datetime=_DateTime, date=_Date, timedelta=datetime.timedelta,
                           timezone=datetime.timezone, UTC=datetime.UTC)


async def _sleep(delay: float, result: Any = None) -> Any:
    """``asyncio.sleep`` without the wait: a simulation reports what a run does, not how long it
    takes (as for ``wait`` blocks). A delay that is not a number fails as asyncio's does."""
    if delay <= 0:
        return result
    return await asyncio.sleep(0, result)


_sleep.__name__ = _sleep.__qualname__ = "sleep"
_sleep.__module__ = "asyncio.tasks"
_MODULES = {"asyncio": SimpleNamespace(sleep=_sleep), "re": re, "json": json, "html": html}


def module_shims(names: frozenset[str] | None = None) -> dict[str, SimpleNamespace]:
    """Fresh module-shaped namespaces with the attributes ``policy.SHIMS`` names (those of
    ``names`` only, when given: code reaches no global it does not name)."""
    wanted = [name for name in policy.SHIMS if names is None or name in names]
    shims = {name: SimpleNamespace(**{attr: getattr(_MODULES[name], attr) for attr in policy.SHIMS[name]})
             for name in wanted if name in _MODULES}
    if "datetime" in wanted:
        shims["datetime"] = _datetime_shim()
    return shims


def safe_builtins() -> dict[str, Any]:
    return {name: value for name, value in vars(builtins).items()
            if not name.startswith("_") and name not in policy.BUILTINS_DENIED}


def json_safe_default(item: object) -> str:
    # type(), not isinstance: isinstance reads __class__, which code can redefine
    if issubclass(type(item), datetime.date) and not issubclass(type(item), datetime.datetime):
        return datetime.date.isoformat(item)  # type: ignore[arg-type]
    return f"Object '{type(item)}' is not JSON serializable"


def _failing_line(exc: BaseException) -> int | None:
    line = None
    tb = BaseException.__getattribute__(exc, "__traceback__")
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == policy.CODE_FILENAME:
            line = max(tb.tb_lineno - policy.CODE_LINE_OFFSET, 1)
        tb = tb.tb_next
    return line


def _is_direct_raise(code: str, line: int | None) -> bool:
    """Whether ``line`` holds the one raise there, a direct ``raise ErrorCode(...)``."""
    if line is None:
        return False
    tree = ast.parse(textwrap.dedent(code))
    raises = [node for node in ast.walk(tree) if isinstance(node, ast.Raise)
              and node.lineno <= line <= (node.end_lineno or node.lineno)]
    return len(raises) == 1 and isinstance(raises[0].exc, ast.Call) and \
        isinstance(raises[0].exc.func, ast.Name) and raises[0].exc.func.id == "ErrorCode"


def build_namespace(params: dict[str, Any], printed: list[str],
                    names: frozenset[str] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The globals the code runs in and the parameters that become wrapper arguments (with the
    module shims of ``names`` only, when given)."""

    def _print(*args: object, sep: str | None = " ", end: str | None = "\n", **_: object) -> None:
        sep = " " if sep is None else sep
        end = "\n" if end is None else end
        printed.append(sep.join(str(a) for a in args) + ("" if end == "\n" else end))

    safe_vars: dict[str, Any] = {
        "__builtins__": {**safe_builtins(), "__build_class__": _build_class, "__name__": policy.CODE_MODULE_NAME,
                         "print": _print},
        "print": _print, "sleep": _sleep, **module_shims(names), "ErrorCode": _error_code_class(),
        **{name: _platform_helper(name) for name in policy.PLATFORM_HELPERS},
        "page": _Permissive(),
    }
    if any(unicodedata.normalize("NFKC", key) == policy.RESERVED_PARAMETER for key in params):
        raise ValueError(f"'{policy.RESERVED_PARAMETER}' is a reserved CodeBlock builtin "
                         "and cannot be used as a parameter name.")
    defaults: dict[str, Any] = {}
    for key, value in params.items():
        name = unicodedata.normalize("NFKC", key)  # Python binds identifiers under this spelling
        if name in defaults:
            continue
        is_safe_var = name in safe_vars
        if not is_safe_var:
            safe_vars[key] = value
        if (not is_safe_var or name in policy.LATE_SAFE_GLOBALS) and (
                name.isidentifier() and not keyword.iskeyword(name) and not name.startswith("__")):
            defaults[name] = value
    return safe_vars, defaults


def run_one(request: dict, loop: asyncio.AbstractEventLoop, *, checked: bool = True) -> dict:
    code = request["code"]
    params = request.get("params") or {}
    printed: list[str] = []
    try:
        why, names = policy.inspect(code)  # the engine checks first; checked again here, where it runs
    except SyntaxError as exc:
        return {"ok": False, "kind": "error", "type": "SyntaxError", "message": str(exc)}
    if why is not None:
        if checked:
            return {"ok": False, "kind": "insecure", "message": why}
        names = None  # refused code run anyway (containment tests): every shim, as if names were read
    safe_vars: dict[str, Any] = {}
    try:
        safe_vars, defaults = build_namespace(params, printed, names)
        safe_vars["__capture_locals"] = builtins.locals
        safe_vars["__param_defaults"] = defaults
        namespace: dict = {}
        exec(_compiled(code, tuple(defaults)), safe_vars, namespace)  # noqa: S102 - why this process exists
        result = loop.run_until_complete(namespace["wrapper"]())
    except Exception as exc:  # noqa: BLE001 - the user's code may raise anything
        if type(exc).__name__ == "ErrorCode" and type(exc) is safe_vars.get("ErrorCode"):
            return {"ok": False, "kind": "error_code", "error_code": exc.error_code,  # type: ignore[attr-defined]
                    "reasoning": exc.reasoning, "direct": _is_direct_raise(code, _failing_line(exc)),  # type: ignore[attr-defined]
                    "printed": printed}
        return {"ok": False, "kind": "error", "type": type(exc).__name__, "message": _message(exc),
                "printed": printed}
    try:
        text = json.dumps(result, default=json_safe_default)
    except (TypeError, ValueError, RecursionError) as exc:
        return {"ok": False, "kind": "error", "type": type(exc).__name__, "message": _message(exc), "printed": printed}
    size = len(text.encode("utf-8"))
    if size > policy.OUTPUT_MAX_BYTES:  # ``_guard_jsonb_size``: stored as a marker
        return {"ok": True, "result": {"truncated": True, "reason": "exceeded_max_jsonb_value_size",
                                       "original_size_bytes": size, "limit_bytes": policy.OUTPUT_MAX_BYTES},
                "printed": printed}
    return {"ok": True, "result_json": text, "printed": printed}


@functools.lru_cache(maxsize=256)  # code objects are immutable: one per text and parameter list
def _compiled(code: str, parameters: tuple[str, ...]) -> Any:
    """``generate_async_user_function``'s wrapper around the code, compiled."""
    args = ", ".join(f"{name}=__param_defaults[{name!r}]" for name in parameters)
    body = textwrap.indent(textwrap.dedent(code), "    ")
    source = (f"\nasync def wrapper({args}):\n{body}\n"
              "    return {key: value for key, value in __capture_locals().items() "
              "if key not in __param_defaults}\n")
    return compile(source, policy.CODE_FILENAME, "exec")


def _message(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:  # noqa: BLE001 - a user-defined __str__ may raise
        return ""


def main(argv: list[str]) -> None:
    request_fd, reply_fd, parent_pid = int(argv[1]), int(argv[2]), int(argv[3])
    network = argv[4] == "network"
    # Only the containment tests start a worker that skips the policy (to act as code that got
    # past it); wflint itself never passes this argument.
    checked = argv[5:] != ["unchecked-for-tests"]
    read_only = [entry for entry in sys.path if os.path.isdir(entry)]
    held = confinement.confine(scratch=os.getcwd(), network=network, parent_pid=parent_pid, read_only=read_only)
    loop = asyncio.new_event_loop()  # before seccomp: the loop's own socket pair
    held = confinement.lock(held, network=network)
    if not network:
        socket.socket = _NoNetwork  # type: ignore[misc]
    replies = os.fdopen(reply_fd, "w", encoding="utf-8")
    replies.write(json.dumps({"ready": True, "contained": held}) + "\n")
    replies.flush()
    with os.fdopen(request_fd, "r", encoding="utf-8") as requests:
        for line in requests:
            token = None
            try:
                request = json.loads(line)
                token = request.get("id")
                answer = run_one(request, loop, checked=checked)
            except Exception as exc:  # noqa: BLE001 - keep serving; report what broke
                answer = {"ok": False, "kind": "error", "type": type(exc).__name__, "message": _message(exc)}
            answer["id"] = token
            try:
                encoded = json.dumps(answer)
            except (TypeError, ValueError):
                encoded = json.dumps({"id": token, "ok": False, "kind": "error", "type": "ValueError",
                                      "message": "the code block's answer could not be encoded"})
            replies.write(encoded + "\n")
            replies.flush()


if __name__ == "__main__":
    main(sys.argv)
