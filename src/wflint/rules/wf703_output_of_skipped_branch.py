"""A template reads a field of a block's output, but that block is on a branch the run may
not take.

**What it checks.** In a v2 definition with a ``conditional``, a template that reads an
attribute or item of ``<label>_output`` (or of ``<label>``), where the block ``<label>`` can
run before the reading block but some route reaches the reader without passing it: it sits
on one branch, the reader after the merge point. Conditional criteria are left out (a branch
whose criterion raises just does not match).

**Why.** When the branch was not taken, ``<label>_output`` is not in the template context.
Jinja renders a missing name as nothing, but reading an attribute of it raises, and the
block fails ("'big_output' is undefined"), ``| default(...)`` included: the attribute is read
before the filter runs. A warning, since it depends on the path the run takes. Test the
whole value first: ``{{ big_output.which if big_output is defined else '-' }}``.

**Guarded reads are fine.** The engine renders with Jinja's default (lax) ``Undefined``: a
missing name is false in a test. A read inside ``{% if big_output %}`` (or ``is defined``, or
the true side of ``x if big_output else y`` / ``big_output and x``) renders on both routes:
observed on the real 1.0.56 engine, and in ``wflint test``. Such reads are not reported.

**Bad**::

    - block_type: text_prompt
      label: report
      prompt: "Chosen: {{ big_output.which | default('-') }}"

**Good**::

    - block_type: text_prompt
      label: report
      prompt: "Chosen: {{ big_output.which if big_output is defined else '-' }}"
"""

import sys

from ..checks import template_sites
from ..checks.template_guards import guarded
from .runtime import branch_paths

CODE = "WF703"
NAME = "output-of-skipped-branch"
SEVERITY = "warning"


def check(wf):
    rule = sys.modules[__name__]
    paths = branch_paths(wf)
    if not paths:
        return
    unique = {label: blocks[0] for label, blocks in wf.labels.items() if len(blocks) == 1}
    for site, read in template_sites.reads(wf):
        b = site.block
        if b is None or not read.attrs or id(b) not in paths or "branch_conditions" in site.path[len(b.path):]:
            continue
        name = read.name
        label = name[:-7] if name.endswith("_output") else name
        target = unique.get(label)
        if target is None or target is b or (name == label and name in wf.param_keys):
            continue
        if paths.get(id(target)) is not paths[id(b)] or not paths[id(b)].may_skip(b.label, target.label):
            continue
        if guarded(site.text, name):
            continue  # the template tests for it before reading a field
        start, end = template_sites.span(wf, site, read.offset, read.offset + len(name))
        yield wf.diag(
            rule,
            f"'{name}.{read.attrs[0]}' in {template_sites.describe_site(site)} reads the output of "
            f"{target.tag or 'block'} '{target.label}', which runs only on some branches: when it did not run, "
            "reading a field of it fails the block (| default does not help)",
            site.path,
            help=f"test it first: {{{{ {name}.{read.attrs[0]} if {name} is defined else '-' }}}}",
            start=start,
            end=end,
        )
