"""Output formats: each a pure function from a sorted list of diagnostics to text.

Every format is called as ``render(diags, lines, rules)``: ``full`` quotes source lines through
the ``lines(path, n)`` callable, and ``sarif`` describes each rule from ``rules`` (code to rule,
the registry), so each stays a pure function of its arguments and no format imports the rule
layer.
"""

from __future__ import annotations

from typing import Callable

from . import concise, full, github, json_format, sarif

LineGetter = Callable[[str, int], "str | None"]

FORMATS = {
    "full": full.render,
    "concise": concise.render,
    "json": json_format.render,
    "github": github.render,
    "sarif": sarif.render,
}
