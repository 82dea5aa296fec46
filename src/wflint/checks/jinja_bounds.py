"""Jinja that always stops: a sandboxed environment with compile-time folding off and the
costly operators bounded, and what the service's own environment would fold while compiling.

Release 1.0.56 renders with a plain ``SandboxedEnvironment``. Jinja folds constant expressions
while it compiles a template, so ``{{ 9**999999999 }}`` never finishes compiling (the service's
save of such a code block hangs, and so would its run) and ``{{ 'a' * 1500000000 }}`` builds a
1.5 GB string before anything is rendered. wflint answers as the engine does for everything
that finishes, and refuses, with a reason, what would not:

- :class:`BoundedEnvironment` compiles without folding (its output is the same: a folded
  constant and one computed while rendering are equal, and a fold that fails is deferred to
  the render by Jinja itself) and checks ``**``, ``*``, ``+``, ``%`` and ``~``, and the filters
  ``center``, ``indent``, ``format`` and ``replace``, before computing them: a power whose
  result would pass :data:`MAX_POWER_BITS`, or a string or list longer than
  :data:`MAX_LENGTH`, raises :class:`TemplateTooCostly`.
- :func:`costly_constants` finds, in a parsed template, the constant expressions the service's
  environment would fold while compiling and that would not finish (``check`` reports them).

Time is bounded by :mod:`wflint.engine.render_budget`, which stops a render that runs too long.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import Any

from jinja2 import nodes
from jinja2.compiler import CodeGenerator, Frame
from jinja2.sandbox import SandboxedEnvironment

#: the largest power computed: about 315,000 decimal digits (computed in milliseconds; the
#: engine's own ``str()`` of an int stops at 4,300 digits, so nothing larger renders anyway)
MAX_POWER_BITS = 1 << 20
#: the longest string or list one operator may build, and the longest rendered template
MAX_LENGTH = 16 * 1024 * 1024

_WIDTH = re.compile(r"%[-#0 +]*(\d+|\*)?(?:\.(\d+|\*))?")


class TemplateTooCostly(Exception):
    """A template wflint refuses to compute or keep rendering; ``str()`` says what and why."""


def _power_bits(base: int, exponent: int) -> int:
    return max(abs(base).bit_length() - 1, 1) * exponent if abs(base) > 1 else 1


def binop_refusal(operator: str, left: Any, right: Any) -> str | None:
    """Why computing ``left <operator> right`` is refused, or None to compute it."""
    if operator == "**" and isinstance(left, int) and isinstance(right, int) and right > 0:
        if _power_bits(left, right) > MAX_POWER_BITS:
            return (f"{left!r} ** {right!r} is a number of about {_digits(left, right):,} digits "
                    f"(wflint computes powers up to {MAX_POWER_BITS:,} bits)")
    elif operator == "*":
        for seq, count in ((left, right), (right, left)):
            if isinstance(seq, (str, bytes, list, tuple)) and isinstance(count, int):
                size = len(seq) * count
                if size > MAX_LENGTH:
                    return f"repeating a {type(seq).__name__} of length {len(seq):,} {count:,} times makes {size:,} items (wflint's limit is {MAX_LENGTH:,})"
    elif operator == "+":
        if isinstance(left, (str, list, tuple)) and isinstance(right, (str, list, tuple)):
            size = len(left) + len(right)
            if size > MAX_LENGTH:
                return f"joining makes {size:,} items (wflint's limit is {MAX_LENGTH:,})"
    elif operator == "%" and isinstance(left, str):
        for match in _WIDTH.finditer(left):
            for number in match.groups():
                if number and number.isdigit() and int(number) > MAX_LENGTH:
                    return f"the format {match.group(0)[:40]!r} asks for {int(number):,} characters (wflint's limit is {MAX_LENGTH:,})"
    return None


def _digits(base: int, exponent: int) -> int:
    return int(exponent * math.log10(abs(base))) + 1


class _UnfoldedCodeGenerator(CodeGenerator):
    """Jinja's code generator without the folding of output expressions at compile time, and
    with ``~`` joined through a length check."""

    def _output_child_to_const(self, node: nodes.Expr, frame: Frame, finalize: Any) -> str:
        if isinstance(node, nodes.TemplateData):
            return super()._output_child_to_const(node, frame, finalize)
        raise nodes.Impossible()

    def visit_Concat(self, node: nodes.Concat, frame: Frame) -> None:
        if frame.eval_ctx.volatile or frame.eval_ctx.autoescape:
            super().visit_Concat(node, frame)
            return
        self.write("environment.bounded_concat((")
        for arg in node.nodes:
            self.visit(arg, frame)
            self.write(", ")
        self.write("))")


def _checked(size: int, what: str) -> None:
    if size > MAX_LENGTH:
        raise TemplateTooCostly(f"{what} makes {size:,} characters (wflint's limit is {MAX_LENGTH:,})")


def _bounded_filters(filters: dict[str, Any]) -> dict[str, Any]:
    """Jinja's filters whose result can be far larger than their input, checked first."""
    center, indent, fmt, replace = filters["center"], filters["indent"], filters["format"], filters["replace"]

    def bounded_center(value: Any, width: Any = 80) -> Any:
        if isinstance(width, int):
            _checked(width, "'center'")
        return center(value, width)

    def bounded_indent(value: Any, width: Any = 4, *args: Any, **kwargs: Any) -> Any:
        pad = width if isinstance(width, int) else len(str(width))
        first = kwargs.get("first", args[0] if args else False)
        # Jinja builds the indentation string before it looks at the lines
        _checked(pad + len(str(value)) + pad * (str(value).count("\n") + bool(first)), "'indent'")
        return indent(value, width, *args, **kwargs)

    def bounded_format(value: Any, *args: Any, **kwargs: Any) -> Any:
        refusal = binop_refusal("%", str(value), None)
        if refusal is not None:
            raise TemplateTooCostly(refusal)
        return fmt(value, *args, **kwargs)

    def bounded_replace(eval_ctx: Any, value: Any, old: Any, new: Any, count: Any = None) -> Any:
        text, old_text, new_text = str(value), str(old), str(new)
        times = (text.count(old_text) if old_text else len(text) + 1)
        if isinstance(count, int) and count >= 0:
            times = min(times, count)
        _checked(len(text) + times * max(len(new_text) - len(old_text), 0), "'replace'")
        return replace(eval_ctx, value, old, new, count)

    for wrapper, original in ((bounded_center, center), (bounded_indent, indent), (bounded_format, fmt),
                              (bounded_replace, replace)):
        wrapper.__dict__.update(original.__dict__)  # keeps Jinja's pass_eval_context marks
    return {"center": bounded_center, "indent": bounded_indent, "format": bounded_format,
            "replace": bounded_replace}


