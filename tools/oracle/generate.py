"""A seeded, reproducible generator of realistic workflow definitions and single mutations.

    cases(seed=1, count=3000) -> list[Case]

A base definition has a few parameters and 1-6 blocks of any modelled type (every release's
types, so older targets meet newer ones), filled from wflint's newest model with realistic
values (goals are sentences, URLs are URLs, loops iterate over a declared parameter). Each
case applies one mutation to a base: a deleted, added (typo, another type's field, a newer
release's field) or retyped field; every value of an enumeration and a wrong one; another
block type; a routing mistake (unknown next/finally label, a cycle); a template mistake; a
version-specific field (send_email transport, browser_settings ...). Cases are sent as JSON
or YAML at random. Same seed, same cases.
"""

from __future__ import annotations

import copy
import json
import random
from dataclasses import dataclass, field
from typing import Any

import yaml

from wflint import model
from wflint.model import types as t

NEWEST = model.release(model.NEWEST)

#: realistic values for required or interesting string fields, by name
STRINGS: dict[str, list[str]] = {
    "url": ["https://shop.example.com/orders", "https://portal.example.org/login", "{{ start_url }}"],
    "navigation_goal": ["Open the orders page and download the latest invoice",
                        "Fill in the search form with {{ customer_name }} and submit"],
    "data_extraction_goal": ["Extract the order number, total and delivery date",
                             "Extract every product name and price on the page"],
    "prompt": ["Summarise {{ search_output }} in two sentences", "Find the cheapest flight to Lisbon"],
    "code": ["total = sum(item['price'] for item in items)\nresult = {'total': total}", "result = 1 + 1"],
    "file_url": ["https://files.example.com/report.pdf", "{{ invoice_url }}"],
    "data": ["{{ extract_prices_output }}"],
    "workflow_permanent_id": ["wpid_123456789"],
    "spreadsheet_url": ["https://docs.google.com/spreadsheets/d/abc123/edit"],
    "reason": ["No matching order was found", "{{ check_output }}"],
    "query": ["best price for {{ product_name }}", "weather in Paris"],
    "subject": ["Your daily report", "Order {{ order_id }} shipped"],
    "body": ["Hello,\nthe report is attached.", "Total: {{ total }}"],
    "sender": ["reports@example.com"],
    "expression": ["{{ total > 100 }}", "the page shows an error"],
    "complete_criterion": ["The confirmation number is visible"],
    "terminate_criterion": ["The site says the account is locked"],
    "label": ["open_orders"],
    "key": ["customer_name"],
    "aws_key": ["SMTP_PASSWORD"],
    "credential_id": ["cred_123"],
    "vault_id": ["vault_1"], "item_id": ["item_1"], "vault_name": ["kv-main"],
    "username_key": ["user"], "password_key": ["pass"],
    "bitwarden_collection_id": ["coll_1"], "bitwarden_identity_key": ["identity"],
    "bitwarden_item_id": ["item_9"],
    "source_parameter_key": ["customer_name"],
    "instructions": ["Approve the refund"],
}

BAD_VALUES: list[Any] = [None, "", "x", 0, -1, 5, 5.5, "5", True, [], {}, ["a"], {"a": 1}, "yes", 100000]
TYPOS = {"navigation_goal": "navigaton_goal", "url": "ulr", "prompt": "promt", "label": "lable",
         "parameter_keys": "parameters_keys", "loop_blocks": "loop_block", "wait_sec": "wait_seconds"}


@dataclass
class Case:
    id: str
    kind: str  # "json" | "yaml" | "body"
    text: str
    tags: list[str] = field(default_factory=list)

    def body(self) -> dict[str, Any]:
        if self.kind == "yaml-body":
            import yaml

            return json.loads(json.dumps(yaml.safe_load(self.text), default=str))
        if self.kind == "yaml":
            return {"yaml_definition": self.text}
        if self.kind == "json":
            return {"json_definition": json.loads(self.text)}
        return json.loads(self.text)

    @property
    def suffix(self) -> str:
        return ".yaml" if self.kind in ("yaml", "yaml-body") else ".json"


