"""Jinja parsing as the service does it, with positions: ``analyze(text)``.

The service renders block templates with a ``SandboxedEnvironment``; ``analyze`` parses a
string with that environment's own lexer and parser and returns the syntax error, if any, with
an offset into the string (Jinja itself gives only a line), the variables the template reads
from its context (with the offset of their first use) and the spans of its tags. Results are
cached per string: the same goal or URL template recurs across files, most strings hold no
Jinja at all, and the common ``{{ name }}`` forms skip the parser. ``templates`` says which
strings are templates.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ..document.limits import DEFAULT as DEFAULT_LIMITS, exceeded, template_depth
from . import template_expressions
from ..core.patterns import lazy
from ..core.records import Record, assign

if TYPE_CHECKING:
    from jinja2 import TemplateSyntaxError, nodes
    from jinja2.parser import Parser
    from jinja2.sandbox import SandboxedEnvironment

_ENV: SandboxedEnvironment | None = None


def environment() -> SandboxedEnvironment:
    """The environment the service renders block templates with (default delimiters and
    globals), made on first use: importing Jinja2 costs a fresh process about 20 ms, and most
    templates (``{{ name.attr }}``) never reach its parser."""
    global _ENV
    if _ENV is None:
        from jinja2.sandbox import SandboxedEnvironment

        _ENV = SandboxedEnvironment()
    return _ENV


def __getattr__(name: str) -> Any:
    if name == "ENV":  # the old module constant, for callers that still read it
        return environment()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: names every template can use without the workflow defining them: Jinja's globals (the
#: environment's ``globals``, spelt out so that reading them does not import Jinja2; a test
#: checks the two agree)
JINJA_GLOBALS = frozenset({"cycler", "dict", "joiner", "lipsum", "namespace", "range"})

_DELIMS = ("{{", "{%", "{#")
# ``{{ name }}``, ``{{ name.attr }}``, ``{{ name | filter }}``: by far the most common
# templates; a string made of only these cannot fail to parse, so it skips Jinja's parser
# (which costs about half a millisecond a string)
_SIMPLE = lazy(r"\{\{[ \t]*([A-Za-z_][A-Za-z0-9_]*)((?:\.[A-Za-z_][A-Za-z0-9_]*)*)[ \t]*"
                     r"(?:\|[ \t]*[A-Za-z_][A-Za-z0-9_]*[ \t]*)*\}\}")
# statements that bind names; without them every name a template loads is a context read
_BINDERS = lazy(r"\{%[-+]?\s*(?:for|set|macro|call|with|import|from|filter|block)\b")
# words the Jinja parser treats specially at the start of an expression
_NOT_PLAIN_NAMES = frozenset({
    "not", "and", "or", "in", "is", "if", "else", "true", "false", "none", "True", "False", "None",
})


class SyntaxProblem(Record, slots=True):
    """Jinja's message and line number (1-based, in the template), and the offset in the
    template string where the problem is (the failing token, or the start of that line)."""

    def __init__(
        self,
        message: str,
        lineno: int,
        offset: int,
        #: False when Jinja did not report a syntax error but failed (too deep nesting): the
        #: service fails the same way, but not with a TemplateSyntaxError message
        exact: bool = True,
        #: True when the template was not parsed because it nests deeper than wflint's
        #: ``template-depth`` limit (reported as WF007, not as a syntax error)
        limit: bool = False,
    ) -> None:
        assign(self, locals())


class Read(Record, slots=True):
    """A variable the template reads from its context: its first use (an offset into the
    template) and the attributes read on it (``extract_output.price`` → ``("price",)``)."""

    def __init__(self, name: str, offset: int, attrs: tuple[str, ...] = ()) -> None:
        assign(self, locals())


class Analysis(Record, slots=True):
    def __init__(self, error: SyntaxProblem | None, reads: tuple[Read, ...] = (),
                 #: (start, end) of every Jinja tag (``{{ }}``, ``{% %}``, ``{# #}``) in the string
                 tags: tuple[tuple[int, int, str], ...] = ()) -> None:
        assign(self, locals())


NO_JINJA = Analysis(None)


def has_jinja(text: str) -> bool:
    return "{" in text and any(d in text for d in _DELIMS)


@lru_cache(maxsize=32768)
def analyze(text: str, depth_limit: int = DEFAULT_LIMITS.template_depth) -> Analysis:
    """Parse ``text`` as the service does and collect what it reads (cached per string).
    A template nesting deeper than ``depth_limit`` is not parsed (Jinja's parser recurses)."""
    if not has_jinja(text):
        return NO_JINJA
    simple = _simple(text)
    if simple is not None:
        return simple
    if template_depth(text, depth_limit) > depth_limit:
        message = exceeded("template_depth", "a template nests too deeply", depth_limit)
        return Analysis(SyntaxProblem(message, 1, 0, exact=False, limit=True))
    # plain expressions (comparisons, arithmetic, filters with arguments) are read without
    # Jinja's parser too: the same answer (a test holds them equal), and no Jinja2 import
    expressions = template_expressions.reads(text, JINJA_GLOBALS)
    if expressions is not None:
        found, tags = expressions
        return Analysis(None, tuple(Read(n, o, a) for n, o, a in found), tags)
    return _parse(text)


def _simple(text: str) -> Analysis | None:
    if "{%" in text or "{#" in text:
        return None
    reads: dict[str, tuple[int, list[str]]] = {}
    tags = []
    pos = text.find("{{")
    while pos >= 0:
        m = _SIMPLE.match(text, pos)
        if m is None or m.group(1) in _NOT_PLAIN_NAMES or m.group(1) in JINJA_GLOBALS:
            return None  # Jinja's globals are not reads: the other readers leave them out
        name, chain = m.group(1), m.group(2)
        first, attrs = reads.setdefault(name, (m.start(1), []))
        if chain:
            attr = chain[1:].split(".", 1)[0]
            if attr not in attrs:
                attrs.append(attr)
        tags.append((m.start(), m.end(), "variable"))
        pos = text.find("{{", m.end())
    return Analysis(None, tuple(Read(n, o, tuple(a)) for n, (o, a) in reads.items()), tuple(tags))


_BEGIN_END = {
    "variable_begin": ("variable_end", "variable"),
    "block_begin": ("block_end", "block"),
    "comment_begin": ("comment_end", "comment"),
    "raw_begin": ("raw_end", "raw"),
}


def _parse(text: str) -> Analysis:
    from jinja2 import TemplateSyntaxError
    from jinja2.lexer import TokenStream
    from jinja2.parser import Parser

    env = environment()
    raw: list[tuple[int, int, str]] = []  # (offset, end, type) of every lexer token
    seen: list[tuple[Any, int]] = []  # (parser token, its offset), in stream order
    lex_failed = [False]

    def record():
        cursor = 0
        try:
            for lineno, kind, value in env.lexer.tokeniter(text, None):
                # the lexer does not give offsets: find each token's text from the last one's end
                found = text.find(value, cursor) if value else cursor
                if found < 0:
                    found = cursor
                cursor = found + len(value)
                raw.append((found, cursor, kind))
                yield lineno, kind, value
        except TemplateSyntaxError:
            lex_failed[0] = True
            raise

    def wrapped():
        for token in env.lexer.wrap(record(), None, None):
            seen.append((token, raw[-1][0] if raw else 0))
            yield token

    parser = Parser(env, "")
    try:
        parser.stream = TokenStream(wrapped(), None, None)
        tree = parser.parse()
        return Analysis(None, _reads(text, tree, seen), _tag_spans(raw))
    except TemplateSyntaxError as exc:
        return Analysis(_problem(text, exc, parser, seen, raw, lex_failed[0]), (), _tag_spans(raw))
    except RecursionError:  # Jinja's parser and node walks recurse: thousands of nested brackets
        return Analysis(SyntaxProblem("expressions nest too deeply for Jinja's parser", 1, 0, exact=False))


def _problem(text: str, exc: TemplateSyntaxError, parser: Parser, seen, raw, in_lexer: bool) -> SyntaxProblem:
    lineno = exc.lineno or 1
    if in_lexer or not seen:
        offset = raw[-1][1] if raw else 0  # where the lexer stopped
        if raw and raw[-1][2].endswith("_begin"):
            offset = raw[-1][0]  # a comment or raw block never closed: its opener
        m = re.search(r" at (\d+)$", exc.message or "")
        if m:
            offset = int(m.group(1))
    else:
        offset = _failing_offset(text, parser.stream.current, seen, raw)
    if "\r" in text or text.count("\n", 0, offset) + 1 != lineno:
        offset = _line_start(text, lineno)  # the offset is not on Jinja's line: use the line
    return SyntaxProblem(exc.message or str(exc), lineno, min(max(offset, 0), len(text)))


_OPENERS = frozenset({"if", "for", "macro", "call", "filter", "with", "autoescape", "block", "trans"})


def _failing_offset(text: str, current: Any, seen: list[tuple[Any, int]], raw) -> int:
    """Where the parser stopped: the token it failed on; at the end of the template, the
    tag closer it had just read, the ``{{``/``{%`` left open, or the innermost block
    statement never closed."""
    for token, offset in reversed(seen):
        if token is current:
            return offset
    last, last_offset = seen[-1]
    if last.type in ("variable_end", "block_end"):
        return last_offset
    open_tag = None
    for start, _, kind in raw:
        if kind in ("variable_begin", "block_begin"):
            open_tag = start
        elif kind in ("variable_end", "block_end"):
            open_tag = None
    if open_tag is not None:
        return open_tag
    stack: list[int] = []
    after_begin = False
    for token, offset in seen:
        if after_begin and token.type == "name":
            if token.value in _OPENERS:
                stack.append(offset)
            elif token.value.startswith("end") and stack:
                stack.pop()
        after_begin = token.type == "block_begin"
    return stack[-1] if stack else len(text.rstrip())


def _line_start(text: str, lineno: int) -> int:
    """The first non-blank character of a 1-based line of ``text``."""
    offset = 0
    for _ in range(lineno - 1):
        nl = text.find("\n", offset)
        if nl < 0:
            break
        offset = nl + 1
    while offset < len(text) and text[offset] in " \t":
        offset += 1
    return offset


def _tag_spans(raw: list[tuple[int, int, str]]) -> tuple[tuple[int, int, str], ...]:
    out, open_at, closer = [], None, None
    for start, end, kind in raw:
        if open_at is None and kind in _BEGIN_END:
            open_at, closer = start, _BEGIN_END[kind]
        elif open_at is not None and closer is not None and kind == closer[0]:
            out.append((open_at, end, closer[1]))
            open_at = None
    return tuple(out)


def _reads(text: str, tree: nodes.Template, seen: list[tuple[Any, int]]) -> tuple[Read, ...]:
    from jinja2 import nodes

    loads: list[nodes.Name] = []
    chains: list[Any] = []
    for node in tree.find_all((nodes.Name, nodes.Getattr, nodes.Getitem)):
        if isinstance(node, nodes.Name):
            if node.ctx == "load":
                loads.append(node)
        else:
            chains.append(node)
    if not loads:
        return ()
    if _BINDERS.search(text):  # {% set %}, {% for %}, macros ... bind names
        names = _undeclared(tree)
    else:
        names = {n.name for n in loads} - JINJA_GLOBALS
    attrs: dict[str, list[str]] = {n: [] for n in names}
    for node in chains:
        inner = node.node
        if isinstance(inner, nodes.Name) and inner.name in attrs:
            key = node.attr if isinstance(node, nodes.Getattr) else getattr(node.arg, "value", None)
            if isinstance(key, str) and key not in attrs[inner.name]:
                attrs[inner.name].append(key)
    first_line: dict[str, int] = {}
    for n in loads:
        if n.name in names:
            first_line[n.name] = min(first_line.get(n.name, n.lineno), n.lineno)
    offsets: dict[str, int] = {}
    prev = None
    for token, offset in seen:
        if token.type == "name" and token.value in names and token.value not in offsets:
            # after '.', '|', 'is', 'for' or 'set' a name is an attribute, a filter, a test or
            # a target, not a read
            after_operator = prev is not None and (
                prev.type in ("dot", "pipe") or (prev.type == "name" and prev.value in ("is", "for", "set")))
            if not after_operator and token.lineno >= first_line[token.value]:
                offsets[token.value] = offset
        prev = token
    ordered = sorted(names, key=lambda n: (offsets.get(n, len(text)), n))
    return tuple(Read(n, offsets.get(n, 0), tuple(attrs[n])) for n in ordered)


@lru_cache(maxsize=1)
def _fallback() -> tuple[type, ...]:
    """The statements ``_undeclared`` leaves to ``find_undeclared_variables``."""
    from jinja2 import nodes

    return (nodes.Macro, nodes.CallBlock, nodes.FilterBlock, nodes.With, nodes.Import, nodes.FromImport,
            nodes.Block, nodes.Scope, nodes.OverlayScope, nodes.ScopedEvalContextModifier)


class _Unsupported(Exception):
    pass


def _undeclared(tree: nodes.Template) -> set[str]:
    """The names a template reads from its context, for templates whose only binding
    statements are ``{% for %}`` and ``{% set %}`` (the rest ask ``find_undeclared_variables``,
    which compiles the template and costs ten times more)."""
    from jinja2 import meta

    try:
        out: set[str] = set()
        _body(tree.body, set(), out)
        return out - JINJA_GLOBALS  # as find_undeclared_variables: globals are not context reads
    except _Unsupported:
        return meta.find_undeclared_variables(tree)


def _body(stmts, bound: set[str], out: set[str]) -> None:
    for node in stmts:
        _visit(node, bound, out)


def _visit(node: nodes.Node, bound: set[str], out: set[str]) -> None:
    from jinja2 import nodes  # imported by then (the tree is Jinja's): a dictionary look-up

    if isinstance(node, _fallback()):
        raise _Unsupported
    if isinstance(node, nodes.Name):
        if node.ctx == "load" and node.name not in bound:
            out.add(node.name)
    elif isinstance(node, nodes.NSRef):
        if node.name not in bound:
            out.add(node.name)
    elif isinstance(node, nodes.For):
        _visit(node.iter, bound, out)
        inner = bound | _stored(node.target) | {"loop"}
        if node.test is not None:
            _visit(node.test, inner, out)
        _body(node.body, set(inner), out)  # a for loop is a scope: its sets stay inside
        _body(node.else_, set(bound), out)
    elif isinstance(node, nodes.Assign):
        _visit(node.node, bound, out)
        _visit(node.target, bound, out)
        bound |= _stored(node.target)
    elif isinstance(node, nodes.AssignBlock):
        _body(node.body, set(bound), out)
        if node.filter is not None:
            _visit(node.filter, bound, out)
        bound |= _stored(node.target)
    elif isinstance(node, nodes.If):
        # a name set in one branch may be unset after the if: Jinja then reads the context
        _visit(node.test, bound, out)
        for branch in (node.body, node.elif_, node.else_):
            _body(branch, set(bound), out)
    else:
        for child in node.iter_child_nodes():
            _visit(child, bound, out)


def _stored(target: nodes.Node) -> set[str]:
    from jinja2 import nodes

    return {n.name for n in target.find_all(nodes.Name) if n.ctx in ("store", "param")} | (
        {target.name} if isinstance(target, nodes.Name) else set())


# --------------------------------------------------------------------------- code blocks


def mask_python_comments(code: str) -> str:
    """``code`` with every Python ``#`` comment blanked out (same length, line breaks kept),
    as the service masks Jinja inside comments before parsing a code block's template. A ``#``
    inside a string literal or inside a Jinja tag is not a comment."""
    if "#" not in code:
        return code
    out = list(code)
    i, n, quote = 0, len(code), ""
    while i < n:
        c = code[i]
        if quote:
            if c == "\\":
                i += 2
                continue
            if code.startswith(quote, i):
                i, quote = i + len(quote), ""
                continue
            if c == "\n" and len(quote) == 1:
                quote = ""  # an unterminated one-line string ends at the line break
            i += 1
        elif c == "{" and code.startswith(("{{", "{%"), i):
            close = code.find("}}" if code[i + 1] == "{" else "%}", i + 2)
            i = n if close < 0 else close + 2
        elif c in "\"'":
            quote = code[i:i + 3] if code[i:i + 3] in ('"""', "'''") else c
            i += len(quote)
        elif c == "#":
            end = code.find("\n", i)
            end = n if end < 0 else end
            out[i:end] = " " * (end - i)
            i = end
        else:
            i += 1
    return "".join(out)


def compile_error(text: str) -> tuple[str, int] | None:
    """(message, line) when Jinja parses ``text`` but cannot compile it (an unknown filter or
    test: "No filter named 'x'."), as the service's compile of a code block finds; else None."""
    from jinja2 import TemplateSyntaxError

    try:
        # compiled without folding: the service's compile would compute constant expressions
        # (``{{ 9**999999999 }}`` never finishes), which ``costly_constant`` reports instead
        _bounded_environment().compile(text)
    except TemplateSyntaxError as exc:
        return exc.message or str(exc), exc.lineno or 1
    return None


_BOUNDED: Any = None
# a constant the service folds has literals (or bracketed constants) on both sides of its
# operator, or before its filter: templates without one skip Jinja's parser (and its import)
_OPERATOR_IN_TAG = lazy(r"\{[{%][^}]*?(?:[\d'\")\]]\s*(?:\*\*?|\+|%)\s*[-\d'\"(\[]"
                        r"|[\d'\")\]]\s*\|\s*(?:center|indent|format|replace)\b)")


def _bounded_environment() -> Any:
    global _BOUNDED
    if _BOUNDED is None:
        from .jinja_bounds import BoundedEnvironment

        _BOUNDED = BoundedEnvironment()
    return _BOUNDED


@lru_cache(maxsize=4096)
def costly_constant(text: str) -> tuple[str, int] | None:
    """(reason, line) when the service's Jinja would fold, while compiling ``text``, a constant
    expression that does not finish (a huge power or repetition); else None. Only templates
    that parse and have an arithmetic operator or a widening filter inside a tag are parsed again."""
    if not has_jinja(text) or _OPERATOR_IN_TAG.search(text) is None:
        return None
    if analyze(text).error is not None:
        return None
    from .jinja_bounds import costly_constants

    try:
        tree = environment().parse(text)
    except Exception:  # noqa: BLE001 - parsing problems are the syntax rule's
        return None
    return next(costly_constants(tree), None)
