"""A template applies ``tojson`` to a loop's output, which the engine cannot serialise.

**What it checks.** ``{{ <loop>_output | tojson }}`` (and the same on one iteration,
``<loop>_output[0]``, or one child's entry, ``<loop>_output[0][0]``) in any template, where
``<loop>`` is a ``for_loop`` or ``while_loop``.

**Why.** During a run a loop's ``<label>_output`` is a list per iteration of
``{"loop_value", "output_parameter", "output_value"}`` entries whose ``output_parameter`` is
the engine's own ``OutputParameter`` object, not data. ``tojson`` fails on it and the block
fails: "Object of type OutputParameter is not JSON serializable". Take the values out first
(``output_value``), or pass the list to a code block through ``parameter_keys``.

**Bad**::

    - block_type: text_prompt
      label: summarize
      prompt: "Summarize {{ each_order_output | tojson }}"

**Good**::

    - block_type: text_prompt
      label: summarize
      prompt: "Summarize the first order: {{ each_order_output[0][0].output_value | tojson }}"
"""

import sys

from ..checks import template_expressions, template_sites
from ..engine.semantics import LOOP_OUTPUT_ENTRY_KEYS, LOOP_OUTPUT_TOJSON_ERROR
from .runtime import jinja_tree, loops_by_output

CODE = "WF701"
NAME = "loop-output-tojson"
SEVERITY = "error"


def check(wf):
    rule = sys.modules[__name__]
    loops = loops_by_output(wf)
    if not loops:
        return
    for site in template_sites.sites(wf):
        text = site.text
        if "tojson" not in text or site.analysis.error is not None:
            continue
        read = {r.name: r for r in site.analysis.reads}
        names = [n for n in read if n in loops]
        if not names:
            continue
        for chain in _tojson_arguments(text):
            root = _loop_output_root(chain)
            if root is None or root not in loops:
                continue
            loop = loops[root]
            offset = text.find(root, read[root].offset) if root in read else 0
            start, end = template_sites.span(wf, site, offset, offset + len(root))
            yield wf.diag(
                rule,
                f"'{root} | tojson' in {template_sites.describe_site(site)} fails the block: the output of "
                f"{loop.tag} '{loop.label}' holds the engine's OutputParameter objects "
                f"(\"{LOOP_OUTPUT_TOJSON_ERROR}\")",
                site.path,
                help="serialise the values only (each entry's 'output_value'), or pass the output to a code block",
                start=start,
                end=end,
            )


def _tojson_arguments(text):
    """What each ``tojson`` filter of the template is applied to, as a chain (name, keys)
    or None (``template_expressions.Chain``), in the order of Jinja's tree walk. Plain
    expression tags are read without Jinja's parser (the same answer: the tests hold them
    equal), which spares most processes importing Jinja2; nothing for a template that does
    not parse (WF401's)."""
    found = template_expressions.filters(text)
    if found is not None:
        return [chain for name, chain in found if name == "tojson"]
    tree = jinja_tree(text)
    if tree is None:
        return []
    from jinja2 import nodes  # the tree above is Jinja's: imported by now

    return [_chain(f.node) for f in tree.find_all(nodes.Filter) if f.name == "tojson" and f.node is not None]


def _chain(node):
    """A Jinja expression as a chain: a ``Name`` under ``Getattr`` and ``Getitem`` nodes, its
    keys innermost first (None for a key that is not a constant); None for anything else."""
    from jinja2 import nodes

    keys = []
    while isinstance(node, (nodes.Getitem, nodes.Getattr)):
        keys.append(node.arg.value if isinstance(node, nodes.Getitem) and isinstance(node.arg, nodes.Const) else
                    getattr(node, "attr", None))
        node = node.node
    return (node.name, tuple(reversed(keys))) if isinstance(node, nodes.Name) else None


def _loop_output_root(chain):
    """The name a ``tojson`` argument reads, when it still holds ``output_parameter`` objects:
    the loop output itself, one iteration, or one child's entry (not an entry's field)."""
    if chain is None:
        return None
    name, keys = chain
    if len(keys) > 2 or any(isinstance(key, str) and key in LOOP_OUTPUT_ENTRY_KEYS for key in keys):
        return None
    return name
