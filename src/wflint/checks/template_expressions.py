"""What a template of plain expressions reads, without Jinja's parser: ``reads(text)``.

Most templates that are more than ``{{ name.attr }}`` are still a few expressions in ``{{ }}``
tags: a comparison (``{{ order.status == 'backordered' }}``), arithmetic
(``{{ current_index + 1 }}``), filters with arguments (``{{ codes | join(', ') }}``), a
conditional expression (``{{ 'yes' if p.lit else 'no' }}``).
For a text made only of such tags and plain text, ``reads`` gives the ``Analysis`` that
``template_analysis`` would get from Jinja's parser, without importing Jinja2 (about 20 ms of a
process's start-up). Anything outside that grammar (statements, comments, conditional
expressions, tests, whitespace control, list or dict literals, escapes in strings, line breaks
other than ``\\n``) gives None, and Jinja decides; so does anything the grammar accepts but
Jinja might not. The test suite holds both to the same answer on every template of the corpus
and on generated ones.

The attributes read on a name are listed in the order Jinja's ``find_all`` walk meets them:
source order for every construct the grammar accepts (``Add(left, right)``, ``Compare(expr,
ops)``, ``Filter(node, args, kwargs)``, ``Call(node, args, kwargs)``) except the conditional
expression, whose node holds the test first (``CondExpr(test, expr1, expr2)``).

``filters(text)`` lists the filters such a template applies, in the same walk's order, each
with what it is applied to when that is a name read through attributes and constant keys
(``out[0].x | tojson``: ``("out", (0, "x"))``): what WF701 asks Jinja's tree for.
"""

from __future__ import annotations

from typing import Any

from ..core.patterns import lazy

_TOKEN = lazy(
    r"(?P<ws>[ \t\n]+)"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<float>[0-9]+\.[0-9]+)(?![0-9A-Za-z_.])"
    r"|(?P<int>0|[1-9][0-9]*)(?![0-9A-Za-z_.])"
    r"|(?P<string>'[^'\\{}%#\n\r]*'|\"[^\"\\{}%#\n\r]*\")"
    r"|(?P<op>==|!=|<=|>=|//|\*\*|[<>+\-*/%~.|()\[\],=])"
)
_CONSTANTS = frozenset({"true", "false", "none", "True", "False", "None"})
#: names the grammar does not read as variables: operators spelt as words, and words that
#: start other constructs (tests, conditional expressions, statements)
_WORDS = frozenset({
    "and", "or", "not", "in", "is", "if", "else", "elif", "for", "set", "recursive", "with", "without",
    "context", "import", "from", "as", "macro", "call", "filter", "block", "extends", "include", "raw",
    "endraw", "pluralize", "trans", "endtrans",
})
_COMPARE = frozenset({"==", "!=", "<", ">", "<=", ">="})
_ARITHMETIC = frozenset({"+", "-", "*", "/", "//", "%", "**", "~"})
#: more unary operators in a row than this, or more brackets deep, are left to Jinja
_MAX_RUN = 20

#: what a filter is applied to when Jinja's node for it is a ``Name`` under ``Getattr`` and
#: ``Getitem`` with constant keys: the name and the keys, innermost first; None otherwise
Chain = tuple[str, tuple[str | int, ...]] | None


class _Unsupported(Exception):
    pass


