"""Runs INSIDE a release's virtual environment: prints the release's request model as JSON
(``WorkflowCreateYAMLRequest.model_json_schema()`` plus every enumeration the request module
defines), for ``audit.py`` to compare with wflint's model. Standard library and the release's
own packages only."""

from __future__ import annotations

import enum
import json
import os
import sys

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("SKYVERN_TELEMETRY", "false")
os.environ.setdefault("LOG_LEVEL", "WARNING")


def _tags(annotation, tag_field: str) -> list[str]:
    import typing

    out: list[str] = []

    def walk(tp) -> None:
        fields = getattr(tp, "model_fields", None)
        if fields and tag_field in fields:
            default = fields[tag_field].default
            out.append(getattr(default, "value", default))
            return
        for arg in typing.get_args(tp):
            walk(arg)

    walk(annotation)
    return out


def main() -> int:
    import importlib.metadata

    from skyvern.schemas import workflows as W

    enums = {}
    for name in dir(W):
        obj = getattr(W, name)
        if isinstance(obj, type) and issubclass(obj, enum.Enum) and obj is not enum.Enum:
            enums[obj.__name__] = [m.value for m in obj]
    schema = W.WorkflowCreateYAMLRequest.model_json_schema()
    fields = W.WorkflowDefinitionYAML.model_fields
    out = {
        "release": importlib.metadata.version("skyvern"),
        "schema": schema,
        "enums": enums,
        # the union's member order: the order the service lists tags in its messages
        "block_order": _tags(fields["blocks"].annotation, "block_type"),
        "parameter_order": _tags(fields["parameters"].annotation, "parameter_type"),
    }
    json.dump(out, sys.stdout, indent=1, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
