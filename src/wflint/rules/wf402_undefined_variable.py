"""A template reads a variable that nothing defines where it renders.

**What it checks.** Every variable a template reads (``{{ name }}``, ``{% if name %}``,
``{{ name.attr }}``, filter arguments ...) must be something the service puts in the template
context when the block runs: a parameter key, a block's ``<label>_output``, a bare block
label (its metadata), ``workflow_title``, ``workflow_id``, ``workflow_permanent_id``,
``workflow_run_id``, ``current_date``, ``browser_session_id``, ``workflow_run_outputs`` or
``workflow_run_summary``; inside a loop body also ``current_item``, ``current_value`` and
``current_index``. Names a template binds itself (``{% set %}``, ``{% for %}``) and Jinja's
globals (``range``, ``dict``, ``namespace`` ...) are fine.

**Why.** The service does not check references at save time. At run time an unknown name
renders as an empty string, or fails the block when strict variable checking is on: a goal
that says "search for " instead of the product, or a URL without its host.

**Bad**::

    parameters:
      - {parameter_type: workflow, key: product_name, workflow_parameter_type: string}
    blocks:
      - {block_type: navigation, label: search, navigation_goal: "Search for {{ product }}"}

**Good**::

    blocks:
      - {block_type: navigation, label: search, navigation_goal: "Search for {{ product_name }}"}
"""

import sys

from .. import model
from ..checks import template_sites
from .wording import Suggester

CODE = "WF402"
NAME = "undefined-variable"
SEVERITY = "warning"

_LOOP = frozenset(model.LOOP_VARIABLES)


def check(wf):
    rule = sys.modules[__name__]
    defined = template_sites.defined_names(wf)
    for site, read in template_sites.reads(wf):
        name = read.name
        if name in defined or (site.loop_scope and name in _LOOP):
            continue
        if name in _LOOP:
            message = (f"'{name}' is only defined inside a loop body, but {template_sites.describe_site(site)} "
                       "is not inside a for_loop or while_loop; it renders as nothing")
            help = "move the block into the loop's loop_blocks, or read the value from a parameter"
        else:
            message = (f"'{name}' in {template_sites.describe_site(site)} is not defined: it is no parameter, "
                       "block output, block label or runtime variable, so it renders as nothing at run time")
            help = _suggestion(wf, site, name)
        start, end = template_sites.span(wf, site, read.offset, read.offset + len(name))
        yield wf.diag(rule, message, site.path, help=help, start=start, end=end)


def _suggestion(wf, site, name: str) -> str:
    outputs = name in wf.output_keys or name.endswith("_output")
    key = ("wf402-suggester", site.loop_scope, outputs)
    suggester = wf.cache.get(key)
    if suggester is None:  # one per kind of question, not one per finding
        candidates = set(wf.param_keys) | wf.output_keys | set(wf.labels) | set(model.RUNTIME_VARIABLES)
        if site.loop_scope:
            candidates |= _LOOP
        if outputs:
            candidates = {c for c in candidates if c.endswith("_output")} or candidates
        suggester = wf.cache[key] = Suggester(candidates)
    match = suggester.match(name)
    if match:
        return f"did you mean '{match}'?"
    if name.endswith("_output"):
        return f"no block is labelled '{name[:-7]}'"
    return f"declare a workflow parameter '{name}', or use one of the defined names"
