"""The schemas editors load, derived from the linter's own (``model.schema``).

Two differences, both for the editor's sake:

* **One entry for every workflow file.** A file holds either the request itself or an update
  body (``json_definition`` / ``yaml_definition``); the entry schema picks the form by those
  keys, so an update body gets no false "Missing property 'title'".
* **Unknown keys are marked** in the editor variant. The service drops unknown keys silently,
  so the linter's schemas accept them and report them as warnings (WF104); an editor cannot show
  a warning from a schema, and a misspelt key (``max_retires``) is the most common mistake, so
  here every object whose fields the model declares gets ``additionalProperties: false``.
  Free-form objects (``FreeObject``, string maps) stay open.

Pure functions over schema dictionaries: ``model.schema`` calls them, this module imports
nothing of wflint.
"""

from __future__ import annotations

import copy
from typing import Any

#: the keys that make a file an update body rather than a request
UPDATE_BODY_KEYS = ("json_definition", "yaml_definition")


def strict(defs: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``defs`` where each declared object (generated with its properties and
    ``additionalProperties: true``) refuses keys it does not declare."""
    out = copy.deepcopy(defs)
    for schema in out.values():
        if schema.get("type") == "object" and "properties" in schema and schema.get("additionalProperties") is True:
            schema["additionalProperties"] = False
    return out


def either_form(request_ref: str, update_body_ref: str) -> dict[str, Any]:
    """The root of an entry schema: an update body when the file has one of its keys, else the
    request."""
    return {
        "type": "object",
        "if": {"anyOf": [{"required": [key]} for key in UPDATE_BODY_KEYS]},
        "then": {"$ref": f"#/$defs/{update_body_ref}"},
        "else": {"$ref": f"#/$defs/{request_ref}"},
    }