class _Expression:
    """A recursive-descent reader of one tag's tokens (kind, value, offset), recording each
    name read and the first attribute or string key read on it, and every filter applied.
    Each level returns the ``Chain`` its expression is (None for anything else)."""

    def __init__(self, tokens: list[tuple[str, str, int]]) -> None:
        self.tokens = tokens
        self.i = 0
        self.depth = 0
        #: (name, offset) of every name read, in source order
        self.loads: list[tuple[str, int]] = []
        #: (name, key) of every read whose first accessor is ``.attr`` or ``['key']``
        self.chains: list[tuple[str, Any]] = []
        #: (filter name, the chain it is applied to) in Jinja's ``find_all`` order
        self.filters: list[tuple[str, Chain]] = []

    def peek(self, ahead: int = 0) -> tuple[str, str, int] | None:
        j = self.i + ahead
        return self.tokens[j] if j < len(self.tokens) else None

    def at(self, value: str) -> bool:
        token = self.peek()
        return token is not None and token[0] in ("op", "name") and token[1] == value

    def take(self) -> tuple[str, str, int]:
        token = self.peek()
        if token is None:
            raise _Unsupported
        self.i += 1
        return token

    def expect(self, value: str) -> None:
        if not self.at(value):
            raise _Unsupported
        self.i += 1

    def read(self) -> None:
        """The whole tag: one expression, nothing after it."""
        self.expression()
        if self.peek() is not None:
            raise _Unsupported

    def expression(self) -> Chain:
        """``x if test else y`` (Jinja's conditional expression, whose node lists the test
        first: its reads and filters come first), or a plain ``or_expression``."""
        start, filters_start = len(self.chains), len(self.filters)
        bare = self.or_expression()
        while self.at("if"):
            self.i += 1
            middle, filters_middle = len(self.chains), len(self.filters)
            self.or_expression()
            self.chains[start:] = self.chains[middle:] + self.chains[start:middle]
            self.filters[filters_start:] = self.filters[filters_middle:] + self.filters[filters_start:filters_middle]
            bare = None
            if self.at("else"):
                self.i += 1
                self.expression()
        return bare

    def or_expression(self) -> Chain:
        """Operands joined by binary operators: Jinja accepts any such alternation (every
        level of its grammar is ``left (op right)*``). ``not`` may open the expression and each
        operand after ``and``/``or``; elsewhere Jinja reads it as a name, which this leaves to
        it. Returns the chain when the expression is one operand (Jinja's parentheses make no
        node, so ``(name).attr`` reads ``attr`` on ``name``)."""
        self.depth += 1
        if self.depth > _MAX_RUN:
            raise _Unsupported
        bare = self.operand(may_negate=True)
        while True:
            if self.at("and") or self.at("or"):
                self.i += 1
                self.operand(may_negate=True)
                bare = None
                continue
            if self.at("in"):
                self.i += 1
            elif self.at("not") and (self.peek(1) or ("", "", 0))[1] == "in" and self.peek(1)[0] == "name":
                self.i += 2
            else:
                token = self.peek()
                if token is None or token[0] != "op" or token[1] not in _COMPARE | _ARITHMETIC:
                    break
                self.i += 1
            self.operand(may_negate=False)
            bare = None
        self.depth -= 1
        return bare

    def operand(self, may_negate: bool) -> Chain:
        """One operand; its chain when it is a name read through attributes and keys."""
        negated = signed = 0
        while may_negate and self.at("not"):
            self.i += 1
            negated += 1
            if negated > _MAX_RUN:
                raise _Unsupported
        while self.at("-") or self.at("+"):
            self.i += 1
            signed += 1
            if negated + signed > _MAX_RUN:
                raise _Unsupported
        mark = len(self.filters)
        chain = self.postfixed(self.primary())
        # ``-x | f`` is Filter(Neg(x)), ``not x | f`` is Not(Filter(x)); a filter after the
        # first is applied to a Filter. The walk meets the last filter of a run first, then
        # what the first is applied to, then each one's arguments (added as they are read).
        applied: list[tuple[str, Chain]] = []
        while self.at("|"):
            self.i += 1
            kind, name, _ = self.take()
            if kind != "name" or self.at("."):
                raise _Unsupported  # a dotted filter name: left to Jinja
            applied.insert(0, (name, None if applied or signed else chain))
            if self.at("("):
                self.arguments()
        self.filters[mark:mark] = applied
        return None if negated or signed or applied else chain

    def primary(self) -> Chain:
        """The chain of this operand's name, if it is a name (or one in parentheses)."""
        kind, value, offset = self.take()
        if kind == "name":
            if value in _WORDS:
                raise _Unsupported
            if value in _CONSTANTS:
                return None
            self.loads.append((value, offset))
            return value, ()
        if kind in ("string", "int", "float"):
            return None
        if kind == "op" and value == "(":
            inner = self.expression()
            self.expect(")")
            return inner
        raise _Unsupported

    def postfixed(self, chain: Chain) -> Chain:
        """Attributes, keys and calls after an operand: the chain they make (None after a
        call). The first accessor on a bare name is recorded as an attribute read."""
        while True:
            bare = chain is not None and not chain[1]
            if self.at("."):
                self.i += 1
                kind, value, _ = self.take()
                if kind != "name":
                    raise _Unsupported
                key: str | int = value
            elif self.at("["):
                self.i += 1
                kind, value, _ = self.take()
                if kind not in ("string", "int"):
                    raise _Unsupported
                self.expect("]")
                key = value[1:-1] if kind == "string" else int(value)
            elif self.at("("):
                self.arguments()
                chain = None
                continue
            else:
                return chain
            if bare and isinstance(key, str):
                self.chains.append((chain[0], key))
            if chain is not None:
                chain = chain[0], (*chain[1], key)

    def arguments(self) -> None:
        """``( expr, ..., name=expr, ... )``: positional arguments before keywords."""
        self.expect("(")
        keywords = False
        while not self.at(")"):
            token, after = self.peek(), self.peek(1)
            if token is not None and token[0] == "name" and after is not None and after[1] == "=" \
                    and after[0] == "op":
                self.i += 2
                keywords = True
            elif keywords:
                raise _Unsupported
            self.expression()
            if not self.at(","):
                break
            self.i += 1
            if self.at(")"):
                raise _Unsupported  # a trailing comma: left to Jinja
        self.expect(")")


