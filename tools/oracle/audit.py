"""The model audit: every difference between a release's request models and wflint's model
for that release. Empty output means they agree.

    python tools/oracle/audit.py 1.0.55 [--no-install] [--dump FILE]

The release's side comes from ``dump_models.py`` run in the release's own environment
(``WorkflowCreateYAMLRequest.model_json_schema()`` and its enumerations); wflint's side from
``wflint.model.release(X)``. Both are reduced to the same plain description (per object:
fields with type, nullability, required-ness, default, bounds and allowed values; block and
parameter tags in order), then compared. Objects are paired by where they are reached from
(the request, a block type, a field), not by name, so a class renamed in wflint's model is
no difference. Exit status: 0 agreement, 1 differences, 2 usage.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import venvs  # noqa: E402

NONE = "<no default>"
FACTORY = "<default factory>"

#: what a JSON Schema cannot show: fields whose ``mode="before"`` validator accepts more than
#: the declared type. Each entry is checked against the release's source (see the maintainer's
#: page); wflint's model declares what the service accepts.
BEFORE_VALIDATORS: dict[tuple[str, str], tuple[str, str]] = {
    # (where, field): (fact, why)
    ("request", "run_with"): ("nullable", "null is normalised to 'agent' by a before-validator"),
}
ANY_PARTS = {"string", "integer", "number", "boolean", "object", "array<any>"}


# --------------------------------------------------------------------------- the release's side


class ServiceSide:
    """Reads pydantic's JSON Schema of the release's request model."""

    def __init__(self, dump: dict[str, Any]) -> None:
        self.schema = dump["schema"]
        self.defs = self.schema.get("$defs", {})
        self.enums = dump.get("enums", {})
        self.dump = dump

    def resolve(self, s: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
        ref = s.get("$ref")
        if isinstance(ref, str):
            name = ref.rsplit("/", 1)[-1]
            return name, self.defs[name]
        return None, s

    def describe_type(self, s: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """(type, facts): facts hold bounds, values (enumerations) and nested objects."""
        facts: dict[str, Any] = {}
        name, target = self.resolve(s)
        if name is not None:
            if "enum" in target:
                facts["values"] = list(target["enum"])
                return "enum", facts
            facts["object"] = ("svc", name)
            return "object-model", facts
        if "enum" in s:
            facts["values"] = list(s["enum"])
            return "enum", facts
        if "anyOf" in s or "oneOf" in s:
            parts = []
            for sub in s.get("anyOf") or s.get("oneOf"):
                t, f = self.describe_type(sub)
                parts.append(t)
                for k, v in f.items():
                    facts.setdefault(k, v)
            if "null" in parts:
                parts.remove("null")
                facts["nullable"] = True
            if set(parts) >= ANY_PARTS:
                return "any", facts
            if len(parts) == 1:
                return parts[0], facts
            return "union[" + "|".join(sorted(parts)) + "]", facts
        typ = s.get("type")
        for k, word in (("minLength", "min_length"), ("maxLength", "max_length"), ("minimum", "ge"),
                        ("maximum", "le"), ("minItems", "min_items")):
            if k in s:
                facts[word] = s[k]
        if typ == "array":
            items = s.get("items", {})
            if isinstance(items, dict) and ("discriminator" in items or _many_refs(items)):
                return "blocks-or-parameters", facts
            t, f = self.describe_type(items if isinstance(items, dict) else {})
            for k, v in f.items():
                facts.setdefault("items_" + k if k not in ("object",) else k, v)
            return f"array<{t}>", facts
        if typ == "object":
            ap = s.get("additionalProperties")
            if isinstance(ap, dict) and ap.get("type") == "string":
                return "map<string>", facts
            return "object", facts
        if typ in ("string", "integer", "number", "boolean", "null"):
            return typ, facts
        if "const" in s:
            return "const", facts
        return "any", facts

    def fields(self, name: str) -> dict[str, dict[str, Any]]:
        obj = self.defs[name] if name != "<root>" else self.schema
        required = set(obj.get("required", []))
        out = {}
        for fname, prop in obj.get("properties", {}).items():
            typ, facts = self.describe_type(prop)
            # a default_factory leaves no default in the schema: nothing to compare then
            default = prop.get("default", NONE) if fname not in required else NONE
            if fname not in required and "default" not in prop:
                default = FACTORY
            entry = {"type": typ, "nullable": bool(facts.pop("nullable", False)),
                     "required": fname in required, "default": default, **facts}
            out[fname] = entry
        return out

    def tagged(self, container: str, field: str) -> dict[str, str]:
        items = self.defs[container]["properties"][field]["items"]
        mapping = items["discriminator"]["mapping"]
        return {tag: ref.rsplit("/", 1)[-1] for tag, ref in mapping.items()}


def _many_refs(items: dict[str, Any]) -> bool:
    opts = items.get("anyOf") or items.get("oneOf") or []
    return len(opts) > 5 and all("$ref" in o for o in opts)


# --------------------------------------------------------------------------- wflint's side


class WflintSide:
    """Reads wflint's declarative model for one release."""

    def __init__(self, release: str) -> None:
        from wflint import model

        self.rel = model.release(release)
        self.t = model.types

    def describe_type(self, typ: Any) -> tuple[str, dict[str, Any]]:
        t = self.t
        facts: dict[str, Any] = {}
        if isinstance(typ, t.Str):
            if typ.min_length is not None:
                facts["min_length"] = typ.min_length
            if typ.max_length is not None:
                facts["max_length"] = typ.max_length
            return "string", facts
        if isinstance(typ, t.Int):
            if typ.ge is not None:
                facts["ge"] = typ.ge
            if typ.le is not None:
                facts["le"] = typ.le
            return "integer", facts
        if isinstance(typ, t.Num):
            return "number", facts
        if isinstance(typ, t.Bool):
            return "boolean", facts
        if isinstance(typ, t.FreeObject):
            return "object", facts
        if isinstance(typ, t.StrMap):
            return "map<string>", facts
        if isinstance(typ, t.AnyJSON):
            return "any", facts
        if isinstance(typ, t.Enum):
            facts["values"] = list(typ.values)
            return "enum", facts
        if isinstance(typ, t.Ref):
            facts["object"] = ("wfl", typ.target)
            return "object-model", facts
        if isinstance(typ, t.Array):
            inner, f = self.describe_type(typ.items)
            if typ.min_items is not None:
                facts["min_items"] = typ.min_items
            for k, v in f.items():
                facts.setdefault("items_" + k if k != "object" else k, v)
            return f"array<{inner}>", facts
        if isinstance(typ, t.Union):
            parts = []
            for o in typ.options:
                p, f = self.describe_type(o)
                parts.append(p)
                for k, v in f.items():
                    facts.setdefault(k, v)
            if set(parts) >= ANY_PARTS:
                return "any", facts
            return "union[" + "|".join(sorted(parts)) + "]", facts
        if isinstance(typ, (t.Blocks, t.Parameters)):
            return "blocks-or-parameters", facts
        raise TypeError(f"unknown model type {typ!r}")

    def _entries(self, fields) -> dict[str, dict[str, Any]]:
        out = {}
        for f in fields:
            typ, facts = self.describe_type(f.type)
            default = NONE if f.default is self.t.MISSING or f.required else f.default
            out[f.name] = {"type": typ, "nullable": f.nullable, "required": f.required, "default": default, **facts}
        return out

    def fields(self, name: str) -> dict[str, dict[str, Any]]:
        return self._entries(self.rel.OBJECTS[name].fields)

    def block_fields(self, tag: str) -> dict[str, dict[str, Any]]:
        return self._entries(self.rel.block_fields(tag))

    def parameter_fields(self, tag: str) -> dict[str, dict[str, Any]]:
        return self._entries(self.rel.PARAMETER_TYPES[tag].fields)


