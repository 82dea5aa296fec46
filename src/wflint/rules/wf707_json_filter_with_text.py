"""``| json`` used inside a longer string of an ``http_request`` body, header or file entry.

**What it checks.** Every string of an ``http_request`` block's ``body``, ``headers`` and
``files`` that applies the ``json`` filter but is not one lone ``{{ ... | json }}``.

**Why.** ``| json`` is the engine's filter for inserting a whole value with its type
(``render_templates_in_json_value``): it marks the rendered text, and the engine replaces the
string by the parsed value only when the marked text is the whole string. Anywhere else the
block fails: "The '| json' filter can only be used for complete value replacement. It cannot
be combined with other text". The service saves it.

**Bad**::

    body:
      note: "order {{ order | json }}"

**Good**::

    body:
      order: "{{ order | json }}"
      note: "order {{ order.id }}"
"""

import sys

from ..checks import template_sites
from ..engine.semantics import JSON_FILTER_WITH_TEXT_ERROR, is_pure_jinja_expression
from ..core.patterns import lazy

CODE = "WF707"
NAME = "json-filter-with-text"
SEVERITY = "error"

_JSON_FILTER = lazy(r"\|\s*json\b(?!\w)")
_FIELDS = ("body", "headers", "files")


def check(wf):
    rule = sys.modules[__name__]
    for site in template_sites.sites(wf):
        b = site.block
        if b is None or b.tag != "http_request" or site.field not in _FIELDS or "json" not in site.text:
            continue
        m = _JSON_FILTER.search(site.text)
        if m is None or is_pure_jinja_expression(site.text):
            continue
        start, end = template_sites.span(wf, site, m.start(), m.end())
        yield wf.diag(
            rule,
            f"'| json' in {template_sites.describe_site(site)} is combined with other text: the block fails "
            f"(\"{JSON_FILTER_WITH_TEXT_ERROR}\")",
            site.path,
            help="make the string exactly '{{ value | json }}', or drop the filter to insert text",
            start=start,
            end=end,
        )
