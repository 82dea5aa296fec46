"""Whether a template reads a field of a name only where the name is known to exist.

The engine renders with Jinja's default ``Undefined``: a missing name is falsy and renders as
nothing, but reading a field of it raises. A template that tests the name first never reads a
field of a missing one::

    {% if big_output %}{{ big_output.which }}{% endif %}
    {% if big_output is defined %}...{% else %}...{% endif %}
    {{ big_output.which if big_output else '-' }}
    {{ big_output and big_output.which }}

``guarded(text, name)`` says whether every field read of ``name`` in ``text`` sits behind such
a test (the true side of the test, or the false side of its negation).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from .template_analysis import environment


@lru_cache(maxsize=4096)
def guarded(text: str, name: str) -> bool:
    """True when ``text`` reads a field of ``name`` only where ``name`` has been tested."""
    from jinja2 import TemplateSyntaxError

    try:
        tree = environment().parse(text)
    except (TemplateSyntaxError, RecursionError):
        return False  # not parsed: the syntax rules speak for it
    try:
        return not _unguarded(tree, name, False)
    except RecursionError:
        return False


def _tests_name(test: Any, name: str) -> bool | None:
    """True when ``test`` holds only if ``name`` exists (``name``, ``name is defined``, a
    conjunction with one of them); False when it holds only if ``name`` is missing or falsy
    (their negation); None otherwise."""
    from jinja2 import nodes

    if isinstance(test, nodes.Name) and test.name == name:
        return True
    if isinstance(test, nodes.Test) and test.name == "defined" and isinstance(test.node, nodes.Name) \
            and test.node.name == name:
        return True
    if isinstance(test, nodes.Test) and test.name == "undefined" and isinstance(test.node, nodes.Name) \
            and test.node.name == name:
        return False
    if isinstance(test, nodes.And):
        if _tests_name(test.left, name) or _tests_name(test.right, name):
            return True
    if isinstance(test, nodes.Not):
        inner = _tests_name(test.node, name)
        return None if inner is None else not inner
    return None


def _unguarded(node: Any, name: str, safe: bool) -> bool:
    """Whether ``node`` reads a field of ``name`` outside a test of it (``safe``: inside one)."""
    from jinja2 import nodes

    if isinstance(node, (nodes.Getattr, nodes.Getitem)) and isinstance(node.node, nodes.Name) \
            and node.node.name == name:
        if not safe:
            return True
    if isinstance(node, nodes.If):
        branches = [(node.test, node.body), *((e.test, e.body) for e in node.elif_)]
        for test, body in branches:
            if _unguarded(test, name, safe):
                return True
            says = _tests_name(test, name)
            if any(_unguarded(child, name, safe or says is True) for child in body):
                return True
        first = _tests_name(node.test, name) if not node.elif_ else None
        return any(_unguarded(child, name, safe or first is False) for child in node.else_)
    if isinstance(node, nodes.CondExpr):
        says = _tests_name(node.test, name)
        return (_unguarded(node.test, name, safe)
                or _unguarded(node.expr1, name, safe or says is True)
                or (node.expr2 is not None and _unguarded(node.expr2, name, safe or says is False)))
    if isinstance(node, nodes.And):
        return _unguarded(node.left, name, safe) or _unguarded(
            node.right, name, safe or _tests_name(node.left, name) is True)
    if isinstance(node, nodes.Or):
        return _unguarded(node.left, name, safe) or _unguarded(
            node.right, name, safe or _tests_name(node.left, name) is False)
    return any(_unguarded(child, name, safe) for child in node.iter_child_nodes())