# --------------------------------------------------------------------------- comparing


class Audit:
    def __init__(self, svc: ServiceSide, wfl: WflintSide) -> None:
        self.svc, self.wfl = svc, wfl
        self.lines: list[str] = []
        self.enum_seen: dict[tuple, list[str]] = {}
        self.done: set[tuple[str, str]] = set()

    def say(self, line: str) -> None:
        self.lines.append(line)

    def compare_fields(self, where: str, svc: dict[str, Any], wfl: dict[str, Any], skip=()) -> None:
        for name in svc:
            if name in skip:
                continue
            if name not in wfl:
                self.say(f"{where}: field '{name}' only in the service ({_show(svc[name])})")
        for name in wfl:
            if name in skip:
                continue
            if name not in svc:
                self.say(f"{where}: field '{name}' only in wflint ({_show(wfl[name])})")
        for name in svc:
            if name in skip or name not in wfl:
                continue
            a, b = svc[name], wfl[name]
            for key in ("type", "nullable", "required", "default", "min_length", "max_length", "ge", "le",
                        "min_items", "items_min_length", "items_max_length"):
                if key == "default" and a.get(key) == FACTORY:
                    continue
                if BEFORE_VALIDATORS.get((where, name), ("",))[0] == key:
                    continue
                if a.get(key) != b.get(key):
                    self.say(f"{where}.{name}: {key}: service {_j(a.get(key))}, wflint {_j(b.get(key))}")
            for key in ("values", "items_values"):
                if a.get(key) != b.get(key):
                    self.enum_diff(f"{where}.{name}", a.get(key), b.get(key))
            if a.get("object") and b.get("object") and a.get("type") == b.get("type"):
                self.compare_object(f"{where}.{name}", a["object"][1], b["object"][1])

    def enum_diff(self, where: str, a: list | None, b: list | None) -> None:
        key = (tuple(a or ()), tuple(b or ()))
        if key in self.enum_seen:
            self.enum_seen[key].append(where)
            return
        self.enum_seen[key] = [where]

    def flush_enums(self) -> None:
        for (a, b), wheres in self.enum_seen.items():
            only_s = [v for v in a if v not in b]
            only_w = [v for v in b if v not in a]
            parts = []
            if only_s:
                parts.append("only in the service: " + ", ".join(map(repr, only_s)))
            if only_w:
                parts.append("only in wflint: " + ", ".join(map(repr, only_w)))
            if not parts:
                parts.append(f"order: service {list(a)}, wflint {list(b)}")
            shown = ", ".join(wheres[:4]) + (f" and {len(wheres) - 4} more" if len(wheres) > 4 else "")
            self.say(f"values of {shown}: " + "; ".join(parts))

    def compare_object(self, where: str, svc_name: str, wfl_name: str) -> None:
        if (svc_name, wfl_name) in self.done:
            return
        self.done.add((svc_name, wfl_name))
        self.compare_fields(where, self.svc.fields(svc_name), self.wfl.fields(wfl_name))

    def compare_tagged(self, what: str, svc_tags: dict[str, str], wfl_tags: list[str], svc_order: list[str] | None) -> None:
        only_s = [t for t in svc_tags if t not in wfl_tags]
        only_w = [t for t in wfl_tags if t not in svc_tags]
        if only_s:
            self.say(f"{what} types only in the service: {', '.join(only_s)}")
        if only_w:
            self.say(f"{what} types only in wflint: {', '.join(only_w)}")
        if svc_order is not None and not only_s and not only_w and svc_order != wfl_tags:
            self.say(f"{what} type order: service {svc_order}, wflint {wfl_tags}")

    def run(self) -> list[str]:
        svc, wfl = self.svc, self.wfl
        rel = wfl.rel
        self.compare_fields("request", svc.fields("<root>"), wfl.fields(rel.REQUEST.name), skip=("workflow_definition",))
        defn = svc.schema["properties"]["workflow_definition"]
        def_name, _ = svc.resolve(defn)
        self.done.add((def_name, rel.DEFINITION.name))
        self.compare_fields("definition", svc.fields(def_name), wfl.fields(rel.DEFINITION.name))
        blocks = svc.tagged(def_name, "blocks")
        # the discriminator's order is the order the service lists tags in its messages
        self.compare_tagged("block", blocks, list(rel.BLOCK_TYPES), svc.dump.get("block_order"))
        for tag, cls in blocks.items():
            if tag in rel.BLOCK_TYPES:
                self.compare_fields(f"block {tag}", svc.fields(cls), wfl.block_fields(tag), skip=("block_type",))
        params = svc.tagged(def_name, "parameters")
        self.compare_tagged("parameter", params, list(rel.PARAMETER_TYPES), svc.dump.get("parameter_order"))
        for tag, cls in params.items():
            if tag in rel.PARAMETER_TYPES:
                self.compare_fields(f"parameter {tag}", svc.fields(cls), wfl.parameter_fields(tag),
                                    skip=("parameter_type",))
        self.flush_enums()
        return self.lines

