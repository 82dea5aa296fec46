"""``wflint.core.patterns.lazy``: a regular expression compiled on first use, which answers as
the compiled pattern does."""

from __future__ import annotations

import re

from wflint.core.patterns import LazyPattern, lazy


def test_a_lazy_pattern_compiles_on_first_use_only():
    p = lazy(r"(a)(b)?", re.I)
    assert "_compiled" not in p.__dict__
    assert p.match("Ab").groups() == ("A", "b")
    assert p.compiled is re.compile(r"(a)(b)?", re.I)
    assert p.__dict__["match"] == p.compiled.match  # stored: the next read is a plain attribute hit


def test_every_attribute_answers_as_the_compiled_pattern():
    text = "one 1, two 22, three 333"
    p, real = lazy(r"(\d+)"), re.compile(r"(\d+)")
    assert p.search(text).span() == real.search(text).span()
    assert p.fullmatch("42") is not None and p.fullmatch("4x") is None
    assert p.sub("#", text) == real.sub("#", text) and p.subn("#", text) == real.subn("#", text)
    assert p.split(text) == real.split(text) and p.findall(text) == real.findall(text)
    assert [m.span() for m in p.finditer(text)] == [m.span() for m in real.finditer(text)]
    assert (p.pattern, p.flags, p.groups, p.groupindex) == (real.pattern, real.flags, real.groups, real.groupindex)


def test_each_instance_keeps_its_own_compiled_pattern():
    a, b = lazy("a"), lazy("b")
    assert a.match("a") and not b.match("a") and b.match("b")
    assert isinstance(a, LazyPattern) and isinstance(a.compiled, re.Pattern)
