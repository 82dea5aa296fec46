"""Output formats: each a pure function from a sorted list of diagnostics to text.

``full`` also needs the source lines it quotes; it receives a ``lines(path, n)`` callable so
that it stays a pure function of its arguments.
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
