"""The child process that runs code blocks (standard library only: it is started with ``-I -S``).

It reads one JSON request per line on stdin and answers one JSON line on stdout, so one
long-lived process serves a whole run (and many runs). Each request gets a fresh namespace the
way ``CodeBlock.generate_async_user_function`` builds it: the code, already rendered, is refused
if it imports or touches a private (``_``) name; it is then wrapped in
``async def wrapper(<parameters>)`` and every local it leaves, except the parameters, is the
output. Sockets are closed to it unless the request allows the network.
"""

from __future__ import annotations

import ast
import asyncio
import builtins
import datetime
import json
import re
import socket
import sys
import textwrap

_DENIED = {
    "eval", "exec", "compile", "open", "input", "breakpoint", "help", "exit", "quit", "copyright",
    "credits", "license", "BaseException", "BaseExceptionGroup", "GeneratorExit", "KeyboardInterrupt",
    "SystemExit", "format", "memoryview", "getattr", "setattr", "delattr", "vars", "globals", "locals",
    "type", "super", "staticmethod", "classmethod", "property",
}
_SAFE_BUILTINS = {k: v for k, v in vars(builtins).items() if not k.startswith("_") and k not in _DENIED}
_REAL_SOCKET = socket.socket


class ErrorCode(Exception):
    def __init__(self, error_code: str, reasoning: str) -> None:
        self.error_code = error_code
        self.reasoning = reasoning
        super().__init__(error_code, reasoning)

    def __str__(self) -> str:
        return f"{self.error_code}: {self.reasoning}"


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


class _NoNetwork(_REAL_SOCKET):
    def connect(self, *args: object) -> None:  # noqa: D102
        raise OSError("network access is disabled in wflint simulate (use --network)")

    connect_ex = connect  # type: ignore[assignment]


_CHECKED: dict[str, str | None] = {}
_COMPILED: dict[tuple[str, tuple[str, ...]], object] = {}


def _refusal(code: str) -> str | None:
    """Why the code may not run ("insecure", "error_code_args"), or None; remembered per text."""
    if code not in _CHECKED:
        if len(_CHECKED) > 2048:
            _CHECKED.clear()
        _CHECKED[code] = "insecure" if _insecure(code) else (
            None if _error_code_calls_valid(code) else "error_code_args")
    return _CHECKED[code]


def _insecure(code: str) -> bool:
    tree = ast.parse(textwrap.dedent(code))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            return True
        if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
            return True
        if isinstance(node, ast.Name) and node.id.startswith("__"):
            return True
    return False


def _error_code_calls_valid(code: str) -> bool:
    tree = ast.parse(textwrap.dedent(code))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "ErrorCode":
            if len(node.args) != 2 or node.keywords:
                return False
    return True


def _direct_raise_line(code: str, exc: BaseException) -> tuple[int | None, bool]:
    """The failing line in user code, and whether it is a direct ``raise ErrorCode(...)``."""
    line = None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == "<code_block>":
            line = tb.tb_lineno - 2  # the wrapper adds two lines above the user's code
        tb = tb.tb_next
    if line is None:
        return None, False
    tree = ast.parse(textwrap.dedent(code))
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Raise) and node.lineno <= line <= (node.end_lineno or node.lineno)
            and isinstance(node.exc, ast.Call) and isinstance(node.exc.func, ast.Name)
            and node.exc.func.id == "ErrorCode"
        ):
            return line, True
    return line, False


def _json_safe(item: object) -> str:
    if isinstance(item, datetime.date) and not isinstance(item, datetime.datetime):
        return item.isoformat()
    return f"Object '{type(item)}' is not JSON serializable"


def run_one(request: dict, loop: asyncio.AbstractEventLoop) -> dict:
    code = request["code"]
    params = request.get("params") or {}
    socket.socket = _REAL_SOCKET if request.get("network") else _NoNetwork  # type: ignore[misc]
    printed: list[str] = []
    try:
        refusal = _refusal(code)
        if refusal is not None:
            return {"ok": False, "kind": refusal}
    except SyntaxError as exc:
        return {"ok": False, "kind": "error", "type": "SyntaxError", "message": str(exc)}

    def _print(*args: object, sep: str = " ", end: str = "\n", **_: object) -> None:
        printed.append(sep.join(str(a) for a in args) + ("" if end == "\n" else end))

    safe_vars: dict = {
        "__builtins__": {**_SAFE_BUILTINS, "print": _print, "__build_class__": builtins.__build_class__,
                         "__name__": "skyvern.code_block"},
        "print": _print, "sleep": asyncio.sleep, "json": json, "re": re, "datetime": datetime,
        "ErrorCode": ErrorCode, "page": _Permissive(),
    }
    defaults = {}
    for key, value in params.items():
        if key.isidentifier() and not key.startswith("__") and key not in safe_vars:
            defaults[key] = value
        if key not in safe_vars:
            safe_vars[key] = value
    safe_vars["__capture_locals"] = builtins.locals
    safe_vars["__param_defaults"] = defaults
    try:
        key = (code, tuple(defaults))
        compiled = _COMPILED.get(key)
        if compiled is None:
            args = ", ".join(f"{name}=__param_defaults[{name!r}]" for name in defaults)
            body = textwrap.indent(textwrap.dedent(code), "    ")
            source = (
                f"async def wrapper({args}):\n{body}\n"
                "    return {k: v for k, v in __capture_locals().items() if k not in __param_defaults}\n"
            )
            compiled = compile("\n" + source, "<code_block>", "exec")
            if len(_COMPILED) > 2048:
                _COMPILED.clear()
            _COMPILED[key] = compiled
        namespace: dict = {}
        exec(compiled, safe_vars, namespace)  # noqa: S102 - this process exists to run it
        result = loop.run_until_complete(namespace["wrapper"]())
    except ErrorCode as exc:
        _line, direct = _direct_raise_line(code, exc)
        return {"ok": False, "kind": "error_code", "error_code": exc.error_code, "reasoning": exc.reasoning,
                "direct": direct, "printed": printed}
    except Exception as exc:  # noqa: BLE001 - the user's code may raise anything
        return {"ok": False, "kind": "error", "type": type(exc).__name__, "message": str(exc), "printed": printed}
    try:
        text = json.dumps(result, default=_json_safe)
    except (TypeError, ValueError) as exc:
        return {"ok": False, "kind": "error", "type": type(exc).__name__, "message": str(exc), "printed": printed}
    return {"ok": True, "result": json.loads(text), "printed": printed}


def main() -> None:
    loop = asyncio.new_event_loop()
    out = sys.stdout
    sys.stdout = sys.stderr  # stray writes must never corrupt the protocol
    out.write('{"ready": true}\n')  # the time limit counts from here, not from start-up
    out.flush()
    for line in sys.stdin:
        try:
            answer = run_one(json.loads(line), loop)
        except Exception as exc:  # noqa: BLE001 - keep serving; report what broke
            answer = {"ok": False, "kind": "error", "type": type(exc).__name__, "message": str(exc)}
        out.write(json.dumps(answer) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