def _j(v: Any) -> str:
    return json.dumps(v)


def _show(entry: dict[str, Any]) -> str:
    bits = [entry["type"]]
    if entry.get("required"):
        bits.append("required")
    if entry.get("nullable"):
        bits.append("nullable")
    if entry.get("default", NONE) != NONE:
        bits.append(f"default {json.dumps(entry['default'])}")
    return ", ".join(bits)


def load_dump(release: str, install: bool) -> dict[str, Any]:
    done = venvs.run_in(release, "dump_models.py", install=install, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"audit: dumping the models of {release} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout)


def audit(release: str, dump: dict[str, Any]) -> list[str]:
    return Audit(ServiceSide(dump), WflintSide(release)).run()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("release", help="a skyvern release, e.g. 1.0.55")
    ap.add_argument("--no-install", action="store_true", help="fail instead of installing the release")
    ap.add_argument("--dump", type=Path, help="read the release's model from this file (dump_models.py output)")
    ap.add_argument("--save-dump", type=Path, help="also write the release's model dump here")
    args = ap.parse_args(argv)
    dump = json.loads(args.dump.read_text()) if args.dump else load_dump(args.release, not args.no_install)
    if args.save_dump:
        args.save_dump.write_text(json.dumps(dump, indent=1, sort_keys=True))
    lines = audit(args.release, dump)
    for line in lines:
        print(f"{args.release}: {line}")
    return 1 if lines else 0


if __name__ == "__main__":
    sys.exit(main())
