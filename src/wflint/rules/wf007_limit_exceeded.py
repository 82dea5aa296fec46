"""The input goes over one of wflint's limits; checking stops there.

**What it checks.** Nothing about the workflow itself: it reports that a limit meant for
hostile or broken input was reached, and where. The limits, with their defaults (see the
"Limits" page of the documentation): the nesting of JSON and YAML (500), the values in one document
(500,000), what YAML aliases add to a document (200,000 nodes, 8 MiB of text), the length of one string (1 MiB), blocks (5,000)
and parameters (5,000) in one workflow, loops nested in loops (50), the nesting of one Jinja
template (50) and of one Python code block (100). Each is checked before the work it guards,
so a hostile file costs no more than a normal one. What was read before the limit is still
reported. A file (or standard input) over the ``file-bytes`` limit (4 MiB) is not read at
all: that is WF006.

**Why.** A real definition is a few kilobytes; a file over a limit is generated, broken or
hostile, and checking it completely could take minutes and gigabytes. When a legitimate
file goes over one, raise that limit: ``--limit blocks=20000`` on the command line, or in
``.wflint.toml``::

    [limits]
    blocks = 20000

**Bad**::

    title: &t "a very long string ..."
    workflow_definition: {parameters: [], blocks: [], notes: [*t, *t, *t, ...]}

**Good**::

    title: "a very long string ..."
    workflow_definition: {parameters: [], blocks: []}
"""

import sys

from ..checks import template_sites
from ..document.limits import code_depth, exceeded

CODE = "WF007"
NAME = "limit-exceeded"
SEVERITY = "error"


def check(wf):
    """The limits met by templates and code blocks; the others are reported while the file is
    read and the tree is built, before any rule runs."""
    rule = sys.modules[__name__]
    most = wf.limits.code_depth
    for site in template_sites.sites(wf):
        problem = site.analysis.error
        if problem is not None and problem.limit:
            yield wf.diag(rule, problem.message, site.path)
        elif site.kind == "code" and problem is None and code_depth(site.text, most) > most:
            message = exceeded("code_depth", f"the Python code of code block '{site.block.label}' nests too deeply", most)
            yield wf.diag(rule, message, site.path)
