"""The safety check the service runs on uploaded ``.py`` script files (reference §9.8, step 5).

The service refuses files that import dangerous modules, call the dangerous builtins, or reach
through dunder or private attributes. It reports the first violation in source order with one
of a handful of reasons; this module reproduces those reasons. The exact set of refused dunder
attributes is not published; the ones listed here are the known escape hatches.
"""

from __future__ import annotations

import ast

REFUSED_MODULES = frozenset({
    "subprocess", "socket", "pickle", "marshal", "importlib", "ctypes", "multiprocessing",
    "inspect", "builtins", "code", "pdb", "runpy", "site", "zipimport", "zipfile",
    "logging.config",
})
REFUSED_BUILTINS = frozenset({
    "__import__", "compile", "delattr", "eval", "exec", "getattr", "globals", "locals",
    "setattr", "vars",
})
REFUSED_DUNDERS = frozenset({
    "__class__", "__globals__", "__subclasses__", "__builtins__", "__bases__", "__base__",
    "__mro__", "__dict__", "__code__", "__closure__", "__func__", "__self__", "__getattribute__",
    "__loader__", "__spec__", "__import__", "__reduce__", "__reduce_ex__", "__init_subclass__",
})


def _refused_module(name: str) -> bool:
    """``os.path`` is fine, ``importlib.util`` is not, ``logging.config`` is (by full name)."""
    parts = name.split(".")
    return any(".".join(parts[: i + 1]) in REFUSED_MODULES for i in range(len(parts)))


def _violation(node: ast.AST) -> str | None:
    if isinstance(node, ast.Import):
        for alias in node.names:
            if _refused_module(alias.name):
                return f"Not allowed to import module '{alias.name}'"
    elif isinstance(node, ast.ImportFrom):
        module = node.module or ""
        if _refused_module(module):
            return f"Not allowed to import module '{module}'"
        for alias in node.names:
            if alias.name == "*":
                return "Wildcard imports are not allowed"
            if module and _refused_module(f"{module}.{alias.name}"):
                return f"Not allowed to import module '{module}.{alias.name}'"
    elif isinstance(node, ast.Name):
        if node.id in REFUSED_BUILTINS:
            return f"Not allowed to use '{node.id}'"
        if node.id in REFUSED_DUNDERS:
            return f"Not allowed to access '{node.id}'"
    elif isinstance(node, ast.Attribute):
        attr = node.attr
        if attr in REFUSED_DUNDERS:
            return f"Not allowed to access '{attr}'"
        if attr.startswith("_") and not (attr.startswith("__") and attr.endswith("__")):
            return "Not allowed to access private methods or attributes"
    return None


def _walk_in_order(node: ast.AST):
    """Depth-first, in source order (``ast.walk`` is breadth-first); iterative, so a deeply
    nested expression costs no recursion."""
    stack = [node]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


def python_refusal(tree: ast.AST) -> str | None:
    """The reason the service gives for refusing this module, or None."""
    for node in _walk_in_order(tree):
        reason = _violation(node)
        if reason:
            return reason
    return None
