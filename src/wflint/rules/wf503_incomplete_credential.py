"""A Bitwarden login or a credential parameter is configured in a way the service refuses.

**What it checks.** The service's parameter checks that answer 400:

* a ``bitwarden_login_credential`` needs ``bitwarden_collection_id`` or
  ``bitwarden_item_id``; with a collection id and no item id it also needs
  ``url_parameter_key`` (to pick the item by the site's URL);
* a ``credential`` parameter that rotates (``credential_ids``) or falls back
  (``fallback_credential_ids``) must follow five rules: ``credential_ids`` is not ``[]``;
  ``selection_strategy`` is ``round_robin`` (the default) or ``random``; rotation and fallback
  lists are not combined; ``fallback_trigger`` is ``credential_failures`` or ``any_failure``;
  a ``fallback_trigger`` comes with a non-empty fallback list.

Whether the credential ids exist is only known to the service; wflint does not check it.

**Why.** The rotation rules run before anything else of the definition (stage C4, parameters
in list order): "credential_ids for credential parameter login must be non-empty.". The
Bitwarden rules run while parameters are converted (stage D5): "Missing required value for
workflow parameter. Workflow parameter type: bitwarden_login_credential.
workflow_parameter_key: bw. Required value: bitwarden_collection_id or bitwarden_item_id".

**Bad**::

    parameters:
      - parameter_type: credential
        key: login
        credential_id: cred_1
        credential_ids: [cred_1, cred_2]
        fallback_credential_ids: [cred_3]

**Good**::

    parameters:
      - parameter_type: credential
        key: login
        credential_id: cred_1
        credential_ids: [cred_1, cred_2]
        selection_strategy: random
"""

import sys

from .verdicts import d5_parameters, service_verdict

CODE = "WF503"
NAME = "incomplete-credential"
SEVERITY = "error"

STRATEGIES = ("random", "round_robin")
TRIGGERS = ("any_failure", "credential_failures")


def check(wf):
    rule = sys.modules[__name__]
    for p in wf.params:
        if p.type == "credential":
            yield from _rotation(wf, rule, p)
    for p in d5_parameters(wf):
        if p.type == "bitwarden_login_credential":
            yield from _bitwarden(wf, rule, p)


def rotation_errors(key, data):
    """(rule number, field, service message) for every C4 rule 1-5 a credential parameter
    breaks, in the service's order (the first one is what it answers)."""
    ids = data.get("credential_ids")
    fallbacks = data.get("fallback_credential_ids")
    strategy = data.get("selection_strategy")
    trigger = data.get("fallback_trigger")
    out = []
    if ids == []:
        out.append((1, "credential_ids", f"credential_ids for credential parameter {key} must be non-empty."))
    if ids and (strategy if strategy is not None else "round_robin") not in STRATEGIES:
        out.append((2, "selection_strategy",
                    f"selection_strategy for credential parameter {key} must be one of: {', '.join(STRATEGIES)}."))
    if ids and fallbacks:
        out.append((3, "fallback_credential_ids",
                    f"credential parameter {key} cannot combine credential_ids rotation with "
                    "fallback_credential_ids; configure one or the other."))
    if trigger is not None and trigger not in TRIGGERS:
        out.append((4, "fallback_trigger",
                    f"fallback_trigger for credential parameter {key} must be one of: {', '.join(TRIGGERS)}."))
    if trigger is not None and not fallbacks:
        out.append((5, "fallback_trigger",
                    f"fallback_trigger for credential parameter {key} requires fallback_credential_ids."))
    return out


_EXPLAIN = {
    1: ("an empty credential_ids list rotates over nothing", "list the credential ids to rotate over, or remove credential_ids"),
    2: ("selection_strategy {value!r} is not a rotation strategy", "use round_robin (the default) or random"),
    3: ("credential_ids (rotation) and fallback_credential_ids (fallback) cannot be combined",
        "keep one: rotate over credential_ids, or fall back to fallback_credential_ids"),
    4: ("fallback_trigger {value!r} is not a fallback trigger", "use credential_failures or any_failure"),
    5: ("fallback_trigger is set but there is no fallback credential to switch to",
        "add fallback_credential_ids, or remove fallback_trigger"),
}


def _rotation(wf, rule, p):
    model = wf.release.PARAMETER_TYPES.get("credential")
    known = wf.release.known_keys(model) if model is not None else frozenset()
    data = {k: v for k, v in p.data.items() if k in known}  # a key the release lacks is dropped unread
    for number, field, message in rotation_errors(p.key, data):
        what, hint = _EXPLAIN[number]
        yield wf.diag(rule, f"credential parameter '{p.key}': {what.format(value=p.data.get(field))}; "
                      "the service rejects the save (400)", p.path + (field,), help=hint,
                      service=service_verdict(400, message, "C", 4, p.index, number))


def _bitwarden(wf, rule, p):
    prefix = ("Missing required value for workflow parameter. Workflow parameter type: bitwarden_login_credential. "
              f"workflow_parameter_key: {p.key}. Required value: ")
    collection, item = p.data.get("bitwarden_collection_id"), p.data.get("bitwarden_item_id")
    if not collection and not item:
        yield wf.diag(rule, f"Bitwarden login parameter '{p.key}' names neither bitwarden_collection_id nor "
                      "bitwarden_item_id, so it cannot find a login; the service rejects the save (400)",
                      p.path + ("key",), help="set bitwarden_item_id (one login) or bitwarden_collection_id",
                      service=service_verdict(400, prefix + "bitwarden_collection_id or bitwarden_item_id", "D", 5, p.index))
    elif collection and (not item or not wf.release.has_check("bitwarden_item_skips_url")) \
            and not p.data.get("url_parameter_key"):
        yield wf.diag(rule, f"Bitwarden login parameter '{p.key}' searches collection {collection!r} but has no "
                      "url_parameter_key to pick the login by site; the service rejects the save (400)",
                      p.path + ("bitwarden_collection_id",),
                      help="add url_parameter_key (the key of a parameter holding the site URL), or set bitwarden_item_id",
                      service=service_verdict(400, prefix + "url_parameter_key", "D", 5, p.index))
