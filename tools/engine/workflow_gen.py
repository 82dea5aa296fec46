"""Seeded generation of whole workflows, and of stub cases for each, for the differential harness.

Nothing here was written against wflint's fixtures: every workflow is drawn from the block
catalogue (v1 lists and v2 graphs, every control block, nesting, failure flags, a finally block,
templates over earlier outputs and parameters, code, ``http_request`` to the loopback server,
every runnable parameter type, task-family chains with and without URLs), and every case from
the outcomes the engine's seams can stand in for (task results, failures and retries, odd-shaped
and empty outputs, LLM answers that do and do not match the schema, prompt-branch results).

``workflows(seed, count)`` and ``cases(workflow, rng, count)`` are deterministic for a seed, so a
figure is reproducible from ``(seed, count, per_workflow)``. The engine cases have the oracle's
form ``{"name", "workflow", "case"}`` (tools/engine/README.md).
"""

from __future__ import annotations

import copy
import random
from typing import Any

TASK_TYPES = ("task", "navigation", "extraction", "login", "action", "file_download", "validation", "goto_url")
PARAM_TYPES = ("string", "integer", "float", "boolean", "json")
URLS = ("https://shop.example/item", "https://example.com/a?b=1", "example.org/path", "http://news.example")


class _Builder:
    """One workflow under construction: unique labels, the parameters, what earlier blocks record."""

    def __init__(self, rng: random.Random, index: int) -> None:
        self.rng = rng
        self.index = index
        self.count = 0
        self.params: list[dict[str, Any]] = []
        self.recorded: list[tuple[str, str]] = []  # (label, block_type) of blocks placed earlier

    def label(self, kind: str) -> str:
        self.count += 1
        return f"{kind.split('_')[0]}{self.count}"

    # ----------------------------------------------------------------- parameters

    def parameters(self) -> None:
        rng = self.rng
        for i in range(rng.randint(0, 4)):
            kind = rng.choice(PARAM_TYPES)
            param: dict[str, Any] = {"parameter_type": "workflow", "key": f"p{i}_{kind[:3]}",
                                     "workflow_parameter_type": kind}
            if rng.random() < 0.5:
                param["default_value"] = _value_of(kind, rng)
            self.params.append(param)
        if rng.random() < 0.35:
            self.params.append({"parameter_type": "workflow", "key": "website_url",
                                "workflow_parameter_type": "string",
                                **({"default_value": rng.choice(URLS)} if rng.random() < 0.5 else {})})

    def param_keys(self, kind: str | None = None) -> list[str]:
        return [p["key"] for p in self.params if kind is None or p["workflow_parameter_type"] == kind]

    # ----------------------------------------------------------------- templates

    def expression(self) -> str:
        """A Jinja expression over what exists so far (parameters, earlier outputs, runtime names)."""
        rng = self.rng
        options = ["workflow_title", "current_date | length > 0", "'x' ~ 'y'", "nope", "nope | default('-')"]
        for key in self.param_keys():
            options += [key, f"{key} | string | length"]
        for label, kind in self.recorded[-4:]:
            options += [f"{label}_output", f"{label}_output is none"]
            if kind in TASK_TYPES:
                options += [f"{label}_output.extracted_information", f"{label}_output.status",
                            f"{label}.output"]
            elif kind == "code":
                options += [f"{label}_output.v", f"{label}_output | length"]
            elif kind == "text_prompt":
                options += [f"{label}_output.llm_response", f"{label}_output.answer"]
            elif kind == "http_request":
                options += [f"{label}_output.status_code", f"{label}_output.response_body.json"]
            elif kind in ("for_loop", "while_loop"):
                options += [f"{label}_output | length"]
        return rng.choice(options)

    def text(self) -> str:
        return self.rng.choice(["plain text", "value {{ %s }}" % self.expression(), "{{ %s }}" % self.expression(),
                                "a={{ %s }} b={{ %s }}" % (self.expression(), self.expression())])

    # ----------------------------------------------------------------- blocks

    def leaf(self, *, in_loop: bool = False) -> dict[str, Any]:
        rng = self.rng
        kind = rng.choices(
            ["code", "text_prompt", "http_request", "task_family", "wait", "terminate"],
            weights=[30, 14, 12, 34, 2, 3 if not in_loop else 1])[0]
        if kind == "task_family":
            kind = rng.choice(TASK_TYPES)
        block: dict[str, Any] = {"block_type": kind, "label": self.label(kind)}
        if kind == "code":
            block["code"] = self._code(in_loop)
        elif kind == "text_prompt":
            block["prompt"] = self.text()
            roll = rng.random()
            if roll < 0.45:
                block["json_schema"] = {"type": "object", "properties": {"answer": {"type": "string"}},
                                        "required": ["answer"]}
            elif roll < 0.55:
                block["json_schema"] = {"type": "object", "properties": {"n": {"type": "integer"}}}
            elif roll < 0.6:
                block["json_schema"] = {"type": "object", "properties": {
                    "answer": {"type": "string", "description": "about {{ %s }}" % self.expression()}}}
        elif kind == "http_request":
            block["method"] = rng.choice(["GET", "POST", "POST", "PUT"])
            block["url"] = rng.choice(["$ECHO_URL/echo", "$ECHO_URL/status/500", "$ECHO_URL/status/404",
                                       "$ECHO_URL/items/{{ %s }}" % self.expression()])
            if block["method"] != "GET":
                block["body"] = rng.choice([{"a": 1}, {"v": "{{ %s }}" % self.expression()},
                                            {"n": "{{ %s | json }}" % self.expression()}])
            if rng.random() < 0.2:
                block["headers"] = {"X-Note": rng.choice(["plain", "café ü", "{{ %s }}" % self.expression()])}
        elif kind in TASK_TYPES:
            self._task(block)
        elif kind == "wait":
            block["wait_sec"] = 1
        elif kind == "terminate":
            block["reason"] = rng.choice(["stop here", "stopped: {{ %s }}" % self.expression(), "{{ nope }}"])
            if rng.random() < 0.4:
                block["error_code"] = rng.choice(["STOPPED", "bad code!", "E_{{ 'x' }}"])
        self._flags(block, in_loop)
        return block

    def _code(self, in_loop: bool) -> str:
        rng = self.rng
        options = ["v = 1", "v = [i * 2 for i in range(3)]", "v = {'k': 'x', 'n': 2}", "v = 'abc'.upper()",
                   "v = None", "v = len('{{ %s }}')" % self.expression(), "v = '{{ %s }}'" % self.expression(),
                   "v = 1 / 0", "v = json.dumps({'a': [1, 2]})", "v = undefined_name + 1",
                   "v = {{ %s | tojson }}" % self.expression()]
        if in_loop:
            options += ["v = '{{ current_value }}'", "v = {{ current_index }} * 10", "v = 1 / {{ current_index }}"]
        for key in self.param_keys("integer") + self.param_keys("float"):
            options.append(f"v = {{{{ {key} }}}} + 1")
        return rng.choice(options)

    def _task(self, block: dict[str, Any]) -> None:
        rng, kind = self.rng, block["block_type"]
        roll = rng.random()
        if roll < 0.45:
            block["url"] = rng.choice(URLS)
        elif roll < 0.6 and "website_url" in self.param_keys():
            block["url"] = rng.choice(["website_url", "{{ website_url }}"])
        elif roll < 0.65:
            block["url"] = "{{ %s }}" % self.expression()
        elif kind == "goto_url":
            block["url"] = rng.choice(URLS)
        goals = {"navigation": "navigation_goal", "task": "navigation_goal", "action": "navigation_goal",
                 "file_download": "navigation_goal", "login": "navigation_goal",
                 "extraction": "data_extraction_goal"}
        if kind in goals:
            block[goals[kind]] = rng.choice(["do the thing", "use {{ %s }}" % self.expression()])
        if kind == "task" and rng.random() < 0.4:
            block["data_extraction_goal"] = "read it"
        if kind == "validation":
            block["complete_criterion"] = "looks done"
        if kind != "goto_url" and rng.random() < 0.3:
            block["max_retries"] = rng.choice([0, 1, 2])

    def _flags(self, block: dict[str, Any], in_loop: bool) -> None:
        rng = self.rng
        if rng.random() < 0.3:
            block["continue_on_failure"] = True
        if in_loop and rng.random() < 0.25:
            block["next_loop_on_failure"] = True

    def loop(self, depth: int, v2: bool) -> dict[str, Any]:
        rng = self.rng
        kind = rng.choice(["for_loop", "for_loop", "while_loop"])
        block: dict[str, Any] = {"block_type": kind, "label": self.label(kind)}
        if kind == "for_loop":
            sources = [k for k in self.param_keys("json")]
            earlier = [lbl for lbl, k in self.recorded if k in ("code", "text_prompt", "http_request") or k in TASK_TYPES]
            roll = rng.random()
            if sources and roll < 0.45:
                block["loop_over_parameter_key"] = rng.choice(sources)
            elif earlier and roll < 0.8:
                ref = rng.choice(earlier)
                block["loop_variable_reference"] = rng.choice([f"{ref}_output", f"{ref}_output.v", f"{ref}",
                                                               f"{ref}_output.extracted_information"])
            else:
                block["loop_variable_reference"] = rng.choice(["{{ [1, 2, 3] }}", "[]", "{{ nope }}"])
            if rng.random() < 0.3:
                block["complete_if_empty"] = True
        else:
            block["loop_blocks"] = []
            block["condition"] = {"criteria_type": "jinja2_template",
                                  "expression": rng.choice(["{{ current_index < 2 }}", "{{ current_index < 0 }}",
                                                            "{{ current_index < 3 and true }}"])}
        if rng.random() < 0.25:
            block["next_loop_on_failure"] = True
        if rng.random() < 0.2:
            block["continue_on_failure"] = True
        saved = list(self.recorded)
        block["loop_blocks"] = self.body(depth + 1, v2, in_loop=True)
        self.recorded = saved + [(c["label"], c["block_type"]) for c in block["loop_blocks"]]
        return block

    def body(self, depth: int, v2: bool, *, in_loop: bool) -> list[dict[str, Any]]:
        """A loop body: a short list, or (now and then) a routed body with a conditional, which a
        loop allows in v1 as well (the version check looks at top-level blocks only)."""
        rng = self.rng
        if depth < 2 and rng.random() < 0.25:
            return self.routed(depth, in_loop=True, length=rng.randint(1, 2))
        out = []
        for _ in range(rng.randint(1, 3)):
            if depth < 2 and rng.random() < 0.12:
                out.append(self.loop(depth, v2))
            else:
                out.append(self.leaf(in_loop=in_loop))
            self.recorded.append((out[-1]["label"], out[-1]["block_type"]))
        return out

    def conditional(self, in_loop: bool) -> dict[str, Any]:
        rng = self.rng
        branches = []
        for _ in range(rng.randint(1, 3)):
            roll = rng.random()
            if roll < 0.2:
                criteria = {"criteria_type": "prompt", "expression": "is the page about {{ %s }}?" % self.expression()}
            elif roll < 0.28:
                criteria = {"criteria_type": "jinja2_template", "expression": self.expression()}  # no braces
            else:
                criteria = {"criteria_type": "jinja2_template", "expression": "{{ %s }}" % rng.choice([
                    self.expression(), f"({self.expression()} | string | length) > 3",
                    f"{self.expression()} == 'a'", "current_index == 1" if in_loop else "true"])}
            branches.append({"criteria": criteria})
        if rng.random() < 0.75:
            branches.append({"is_default": True})
        return {"block_type": "conditional", "label": self.label("conditional"), "branch_conditions": branches}

    def routed(self, depth: int, *, in_loop: bool, length: int) -> list[dict[str, Any]]:
        """A v2 chain: main blocks with explicit edges; each conditional's branches lead to short
        chains that end without a next (they merge at the conditional's next)."""
        rng = self.rng
        main: list[dict[str, Any]] = []
        extra: list[dict[str, Any]] = []
        for _ in range(length):
            if rng.random() < 0.4:
                cond = self.conditional(in_loop)
                main.append(cond)
                saved = list(self.recorded)
                for branch in cond["branch_conditions"]:
                    if rng.random() < 0.15:
                        branch["next_block_label"] = None
                        continue
                    chain = [self.leaf(in_loop=in_loop) for _ in range(rng.randint(1, 2))]
                    for a, b in zip(chain, chain[1:]):
                        a["next_block_label"] = b["label"]
                    branch["next_block_label"] = chain[0]["label"]
                    extra.extend(chain)
                    self.recorded = saved + [(c["label"], c["block_type"]) for c in chain]
                self.recorded = saved
            elif depth < 2 and rng.random() < 0.2:
                main.append(self.loop(depth, True))
            else:
                main.append(self.leaf(in_loop=in_loop))
            self.recorded.append((main[-1]["label"], main[-1]["block_type"]))
        for a, b in zip(main, main[1:]):
            a["next_block_label"] = b["label"]
        return main + extra


