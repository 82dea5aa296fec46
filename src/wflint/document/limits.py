"""The limits hostile input meets: one place, one class of defaults.

A definition is a few kilobytes; these limits sit orders of magnitude above any real one and
far below what would make a check slow. Each is checked *before* the work it guards (the size
before the bytes are read, the depth as the tree is built, the alias expansion as aliases are
met, the template depth before Jinja parses), and each ends in a WF007 diagnostic that names it,
so a user can raise it: ``--limit blocks=20000`` or, in ``.wflint.toml``::

    [limits]
    blocks = 20000

The mock server reuses the same ``Limits`` (its body size, the depth of what it parses), so
the linter and the mock refuse the same things.
"""

from __future__ import annotations

from ..core.patterns import lazy
from ..core.records import Record, assign, field_names, replace

CODE, NAME = "WF007", "limit-exceeded"


class Limits(Record, slots=True):
    """Every limit, with its default. Names are the config keys (``_`` or ``-`` alike)."""

    def __init__(
        self,
        #: bytes of one file (standard input too) or request body
        file_bytes: int = 4 * 1024 * 1024,
        #: nesting of mappings and sequences in JSON and YAML
        depth: int = 500,
        #: values (scalars, mappings, sequences) in one document: each costs about 450 bytes
        #: as a positioned node, so this bounds memory where the file size alone would not
        nodes: int = 500_000,
        #: nodes that YAML aliases may add to a document as it is built ("billion laughs")
        alias_nodes: int = 200_000,
        #: characters of scalar text that YAML aliases may add (one long string aliased many times)
        alias_chars: int = 8 * 1024 * 1024,
        #: characters of one string value (a prompt, a code block, ...)
        string_chars: int = 1024 * 1024,
        #: blocks in one workflow, loop bodies included
        blocks: int = 5_000,
        #: parameters in one workflow
        parameters: int = 5_000,
        #: loops nested in loops
        loop_depth: int = 50,
        #: nesting of Jinja block tags and brackets inside one template
        template_depth: int = 50,
        #: nesting of brackets and indentation in one Python code block
        code_depth: int = 100,
    ) -> None:
        assign(self, locals())

    def with_values(self, values: dict[str, object], origin: str = "limits") -> "Limits":
        """A copy with ``values`` (config keys, ``-`` or ``_``) applied; ValueError on a bad one."""
        known = set(field_names(self))
        changes: dict[str, int] = {}
        for key, value in values.items():
            name = key.replace("-", "_")
            if name not in known:
                raise ValueError(f"{origin}: unknown limit {key!r} (known: {', '.join(sorted(k.replace('_', '-') for k in known))})")
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{origin}: limit {key!r} must be a positive integer, not {value!r}")
            changes[name] = value
        return replace(self, **changes)


DEFAULT = Limits()


def exceeded(limit: str, what: str, value: int) -> str:
    """The message of a WF007 diagnostic: what went over, and how to raise the limit."""
    key = limit.replace("_", "-")
    return (f"{what}: more than wflint's '{key}' limit of {value}; checking stops here "
            f"(raise it with --limit {key}=N or [limits] in .wflint.toml)")


# ------------------------------------------------------------------------ cheap depth scans

_BRACKETS = lazy(r"[\[\](){}]")
_OPENERS = frozenset("[({")


def bracket_depth(text: str, start: int = 0, end: int | None = None, stop: int | None = None) -> int:
    """The deepest nesting of ``()[]{}`` in ``text[start:end]`` (closers never go below zero);
    scanning ends as soon as the depth passes ``stop``."""
    depth = deepest = 0
    for m in _BRACKETS.finditer(text, start, len(text) if end is None else end):
        if m.group() in _OPENERS:
            depth += 1
            if depth > deepest:
                deepest = depth
                if stop is not None and deepest > stop:
                    break
        elif depth:
            depth -= 1
    return deepest


_JINJA_TAG = lazy(r"\{%[-+]?\s*(end)?(\w*)|\{\{")
_JINJA_BLOCKS = frozenset(("if", "for", "macro", "call", "filter", "block", "with", "autoescape", "raw", "trans"))


def template_depth(text: str, stop: int) -> int:
    """How deep a Jinja template nests, counting block tags (``{% if %}`` ... ``{% endif %}``)
    and the brackets inside each tag: what Jinja's recursive parser descends. Stops early
    once past ``stop``."""
    blocks = deepest = 0
    for m in _JINJA_TAG.finditer(text):
        if m.group() == "{{" or m.group(2) not in _JINJA_BLOCKS:
            closer = "}}" if m.group() == "{{" else "%}"
            end = text.find(closer, m.end())
            inner = bracket_depth(text, m.end(), None if end < 0 else end, stop)
            deepest = max(deepest, blocks + inner)
        elif m.group(1):
            blocks = max(blocks - 1, 0)
        else:
            blocks += 1
            deepest = max(deepest, blocks)
        if deepest > stop:
            break
    return deepest


def code_depth(code: str, stop: int) -> int:
    """How deep Python code nests for the parser: brackets and indentation levels. (Runs of
    unary operators recurse too, but the parser itself fails fast on them: the caller turns
    its RecursionError into the same limit.)"""
    deepest = bracket_depth(code, stop=stop)
    levels: list[int] = [0]
    for line in code.splitlines():
        stripped = line.lstrip(" \t")
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(line) - len(stripped)
        while len(levels) > 1 and indent < levels[-1]:
            levels.pop()
        if indent > levels[-1]:
            levels.append(indent)
            if len(levels) - 1 > deepest:
                deepest = len(levels) - 1
                if deepest > stop:
                    break
    return deepest


class AS_RULE:  # noqa: N801 - stands in for a rule module where a stage reports WF007 itself
    """What ``Workflow.diag`` needs to report WF007 (the rule module sits in a higher layer)."""

    CODE, NAME, SEVERITY = CODE, NAME, "error"
