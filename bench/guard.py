"""The speed guard: the bounds the cold figures and the editor must stay within.

The cold figures are accepted as the bound of a pure-Python tool that uses click (see
docs/speed.md and the changelog): no compiled code, no command line without click. What is
kept is that they do not regress. ``bench/run.py`` and ``bench/lsp_startup.py`` hold their
ratios to these bounds and exit 1 when one is over (a benchmark run, never the default test
suite: a timing assert would fail on a busy machine).

Each bound is on the ratio the README and docs/speed.md quote, a figure over its floor
measured in alternation in the same run:

* ``check``: ``wflint check`` of the 1,000-file corpus, default workers, wall time over
  libyaml composing the same files in one process (today 2.2-2.3x);
* ``one``: ``wflint check`` of one corpus file, CPU time over ``python -c "import yaml"``
  (today 3.4x; CPU, as one process's wall adds only the waits for a core);
* ``editor``: spawn of ``wflint lsp`` to its first diagnostics, wall time over a fresh Python
  importing pygls and lsprotocol (today 0.25x).
"""

from __future__ import annotations

#: name -> (what, its bound)
BOUNDS: dict[str, tuple[str, float]] = {
    "check": ("wflint check, 1,000 files, over the libyaml compose floor (wall)", 2.5),
    "one": ("wflint check, one file, over the interpreter floor (CPU)", 4.0),
    "editor": ("wflint lsp's first diagnostics over importing pygls and lsprotocol (wall)", 1.25),
}


def judge(ratios: dict[str, float]) -> tuple[list[str], bool]:
    """One line per guarded ratio measured (``ratios``: name -> ratio), and whether all are
    within their bounds. A name not in ``BOUNDS`` is a programming error (KeyError)."""
    lines, ok = [], True
    for name, ratio in ratios.items():
        what, bound = BOUNDS[name]
        within = ratio <= bound
        ok = ok and within
        lines.append(f"speed guard: {what}: {ratio:.2f}x, bound {bound}x: {'ok' if within else 'OVER THE BOUND'}")
    return lines, ok