def _value_of(kind: str, rng: random.Random) -> Any:
    if kind == "string":
        return rng.choice(["a", "hello world", "", "ünï", "https://shop.example/x"])
    if kind == "integer":
        return rng.choice([0, 1, 3, 12, -2])
    if kind == "float":
        return rng.choice([0.0, 2.5, 99.9])
    if kind == "boolean":
        return rng.choice([True, False])
    return rng.choice([[], [1, 2], ["a", "b", "c"], {"id": 1, "kind": "x"}, [{"n": 1}, {"n": 2}], "text", 5])


def workflow(rng: random.Random, index: int) -> dict[str, Any]:
    """One generated workflow request (``{title, workflow_definition}``)."""
    b = _Builder(rng, index)
    b.parameters()
    style = rng.choices(["v1", "v2", "implicit_v2"], weights=[50, 30, 20])[0]
    if style == "v1":
        blocks = []
        for _ in range(rng.randint(1, 5)):
            blocks.append(b.loop(0, False) if rng.random() < 0.25 else b.leaf())
            b.recorded.append((blocks[-1]["label"], blocks[-1]["block_type"]))
    else:
        blocks = b.routed(0, in_loop=False, length=rng.randint(1, 4))
    definition: dict[str, Any] = {"parameters": b.params, "blocks": blocks}
    if style == "v2":
        definition["version"] = 2
    if rng.random() < 0.25:
        fin = {"block_type": "code", "label": "fin", "code": rng.choice(["done = True", "x = 1 / 0", "s = '{{ workflow_title }}'"])}
        blocks.append(fin)
        definition["finally_block_label"] = "fin"
    return {"title": f"generated {index}", "workflow_definition": definition}


