"""A ``code`` block's Python does not parse.

**What it checks.** The ``code`` of every ``code`` block is parsed as Python. Jinja in it is
rendered before the code runs, so ``{{ ... }}`` expressions are first replaced by a
placeholder name of the same length and ``{% ... %}``/``{# ... #}`` tags by spaces; the error
is reported at its line and column in the file. When the code's Python structure depends on
its Jinja (a ``{% if %}`` inside a line, ``{% else %}`` branches) it is not checked, and neither
is code whose Jinja does not parse (WF401 reports that).

**Why.** The service checks only the Jinja of a code block when the workflow is saved, not
its Python: the save succeeds and the block fails when it runs ("CodeBlock code is invalid
Python").

**Bad**::

    blocks:
      - block_type: code
        label: total
        code: |
          total = sum(item["price"] for item in {{ extract_output.items }}
          result = total

**Good**::

    blocks:
      - block_type: code
        label: total
        code: |
          total = sum(item["price"] for item in {{ extract_output.items }})
          result = total
"""

import ast
import sys
from functools import lru_cache

from ..checks import template_sites
from ..document.limits import code_depth
from ..core.patterns import lazy

CODE = "WF404"
NAME = "code-syntax"
SEVERITY = "error"

_BRANCH_TAG = lazy(r"\{%[-+]?\s*(?:else|elif)\b")


def check(wf):
    rule = sys.modules[__name__]
    for site in template_sites.sites(wf):
        if site.kind != "code":
            continue
        analysis = site.analysis
        if analysis.error is not None:
            continue
        masked = python_text(site.value, analysis.tags)
        if masked is None or code_depth(masked, wf.limits.code_depth) > wf.limits.code_depth:
            continue  # over the depth limit: WF007's
        problem = python_error(masked)
        if problem is None:
            continue
        msg, line, offset = problem
        start = template_sites.locate(wf, site, offset)
        label = site.block.label if site.block is not None else None
        yield wf.diag(
            rule,
            f"Python syntax error in code block '{label}': {msg} (line {line} of the code); the "
            "service saves the workflow, and the block fails when it runs",
            site.path,
            start=start,
            end=start,
        )


def python_text(code: str, tags) -> str | None:
    """``code`` with its Jinja tags masked, or None when the Python structure depends on the
    Jinja (a statement tag sharing its line with code, or if/else branches)."""
    if not tags:
        return code
    chars = list(code)
    statements = []
    for start, end, kind in tags:
        # keep line breaks so line numbers survive; an expression becomes a name
        fill = "_" if kind == "variable" else " "
        chars[start:end] = ["\n" if c == "\n" else fill for c in code[start:end]]
        if kind != "variable":
            if _BRANCH_TAG.match(code, start):
                return None
            statements.append((start, end))
    masked = "".join(chars)
    for start, end in statements:
        line_start = masked.rfind("\n", 0, start) + 1
        line_end = masked.find("\n", end)
        line_end = len(masked) if line_end < 0 else line_end
        if masked[line_start:line_end].strip():
            return None  # `x = {% if a %}1{% endif %}`: the rendered line is unknown
    return masked


@lru_cache(maxsize=4096)
def python_error(code: str) -> tuple[str, int, int] | None:
    """(message, line, offset into ``code``) of the first syntax error, or None."""
    try:
        ast.parse(code)
    except SyntaxError as exc:
        line = exc.lineno or 1
        starts = [0] + [i + 1 for i, c in enumerate(code) if c == "\n"]
        base = starts[min(line, len(starts)) - 1]
        line_end = code.find("\n", base)
        line_end = len(code) if line_end < 0 else line_end
        col = max((exc.offset or 1) - 1, 0)
        return exc.msg, line, min(base + col, line_end)
    except ValueError as exc:  # e.g. "source code string cannot contain null bytes"
        return str(exc), 1, 0
    except (RecursionError, MemoryError):  # absurd nesting: not a verdict on the syntax
        return None
    return None