def _tokens(text: str, start: int, end: int) -> list[tuple[str, str, int]]:
    out = []
    pos = start
    match = _TOKEN.match
    while pos < end:
        m = match(text, pos, end)
        if m is None:
            raise _Unsupported
        kind = m.lastgroup
        if kind != "ws":
            out.append((kind, m.group(), pos))
        pos = m.end()
    return out


def _tags(text: str) -> list[tuple[int, int, _Expression]] | None:
    """(start, end, its read tokens) of every ``{{ }}`` tag, or None when ``text`` is not
    made of plain expression tags (see the module's docstring)."""
    if "\r" in text or "{%" in text or "{#" in text:
        return None
    out = []
    try:
        pos = text.find("{{")
        while pos >= 0:
            end = text.find("}}", pos + 2)
            if end < 0 or text[pos + 2:pos + 3] in ("-", "+") or text[end - 1:end] in ("-", "+"):
                return None
            tokens = _tokens(text, pos + 2, end)
            if not tokens:
                return None
            reader = _Expression(tokens)
            reader.read()
            out.append((pos, end, reader))
            pos = text.find("{{", end + 2)
    except (_Unsupported, RecursionError):
        return None
    return out


def filters(text: str) -> tuple[tuple[str, Chain], ...] | None:
    """(filter name, the chain it is applied to) of every filter, in the order of Jinja's
    ``find_all(nodes.Filter)`` walk, or None when ``text`` is not made of plain expression
    tags (see the module's docstring)."""
    tags = _tags(text)
    if tags is None:
        return None
    return tuple(f for _, _, reader in tags for f in reader.filters)


def reads(text: str, globals_: frozenset[str]) -> tuple[tuple[tuple[str, int, tuple[str, ...]], ...],
                                                       tuple[tuple[int, int, str], ...]] | None:
    """((name, offset, attrs) of every variable read, (start, end, "variable") of every tag)
    as ``template_analysis`` makes them from Jinja's parse, or None when ``text`` is not made
    of plain expression tags (see the module's docstring)."""
    read = _tags(text)
    if read is None:
        return None
    loads: list[tuple[str, int]] = []
    chains: list[tuple[str, Any]] = []
    seen: list[tuple[str, str, int]] = []  # every token, in stream order, with ("tag", ...) between tags
    tags = []
    for pos, end, reader in read:
        loads.extend(reader.loads)
        chains.extend(reader.chains)
        seen.append(("tag", "{{", pos))
        seen.extend(reader.tokens)
        seen.append(("tag", "}}", end))
        tags.append((pos, end + 2, "variable"))
    if not loads:
        return (), tuple(tags)
    names = {n for n, _ in loads} - globals_
    attrs: dict[str, list[str]] = {n: [] for n in names}
    for name, key in chains:
        if name in attrs and key not in attrs[name]:
            attrs[name].append(key)
    # line numbers as Jinja's tokens carry them, counted once along the text
    line_of: dict[int, int] = {}
    line, counted = 1, 0
    for _, _, offset in seen:
        line += text.count("\n", counted, offset)
        counted = offset
        line_of[offset] = line
    first_line: dict[str, int] = {}
    for name, offset in loads:
        if name in names and name not in first_line:
            first_line[name] = line_of[offset]
    offsets: dict[str, int] = {}
    prev = None
    for kind, value, offset in seen:
        if kind == "name" and value in names and value not in offsets:
            # as Jinja's token walk (template_analysis._reads): after '.', '|', 'is', 'for' or
            # 'set' a name is an attribute, a filter, a test or a target, not a read
            after_operator = prev is not None and (
                (prev[0] == "op" and prev[1] in (".", "|")) or (prev[0] == "name" and prev[1] in ("is", "for", "set")))
            if not after_operator and line_of[offset] >= first_line[value]:
                offsets[value] = offset
        prev = (kind, value)
    ordered = sorted(names, key=lambda n: (offsets.get(n, len(text)), n))
    return tuple((n, offsets.get(n, 0), tuple(attrs[n])) for n in ordered), tuple(tags)