def _all_blocks(blocks: Any) -> list[dict[str, Any]]:
    out = []
    for block in blocks if isinstance(blocks, list) else []:
        if isinstance(block, dict):
            out.append(block)
            out.extend(_all_blocks(block.get("loop_blocks")))
    return out


def case(request: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """One stub table for ``request``: parameter values, task outcomes, LLM answers, branch results."""
    definition = request.get("workflow_definition") or {}
    out: dict[str, Any] = {}
    params = {}
    for p in definition.get("parameters") or []:
        if not isinstance(p, dict) or p.get("parameter_type", "workflow") != "workflow" or not isinstance(p.get("key"), str):
            continue
        if "default_value" in p and rng.random() < 0.5:
            continue
        kind = p.get("workflow_parameter_type") or "string"
        params[p["key"]] = rng.choice(URLS + ("",)) if p["key"] == "website_url" else _value_of(kind, rng)
        if rng.random() < 0.05:
            params[p["key"]] = rng.choice(["abc", "1.5", "true"])  # odd: the run may be refused
    if params:
        out["parameters"] = params
    for block in _all_blocks(definition.get("blocks") or []):
        label, kind = block.get("label"), block.get("block_type")
        if not isinstance(label, str):
            continue
        roll = rng.random()
        if kind in TASK_TYPES and roll < 0.85:
            out.setdefault("tasks", {})[label] = [_task_outcome(rng) for _ in range(rng.choice([1, 1, 2, 3]))]
        elif kind == "text_prompt" and roll < 0.9:
            out.setdefault("llm", {})[label] = rng.choice([
                {"answer": "yes"}, "plain text", {"answer": 3}, {"n": 4}, {"n": "four"}, {},
                [{"wrong": 1}, {"answer": "second"}], {"raise": "LLM unavailable"}, {"answer": "ünï"}])
        elif kind == "conditional":
            prompts = sum(1 for br in block.get("branch_conditions") or []
                          if (br.get("criteria") or {}).get("criteria_type") == "prompt")
            if prompts and roll < 0.8:
                out.setdefault("prompt_branches", {})[label] = [rng.random() < 0.5 for _ in range(prompts)]
        elif kind not in SIMULATED_TYPES or (kind == "http_request" and not _loopback(block)):
            # a block that needs a service (e-mail, files, S3, another workflow ...) or a host
            # other than the loopback server: the block seam decides, on both sides
            out.setdefault("blocks", {})[label] = rng.choice([
                {"output": {"ok": True}}, {"output": None}, {"fail": "stubbed failure"}, {"output": ["a", "b"]}])
        elif kind in ("code", "http_request", "text_prompt", "wait") and roll < 0.08:
            out.setdefault("blocks", {})[label] = rng.choice([
                {"output": {"stubbed": True}}, {"fail": "stubbed failure"},
                {"status": "terminated", "fail": "stop"}, {"status": "canceled"},
                {"status": "timed_out", "fail": "slow"}, {"output": []}, {"output": "text"}])
    return out


SIMULATED_TYPES = frozenset({"code", "text_prompt", "http_request", "wait", "terminate", "conditional",
                             "for_loop", "while_loop", *TASK_TYPES})


def _loopback(block: dict[str, Any]) -> bool:
    return str(block.get("url") or "").startswith("$ECHO_URL")


def _task_outcome(rng: random.Random) -> dict[str, Any]:
    status = rng.choices(["completed", "failed", "terminated", "canceled", "timed_out"], weights=[60, 22, 8, 3, 3])[0]
    outcome: dict[str, Any] = {"status": status, "extracted_information": rng.choice([
        None, {"price": 3}, {"rows": [1, 2]}, [1, 2, 3], "text", 42, 2.5, {}, [], {"results": ["a", "b"]},
        {"nested": {"k": [1, {"x": None}]}}])}
    if status != "completed":
        outcome["failure_reason"] = rng.choice(["element not found", "blocked by a captcha", None, "ünï failed"])
    return outcome


def generate(seed: int, workflows: int, per_workflow: int) -> list[dict[str, Any]]:
    """``workflows`` generated workflows with ``per_workflow`` cases each, as engine cases."""
    rng = random.Random(seed)
    out = []
    for w in range(workflows):
        request = workflow(rng, w)
        for c in range(per_workflow):
            out.append({"name": f"gen{seed}-w{w}-c{c}", "workflow": request, "case": case(request, rng)})
    return out


def variants(engine_case: dict[str, Any]) -> list[dict[str, Any]]:
    """One-step reductions of a case, for shrinking a disagreement: each drops one block (and
    edges to it) or one stub entry. Candidates that no longer disagree are discarded by the caller."""
    out = []
    request = engine_case["workflow"]
    top = request["workflow_definition"]["blocks"]

    def without(blocks: list[dict[str, Any]], label: str) -> list[dict[str, Any]]:
        kept = []
        for block in blocks:
            if block["label"] == label:
                continue
            block = copy.deepcopy(block)
            if block.get("next_block_label") == label:
                gone = next((b for b in blocks if b["label"] == label), {})
                block["next_block_label"] = gone.get("next_block_label")
            for br in block.get("branch_conditions") or []:
                if br.get("next_block_label") == label:
                    br["next_block_label"] = None
            if "loop_blocks" in block:
                block["loop_blocks"] = without(block["loop_blocks"], label)
            kept.append(block)
        return kept

    for block in _all_blocks(top):
        if block["label"] == request["workflow_definition"].get("finally_block_label"):
            continue
        smaller = copy.deepcopy(request)
        smaller["workflow_definition"]["blocks"] = without(top, block["label"])
        if not smaller["workflow_definition"]["blocks"]:
            continue
        out.append({**engine_case, "workflow": smaller})
    if request["workflow_definition"].get("finally_block_label"):
        smaller = copy.deepcopy(request)
        smaller["workflow_definition"].pop("finally_block_label")
        smaller["workflow_definition"]["blocks"] = [b for b in smaller["workflow_definition"]["blocks"] if b["label"] != "fin"]
        if smaller["workflow_definition"]["blocks"]:
            out.append({**engine_case, "workflow": smaller})
    for table, entries in engine_case["case"].items():
        if isinstance(entries, dict):
            for key in entries:
                case_copy = copy.deepcopy(engine_case["case"])
                del case_copy[table][key]
                out.append({**engine_case, "case": case_copy})
    return out