class Gen:
    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)
        self.n = 0

    # ----------------------------------------------------------------------- values
    def value_for(self, name: str, typ: Any, tag: str | None = None) -> Any:
        r = self.r
        if name in STRINGS and isinstance(typ, (t.Str,)):
            return r.choice(STRINGS[name])
        if isinstance(typ, t.Str):
            if name.endswith("_url"):
                return "https://example.com/" + name
            return name.replace("_", " ")
        if isinstance(typ, t.Int):
            lo, hi = typ.ge if typ.ge is not None else 1, typ.le if typ.le is not None else 30
            return r.randint(lo, min(hi, lo + 30))
        if isinstance(typ, t.Num):
            return r.choice([10, 30.5])
        if isinstance(typ, t.Bool):
            return r.choice([True, False])
        if isinstance(typ, t.Enum):
            return typ.values[0]
        if isinstance(typ, t.Array):
            if name in ("recipients", "cc", "bcc"):
                return ["ops@example.com"]
            return [self.value_for(name, typ.items)] if not isinstance(typ.items, t.Ref) else []
        if isinstance(typ, t.StrMap):
            return {"Accept": "application/json"}
        if isinstance(typ, t.FreeObject):
            return {"type": "object", "properties": {"total": {"type": "number"}}}
        if isinstance(typ, t.Union):
            return self.value_for(name, typ.options[0])
        if isinstance(typ, t.Ref):
            if typ.target == "BranchCriteria":
                return {"criteria_type": "jinja2_template", "expression": "{{ total > 100 }}"}
            return {}
        if isinstance(typ, t.AnyJSON):
            return "x"
        return None

    # ----------------------------------------------------------------------- blocks
    def block(self, tag: str, label: str, depth: int = 0) -> dict[str, Any]:
        r = self.r
        obj = NEWEST.BLOCK_TYPES[tag]
        out: dict[str, Any] = {"block_type": tag, "label": label}
        for f in obj.fields:
            if f.required:
                if isinstance(f.type, t.Blocks):
                    child_tag = r.choice(["navigation", "extraction", "wait", "text_prompt", "code"])
                    out[f.name] = [self.block(child_tag, label + "_step", depth + 1)] if depth < 1 else []
                else:
                    out[f.name] = self.value_for(f.name, f.type, tag)
            elif r.random() < 0.25 and not f.deprecated and f.name not in _NEVER_RANDOM:
                out[f.name] = self.value_for(f.name, f.type, tag)
        _make_valid(tag, out)
        return out

    def definition(self) -> dict[str, Any]:
        r = self.r
        tags = list(NEWEST.BLOCK_TYPES)
        n = r.randint(1, 5)
        blocks = [self.block(r.choice(tags), f"step_{i}") for i in range(n)]
        params = [
            {"parameter_type": "workflow", "key": "customer_name", "workflow_parameter_type": "string",
             "default_value": "Ada"},
            {"parameter_type": "workflow", "key": "start_url", "workflow_parameter_type": "string"},
        ]
        if r.random() < 0.3:
            params.append({"parameter_type": "workflow", "key": "max_items", "workflow_parameter_type": "integer",
                           "default_value": 10})
        if r.random() < 0.2:
            params.append({"parameter_type": "aws_secret", "key": "smtp_secret", "aws_key": "SMTP_PASSWORD"})
        if r.random() < 0.2:
            params.append({"parameter_type": "context", "key": "ctx_name", "source_parameter_key": "customer_name"})
        if r.random() < 0.15:
            params.append({"parameter_type": "credential", "key": "login_cred", "credential_id": "cred_123"})
        req: dict[str, Any] = {"title": r.choice(["Nightly price check", "Invoice download", "Lead import"]),
                               "workflow_definition": {"parameters": params, "blocks": blocks}}
        if r.random() < 0.2:
            req["proxy_location"] = r.choice(["RESIDENTIAL", "US-CA", "NONE"])
        if r.random() < 0.1:
            req["description"] = "Generated by the oracle"
        return req

    # ----------------------------------------------------------------------- mutations
    def slots(self, req: dict[str, Any]) -> list[tuple[dict[str, Any], str, str]]:
        """(object, key, where) for every key of every object of the request."""
        out = [(req, k, "request") for k in req if k != "workflow_definition"]
        d = req["workflow_definition"]
        out += [(d, k, "definition") for k in d]
        for p in d["parameters"]:
            out += [(p, k, "parameter") for k in p]
        for b in _all_blocks(d["blocks"]):
            out += [(b, k, "block:" + str(b.get("block_type"))) for k in b]
        return out

    def mutate(self, req: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
        r = self.r
        req = copy.deepcopy(req)
        d = req["workflow_definition"]
        blocks = list(_all_blocks(d["blocks"]))
        kind = r.choices(
            ["none", "delete", "add_typo", "add_foreign", "retype", "enum", "enum_bad", "block_type",
             "routing", "template", "version", "request_field", "param"],
            weights=[4, 10, 5, 6, 14, 10, 4, 6, 7, 6, 18, 5, 5])[0]
        tags = [kind]
        if kind == "none":
            pass
        elif kind == "delete":
            obj, key, where = r.choice(self.slots(req))
            if not (obj is req and key == "workflow_definition"):
                del obj[key]
                tags.append(f"{where}.{key}")
        elif kind == "add_typo" and blocks:
            b = r.choice(blocks)
            known = [k for k in b if k in TYPOS]
            if known:
                k = r.choice(known)
                b[TYPOS[k]] = b.pop(k)
                tags.append(TYPOS[k])
        elif kind == "add_foreign" and blocks:
            b = r.choice(blocks)
            other = NEWEST.BLOCK_TYPES[r.choice(list(NEWEST.BLOCK_TYPES))]
            f = r.choice(other.fields)
            if not isinstance(f.type, t.Blocks):
                b[f.name] = self.value_for(f.name, f.type)
                tags.append(f.name)
        elif kind == "retype":
            obj, key, where = r.choice(self.slots(req))
            if key not in ("workflow_definition",):
                obj[key] = copy.deepcopy(r.choice(BAD_VALUES))
                tags.append(f"{where}.{key}")
        elif kind in ("enum", "enum_bad"):
            sites = [(b, f) for b in blocks for f in _enum_fields(b.get("block_type"))]
            if sites:
                b, f = r.choice(sites)
                values = list(_all_values(f.type))
                b[f.name] = r.choice(values) if kind == "enum" else r.choice(["Skyvern-1.0", "gmal", "pdf2", "none"])
                tags.append(f"{b['block_type']}.{f.name}={b[f.name]}")
        elif kind == "block_type" and blocks:
            b = r.choice(blocks)
            b["block_type"] = r.choice([*NEWEST.BLOCK_TYPES, "teleport", "Task"])
            tags.append(b["block_type"])
        elif kind == "routing" and d["blocks"]:
            choice = r.choice(["next_unknown", "cycle", "finally_unknown", "finally_ok", "version1", "v2_chain"])
            top = d["blocks"]
            if choice == "next_unknown":
                top[0]["next_block_label"] = "no_such_block"
            elif choice == "cycle" and len(top) > 1:
                top[0]["next_block_label"] = top[1]["label"]
                top[1]["next_block_label"] = top[0]["label"]
            elif choice == "finally_unknown":
                d["finally_block_label"] = "cleanup"
            elif choice == "finally_ok":
                d["finally_block_label"] = top[-1]["label"]
            elif choice == "version1":
                d["version"] = 1
                top[0]["next_block_label"] = top[-1]["label"] if len(top) > 1 else None
            else:
                for a, b in zip(top, top[1:]):
                    a["next_block_label"] = b["label"]
            tags.append(choice)
        elif kind == "template" and blocks:
            b = r.choice(blocks)
            texts = [f for f in NEWEST.block_fields(b["block_type"]) if f.templated == "text"
                     and isinstance(f.type, t.Str)] if b.get("block_type") in NEWEST.BLOCK_TYPES else []
            if texts:
                f = r.choice(texts)
                b[f.name] = r.choice(["{{ unclosed", "{% if x %}no end", "{{ undefined_var }}", "{{ customer_name }}",
                                      "{{ a | nosuchfilter }}", "{# comment #} ok"])
                tags.append(f"{b['block_type']}.{f.name}")
        elif kind == "version":
            self.version_specific(req, blocks, tags)
        elif kind == "request_field":
            key, value = r.choice([
                ("max_elapsed_time_minutes", r.choice([0, 1, 480, 481, True, "30"])),
                ("code_version", r.choice([0, 1, 2, 3])), ("run_with", r.choice([None, "code", "ai", "x"])),
                ("status", r.choice(["published", "draft", "archived"])), ("proxy_location", r.choice(
                    ["RESIDENTIAL_ISP", "residential", {"country": "US"}, {"country": "XX"}])),
                ("reuse_browser_session", True), ("recording_id", None), ("max_screenshot_scrolls", 5000),
                ("extra_http_headers", {"X-A": 1}), ("webhook_callback_url", "https://hooks.example.com/done"),
                ("browser_type", "chrome"), ("workflow_definition.retry_policy", {"retry_on": [{"status": "failed"}]}),
            ])
            if key.startswith("workflow_definition."):
                d[key.split(".", 1)[1]] = value
            else:
                req[key] = value
            tags.append(key)
        elif kind == "param" and d["parameters"]:
            p = r.choice(d["parameters"])
            p["key"] = r.choice(["current_date", "has space", "step_0_output", "customer_name", "ok_key"])
            tags.append("param.key=" + p["key"])
        return req, tags

    def version_specific(self, req, blocks, tags) -> None:
        r = self.r
        d = req["workflow_definition"]
        what = r.choice(["gmail", "gmail_sender", "gmail_smtp", "cc", "no_sender", "tz", "tz_bad", "engine_pinned",
                         "force_ocr", "download_attachments", "code_edited", "retry_policy", "isisp", "export",
                         "hi_defaults", "smtp_keys_missing", "skyvern3", "validation_engine"])
        tags.append(what)
        email = {"block_type": "send_email", "label": "notify", "recipients": ["ops@example.com"],
                 "subject": "Report", "body": "Done", "sender": "reports@example.com",
                 "smtp_host_secret_parameter_key": "smtp_host", "smtp_port_secret_parameter_key": "smtp_port",
                 "smtp_username_secret_parameter_key": "smtp_user", "smtp_password_secret_parameter_key": "smtp_pw"}
        if what in ("gmail", "gmail_sender", "gmail_smtp", "cc", "no_sender", "smtp_keys_missing"):
            if what in ("gmail", "gmail_sender", "gmail_smtp"):
                email["transport"] = "gmail"
                email["credential_id"] = "cred_google"
            if what in ("gmail", "no_sender"):
                del email["sender"]
            if what == "gmail_smtp":
                email["custom_smtp_host"] = "smtp.example.com"
            if what == "cc":
                email["cc"] = ["boss@example.com"]
            if what == "smtp_keys_missing":
                for k in [k for k in email if k.endswith("_secret_parameter_key")]:
                    del email[k]
            d["parameters"] += [{"parameter_type": "aws_secret", "key": k, "aws_key": k.upper()}
                                for k in ("smtp_host", "smtp_port", "smtp_user", "smtp_pw")]
            d["blocks"].append(email)
        elif what in ("tz", "tz_bad"):
            d["browser_settings"] = {"timezone_id": "Europe/Berlin" if what == "tz" else "UTC+2"}
        elif what == "retry_policy":
            d["retry_policy"] = {"max_retries": 2, "retry_on": [{"status": "failed"}]}
        elif what == "isisp":
            req["proxy_location"] = {"country": "US", "isISP": True}
        else:
            field_for = {"engine_pinned": ("navigation", "engine_pinned", True),
                         "force_ocr": ("file_url_parser", "force_ocr", True),
                         "download_attachments": ("email_inbox", "download_attachments", True),
                         "code_edited": ("code", "code_edited_by_hand", True),
                         "export": ("extraction", "export_enabled", False),
                         "hi_defaults": ("human_interaction", None, None),
                         "skyvern3": ("task", "engine", "skyvern-3.0"),
                         "validation_engine": ("validation", "engine", "skyvern-2.0")}[what]
            tag, name, value = field_for
            b = self.block(tag, "versioned_step")
            if name is None:
                for k in ("timeout_seconds", "sender", "subject", "body"):
                    b.pop(k, None)
            else:
                b[name] = value
            d["blocks"].append(b)


_NEVER_RANDOM = {"next_block_label", "engine", "browser_session_id", "credential_id", "transport", "cc", "bcc",
                 "custom_smtp_host", "custom_smtp_port", "custom_smtp_username", "custom_smtp_password",
                 "loop_over_parameter_key", "parameter_keys", "secret_response_paths", "no_match_error_code",
                 "no_results_error_code", "export_enabled", "error_code", "file_attachments", "steps", "json_schema",
                 "sftp_port", "smtp_host_secret_parameter_key", "smtp_port_secret_parameter_key",
                 "smtp_username_secret_parameter_key", "smtp_password_secret_parameter_key", "continue_on_failure",
                 "model", "download_suffix", "max_iterations", "max_steps"}


def _make_valid(tag: str, b: dict[str, Any]) -> None:
    """The few save-time rules a block must meet to be a realistic, accepted base."""
    if tag == "wait":
        b["wait_sec"] = 5
    elif tag == "action":
        b["navigation_goal"] = STRINGS["navigation_goal"][0]
    elif tag == "validation":
        b["complete_criterion"] = STRINGS["complete_criterion"][0]
    elif tag == "for_loop":
        b["loop_over_parameter_key"] = "customer_name"
    elif tag == "conditional":
        b["branch_conditions"] = [{"criteria": {"expression": "{{ total > 100 }}"}, "next_block_label": None},
                                  {"is_default": True, "next_block_label": None}]
    elif tag == "send_email":
        b["sender"] = "reports@example.com"
    elif tag == "human_interaction":
        b.update({"timeout_seconds": 3600, "sender": "hello@example.com", "subject": "Please approve",
                  "body": "A run needs your approval"})
    elif tag == "data_export":
        b["data_schema"] = {"type": "object"}
    elif tag == "email_inbox":
        b["email_client"] = "gmail"
    elif tag == "web_search":
        b.pop("json_schema", None)
    elif tag == "http_request":
        b.pop("save_response_as_file", None)
    b.pop("totp_verification_url", None)


def _all_blocks(blocks: Any):
    for b in blocks if isinstance(blocks, list) else []:
        if isinstance(b, dict):
            yield b
            yield from _all_blocks(b.get("loop_blocks"))


def _enum_fields(tag: Any) -> list[t.Field]:
    if tag not in NEWEST.BLOCK_TYPES:
        return []
    return [f for f in NEWEST.block_fields(tag) if isinstance(f.type, t.Enum)]


def _all_values(typ: t.Enum) -> tuple[str, ...]:
    from wflint.model import enums

    full = enums.ALL_ENUMS.get(typ.name, typ)
    return full.values


def _render(req: dict[str, Any], r: random.Random) -> tuple[str, str]:
    form = r.choices(["json", "yaml", "body"], weights=[5, 4, 1])[0]
    if form == "yaml":
        return "yaml", yaml.safe_dump(req, sort_keys=False, allow_unicode=True)
    if form == "body":
        return "body", json.dumps({"json_definition": req}, indent=1)
    return "json", json.dumps(req, indent=1)


def cases(seed: int = 1, count: int = 3000) -> list[Case]:
    g = Gen(seed)
    out = []
    for i in range(count):
        base = g.definition()
        req, tags = g.mutate(base)
        kind, text = _render(req, g.r)
        out.append(Case(f"gen-{seed}-{i:05d}", kind, text, tags))
    return out
