"""A block lacks the goal or criterion its type needs.

**What it checks.** Three per-block conversion checks of the service (stage E), at any depth:

* an ``action`` block needs a non-empty ``navigation_goal`` (the model lets it be null);
* a ``validation`` block needs a non-empty ``complete_criterion`` or ``terminate_criterion``;
* an ``extraction`` block with ``export_enabled: true`` needs a non-empty object as
  ``export_data_schema``.

A goal or criterion made only of spaces passes the service's check but gives the block
nothing to do: that is a warning.

**Why.** The service refuses the save (422): "Action block 'a' requires navigation_goal",
"Validation block 'v' requires at least one of complete_criterion or terminate_criterion",
"Extraction block 'e' has export enabled but no export_data_schema. ...". Blocks are
converted top level first, a loop's body before the loop, so the first such block in that
order is the one named.

**Bad**::

    - {block_type: action, label: accept_cookies, url: "https://example.com"}

**Good**::

    - {block_type: action, label: accept_cookies, url: "https://example.com",
       navigation_goal: "Click the 'Accept all' button of the cookie banner"}
"""

import sys

from .verdicts import e_order, service_verdict
from ..model.lax import lax_bool

CODE = "WF501"
NAME = "missing-goal"
SEVERITY = "error"


def _text(value):
    return value if isinstance(value, str) else None


def check(wf):
    rule = sys.modules[__name__]
    for b in wf.all_blocks:
        if b.tag == "action":
            yield from _action(wf, rule, b)
        elif b.tag == "validation":
            yield from _validation(wf, rule, b)
        elif b.tag == "extraction":
            yield from _extraction(wf, rule, b)


def _blank_warning(wf, rule, b, field, what):
    return wf.diag(rule, f"{what} of {b.tag} block '{b.label}' is only whitespace: the service accepts it, "
                   "but the block has nothing to work towards", b.path + (field,), severity="warning",
                   help=f"write the {what} in words")


def _action(wf, rule, b):
    goal = b.data.get("navigation_goal")
    if goal is not None and not isinstance(goal, str):
        return  # a type error: WF102
    if goal:
        if not goal.strip():
            yield _blank_warning(wf, rule, b, "navigation_goal", "navigation_goal")
        return
    detail = f"Action block '{b.label}' requires navigation_goal"
    where = b.path + ("navigation_goal",) if "navigation_goal" in b.data else b.path + ("label",)
    yield wf.diag(rule, f"action block '{b.label}' has no navigation_goal, which the service requires; it rejects the save",
                  where, help="say in words what the action should do, e.g. navigation_goal: \"Click the 'Next' button\"",
                  service=service_verdict(422, detail, "E", e_order(wf, b)))


def _validation(wf, rule, b):
    complete, terminate = _text(b.data.get("complete_criterion")), _text(b.data.get("terminate_criterion"))
    if complete or terminate:
        if not (complete or "").strip() and not (terminate or "").strip():
            field = "complete_criterion" if complete else "terminate_criterion"
            yield _blank_warning(wf, rule, b, field, field)
        return
    detail = f"Validation block '{b.label}' requires at least one of complete_criterion or terminate_criterion"
    yield wf.diag(rule, f"validation block '{b.label}' has neither complete_criterion nor terminate_criterion; "
                  "the service rejects it", b.path + ("label",),
                  help="add complete_criterion (when the page state means success) and/or terminate_criterion",
                  service=service_verdict(422, detail, "E", e_order(wf, b)))


def _extraction(wf, rule, b):
    if wf.release.BLOCK_TYPES["extraction"].field("export_enabled") is None:
        return  # a release without exports drops the key (WF104 says so)
    if lax_bool(b.data.get("export_enabled", False)) is not True:
        return
    schema = b.data.get("export_data_schema")
    if (isinstance(schema, dict) and schema) or not isinstance(schema, (dict, type(None))):
        return  # fine, or a type error (WF102)
    detail = (f"Extraction block '{b.label}' has export enabled but no export_data_schema. A Parquet export "
              "needs a schema for the exported records.")
    where = b.path + ("export_data_schema",) if "export_data_schema" in b.data else b.path + ("export_enabled",)
    state = "is empty" if isinstance(schema, dict) else "is missing"
    yield wf.diag(rule, f"extraction block '{b.label}' has export_enabled but its export_data_schema {state}; "
                  "the service rejects it", where,
                  help="give export_data_schema a JSON Schema object describing one exported record, or drop export_enabled",
                  service=service_verdict(422, detail, "E", e_order(wf, b)))
