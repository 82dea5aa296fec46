"""Templates of plain expressions are read without Jinja's parser (``template_expressions``),
and the answer is Jinja's: the same reads (name, offset, attributes in order), tag spans and
filters (name and what each is applied to, in Jinja's tree order), on every template of the
fixtures, on hand-picked cases and on generated ones."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from wflint.api import check_bytes
from wflint.checks import template_analysis as ta
from wflint.checks import template_expressions as te
from wflint.rules import wf701_loop_output_tojson as wf701

ROOT = Path(__file__).resolve().parents[1]


def jinjas(text: str):
    full = ta._parse(text)
    return full.error, (tuple((r.name, r.offset, r.attrs) for r in full.reads), full.tags)


def jinjas_filters(text: str):
    from jinja2 import nodes

    tree = ta.environment().parse(text)
    return tuple((f.name, wf701._chain(f.node)) for f in tree.find_all(nodes.Filter))


def assert_same_as_jinja(text: str) -> bool:
    """True when ``text`` is read without Jinja (and then exactly as Jinja reads it)."""
    fast = te.reads(text, ta.JINJA_GLOBALS)
    filters = te.filters(text)
    assert (fast is None) == (filters is None), text
    if fast is None:
        return False
    error, expected = jinjas(text)
    assert error is None, (text, error)
    assert fast == expected, text
    assert filters == jinjas_filters(text), text
    return True


CASES = [
    "{{ order.status == 'backordered' }}",
    "Add row {{ current_index + 1 }} for {{ current_value }}",
    "{{ codes | join(', ') }}",
    "{{ name | replace(' ', '_') | lower }}",
    "{{ out | map('last') | map(attribute='output_value') | list }}",
    "{{ quote.total > budget * current_value.pallets }}",
    "{{ search.findings | length > 0 }}",
    "{{ not a.b and not c }}",
    "{{ a not in b.c }}",
    "{{ range(3) }} {{ dict(a=1) }}",
    "{{ x(attribute) }} {{ attribute }}",
    "{{ y | f(attribute=1) }} {{ attribute }}",  # a keyword's name is found first, as Jinja does
    "{{ a['k'].z + a.q }}",
    "{{ a[0].z }} {{ a.w }}",
    "{{ -a.b }} {{ (c).d }} {{ (e.f).g }}",
    "{{ (a.b + c.d) * 2 }}",
    "{{ a.b(c.d).e }}",
    "{{ 1.5 + 2 }} {{ 'x' ~ y.z }}",
    "line1\n{{ a.b }}\nline3 {{ b.c == a.d }}",
    "{{ 'yes' if p.lit else 'no' }}",
    "{{ a.x if a.y else a.z }}",  # the test's reads come first: (y, x, z)
    "{{ a.x if a.y if a.w else a.z }}",
    "{{ a.x if a.y else a.z if a.w else a.v }}",
    "{{ f(a.x if a.y) }} {{ (a.q if a.r).s }}",
    "}} {{ a }}} {{ b }}",
    "{{ each_output | tojson }} {{ each_output[0][0].output_value | tojson }}",
    "{{ x_output[0]['output_parameter'] | tojson }} {{ (x_output[1]).y[2] | tojson }}",
    "{{ -x_output | tojson }} {{ not x_output | tojson }} {{ x_output() | tojson }}",
    "{{ a | f(b | g(c | tojson), k=d | tojson) | h }}",  # the last filter of a run comes first
    "{{ (a | f)(b | g).c | h }} {{ a.b | tojson if c | f else d | g }}",
]


@pytest.mark.parametrize("text", CASES)
def test_plain_expressions_are_read_as_jinja_reads_them(text):
    assert assert_same_as_jinja(text)


@pytest.mark.parametrize("text", [
    "{% if a %}{{ b }}{% endif %}", "{# note #}{{ a + 1 }}", "{{ a is defined }}", "{{- a + 1 }}", "{{ a + 1 -}}",
    "{{ a + not b }}", "{{ [a, b] }}", "{{ {'k': a} }}", "{{ a[1:2] }}", "{{ 'a\\'b' ~ c }}", "{{ a +\r\n b }}",
    "{{ a | f.g }}", "{{ f(a,) }}", "{{ f(k=1, a) }}", "{{ }}", "{{ a + }}", "{{ a b }}", "{{ 01 + a }}", "{{ a ==",
    "{{ for + a }}", "{{ " + "-" * 50 + "a }}", "{{ " + "(" * 30 + "a" + ")" * 30 + " }}",
])
def test_anything_else_is_left_to_jinja(text):
    assert te.reads(text, ta.JINJA_GLOBALS) is None


def test_every_template_of_the_fixtures_reads_the_same():
    seen: set[str] = set()
    spy = te.reads

    def recording(text, globals_):
        seen.add(text)
        return spy(text, globals_)

    te.reads = recording
    try:
        for path in sorted(p for d in ("fixtures",) for p in (ROOT / d).rglob("*") if p.suffix in (".yaml", ".yml", ".json")):
            ta.analyze.cache_clear()
            check_bytes(path.read_bytes(), str(path))
    finally:
        te.reads = spy
        ta.analyze.cache_clear()
    read = [t for t in seen if assert_same_as_jinja(t)]
    assert len(seen) > 50 and len(read) > len(seen) // 3  # the fixtures exercise the fast path


NAMES = ["a", "b", "c", "loop", "range", "attribute", "i", "each_output"]
FILTERS = ["lower", "join", "map", "length", "default", "tojson"]


def _expression(rng: random.Random, depth: int = 0) -> str:
    if depth < 3 and rng.random() < 0.15:
        out = f"{_alternation(rng, depth + 1)} if {_alternation(rng, depth + 1)}"
        return out + (" else " + _expression(rng, depth + 1) if rng.random() < 0.7 else "")
    return _alternation(rng, depth)


def _alternation(rng: random.Random, depth: int) -> str:
    if depth > 3 or rng.random() < 0.35:
        return _operand(rng, depth)
    op = rng.choice(["+", "-", "*", "/", "//", "%", "**", "~", "==", "!=", "<", ">", "<=", ">=", "and", "or", "in", "not in"])
    right = _alternation(rng, depth + 1)
    if op in ("and", "or") and rng.random() < 0.3:
        right = "not " + right
    space = " " if op[0].isalpha() else rng.choice([" ", " ", ""])
    return f"{_alternation(rng, depth + 1)}{space}{op}{space}{right}"


def _operand(rng: random.Random, depth: int) -> str:
    r = rng.random()
    if r < 0.15:
        base = rng.choice(["1", "0", "2.5", "'s'", '"q"', "true", "none", "False"])
    elif r < 0.25 and depth < 4:
        base = "(" + _expression(rng, depth + 1) + ")"
    else:
        base = rng.choice(NAMES)
    for _ in range(rng.randint(0, 3)):
        k = rng.random()
        if k < 0.5:
            base += "." + rng.choice(NAMES + ["status", "x", "output_value"])
        elif k < 0.7:
            base += "[" + rng.choice(["0", "'k'", '"z"', "1", "'output_parameter'"]) + "]"
        elif depth < 4:
            base += "(" + ", ".join(_expression(rng, depth + 2) for _ in range(rng.randint(0, 2))) + ")"
    for _ in range(rng.randint(0, 2)):
        base += " | " + rng.choice(FILTERS)
        if rng.random() < 0.5 and depth < 4:
            args = [_expression(rng, depth + 2) for _ in range(rng.randint(0, 2))]
            if rng.random() < 0.4:
                args.append(rng.choice(NAMES) + "=" + _expression(rng, depth + 2))
            base += "(" + ", ".join(args) + ")"
    return ("-" + base) if rng.random() < 0.1 else base


def _template(rng: random.Random) -> str:
    out = []
    for _ in range(rng.randint(1, 3)):
        out.append(rng.choice(["", "text ", "line\n", "} ", " y "]))
        expression = _expression(rng)
        if rng.random() < 0.1:  # a mutation, mostly into something Jinja refuses
            i = rng.randrange(len(expression) + 1)
            expression = expression[:i] + rng.choice(["(", ")", ",", ".", "|", "not ", "=", "[", "\n"]) + expression[i:]
        out.append("{{ " + expression + " }}")
    return "".join(out)


def test_generated_templates_read_the_same():
    rng = random.Random(21)
    texts = [_template(rng) for _ in range(3000)]
    read = sum(assert_same_as_jinja(t) for t in texts)
    assert read > 1000  # most generated templates are in the grammar; the mutations mostly not


def test_line_numbers_are_counted_once_along_the_text():
    # a keyword named like a later read, on earlier lines, is passed over as Jinja passes it
    text = "a\n{{ f(x=1) }} b\n{{ x.y }} {{ f(x=2) }}\nc {{ x.z }}"
    assert assert_same_as_jinja(text)
    long = "{{ f(x=1) }}\n" * 5000 + "{{ x }}"
    found, _ = te.reads(long, ta.JINJA_GLOBALS)
    assert found[-1] == ("x", len(long) - len("x }}"), ())
