"""An ``http_request`` body value that is one ``{{ x }}`` of an object, list or boolean:
the engine sends Python's text for it, not JSON.

**What it checks.** Every string in an ``http_request`` block's ``body`` that is exactly
``{{ name }}``, where ``name`` is a ``json`` or ``boolean`` workflow parameter, or a block's
``<label>_output`` (always an object or a list).

**Why.** The engine renders each string of the body as a template
(``render_templates_in_json_value``) and Jinja prints a dict, list or boolean with Python's
``str()``: the server receives ``"{'a': 1}"``, ``"True"``, ``"None"`` as strings, not the
JSON object, list or ``true`` the author meant. ``{{ x | json }}`` (the engine's filter for
a whole value) inserts the value itself. A warning: a ``json`` parameter may hold a string at
run time, and the request is sent either way.

**Bad**::

    body:
      order: "{{ order }}"        # a json parameter

**Good**::

    body:
      order: "{{ order | json }}"
"""

import sys

from ..core.patterns import lazy

CODE = "WF706"
NAME = "repr-in-http-body"
SEVERITY = "warning"

_WHOLE_NAME = lazy(r"^\s*\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}\s*$")


def check(wf):
    rule = sys.modules[__name__]
    blocks = [b for b in wf.blocks_of("http_request") if isinstance(b.data.get("body"), dict)]
    if not blocks:
        return
    typed = {p.key: p.data.get("workflow_parameter_type") for p in wf.params
             if p.key is not None and p.type == "workflow"}
    for b in blocks:
        for path, value in _strings(b.data["body"], b.path + ("body",)):
            m = _WHOLE_NAME.match(value)
            if m is None:
                continue
            name = m.group(1)
            if name in wf.output_keys and name not in typed:
                what = "a block output (an object or a list)"
            elif typed.get(name) in ("json", "boolean"):
                what = f"a {typed[name]} parameter"
            else:
                continue
            yield wf.diag(
                rule,
                f"'{{{{ {name} }}}}' in the body of http_request '{b.label}' is {what}: the engine sends Python's "
                "text for it ({'a': 1}, True, None), not JSON",
                path,
                help=f"insert the value itself: '{{{{ {name} | json }}}}'",
            )


def _strings(value, path):
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _strings(v, path + (i,))