class BoundedEnvironment(SandboxedEnvironment):
    """The engine's ``SandboxedEnvironment`` (same globals, filters, tests and sandbox rules),
    compiled without folding and with the costly operators and filters checked first."""

    code_generator_class = _UnfoldedCodeGenerator
    intercepted_binops = frozenset({"**", "*", "+", "%"})

    def __init__(self, **options: Any) -> None:
        options.setdefault("optimized", False)
        super().__init__(**options)
        self.filters.update(_bounded_filters(self.filters))

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        refusal = binop_refusal(operator, left, right)
        if refusal is not None:
            raise TemplateTooCostly(refusal)
        return self.binop_table[operator](left, right)

    def bounded_concat(self, items: tuple[Any, ...]) -> str:
        parts = [str(item) for item in items]
        size = sum(map(len, parts))
        if size > MAX_LENGTH:
            raise TemplateTooCostly(f"'~' makes a string of {size:,} characters (wflint's limit is {MAX_LENGTH:,})")
        return "".join(parts)


#: the operators whose folding :func:`costly_constants` follows (the ones bounded above)
_FOLDED = BoundedEnvironment.intercepted_binops


def costly_constants(tree: nodes.Template) -> Iterator[tuple[str, int]]:
    """(reason, line) for each constant expression the service's environment would fold while
    compiling and that wflint refuses to compute: the service would not finish compiling it."""
    for node in tree.find_all((nodes.BinExpr, nodes.Filter)):
        if isinstance(node, nodes.BinExpr) and node.operator not in _FOLDED:
            continue
        if isinstance(node, nodes.Filter) and node.name not in _BOUNDED_FILTERS:
            continue
        try:
            _fold(node)
        except TemplateTooCostly as exc:
            yield str(exc), node.lineno or 1
        except nodes.Impossible:
            continue


def _fold(node: nodes.Node) -> Any:
    """The constant value of ``node`` as Jinja's compile-time folding computes it, each costly
    operator checked first; ``Impossible`` when it is not a constant."""
    if isinstance(node, nodes.BinExpr):
        left, right = _fold(node.left), _fold(node.right)
        refusal = binop_refusal(node.operator, left, right)
        if refusal is not None:
            raise TemplateTooCostly(refusal)
        try:
            return _PLAIN.binop_table[node.operator](left, right)
        except Exception as exc:
            raise nodes.Impossible() from exc
    if isinstance(node, nodes.UnaryExpr):
        operand = _fold(node.node)
        try:
            return _PLAIN.unop_table[node.operator](operand)
        except Exception as exc:
            raise nodes.Impossible() from exc
    if isinstance(node, nodes.Filter) and node.name in _BOUNDED_FILTERS and node.node is not None \
            and node.dyn_args is None and node.dyn_kwargs is None:
        value = _fold(node.node)
        args = [_fold(arg) for arg in node.args]
        kwargs = {pair.key: _fold(pair.value) for pair in node.kwargs}
        func = _BOUNDED.filters[node.name]
        if node.name == "replace":
            args.insert(0, nodes.EvalContext(_BOUNDED))
        try:
            return func(*args[:1], value, *args[1:], **kwargs) if node.name == "replace" else func(value, *args, **kwargs)
        except TemplateTooCostly:
            raise
        except Exception as exc:
            raise nodes.Impossible() from exc
    if isinstance(node, (nodes.Const, nodes.TemplateData)):
        return node.value if isinstance(node, nodes.Const) else node.data
    if isinstance(node, (nodes.Tuple, nodes.List)):
        values = [_fold(item) for item in node.items]
        return tuple(values) if isinstance(node, nodes.Tuple) else values
    raise nodes.Impossible()


_PLAIN = SandboxedEnvironment()
_BOUNDED = BoundedEnvironment()
#: the filters the service folds while compiling that can build far more than their input
_BOUNDED_FILTERS = frozenset({"center", "indent", "format", "replace"})
