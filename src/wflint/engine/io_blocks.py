"""Blocks that talk to the outside: http_request (a real request unless stubbed or the network is
off), text_prompt (the LLM, from the case's ``llm`` stubs) and the browser-agent task blocks
(from the case's ``tasks`` stubs, with the engine's retries and ``TaskOutput`` shape)."""

from __future__ import annotations

import json
import urllib.parse
from functools import lru_cache
from typing import Any

from jsonschema import Draft202012Validator, SchemaError

from . import http_transport, semantics, stops
from .blocks import template_failure
from .http_transport import AddressGuard
from .results import BlockResult, Runtime, failed
from .stubs import LLM_RAISE_KEY
from .templates import TemplateFailure, render, render_json_value

# --------------------------------------------------------------------------- http_request


def http_request(rt: Runtime, block: dict[str, Any]) -> BlockResult:
    label = block["label"]
    namespace = rt.ctx.namespace(label)
    try:
        url = render(block.get("url"), namespace)
        headers = {k: render(str(v), namespace) for k, v in (block.get("headers") or {}).items()}
        body = render_json_value(block.get("body"), namespace) if block.get("body") is not None else None
    except TemplateFailure as exc:
        return template_failure(rt, label, exc, f"Failed to format jinja template: {exc}")
    method = str(block.get("method") or "GET").upper()
    rt.note_input("request", f"{method} {url}")
    if body is not None:
        rt.note_input("body", body)
    if not url:
        return failed("URL is required for HTTP request")
    parts = _split(url)
    if parts is None:
        return failed("Invalid url: malformed.")
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return failed("Invalid url: malformed.")
    if not any(k.lower() == "content-type" for k in headers):
        headers["Content-Type"] = "application/json"
    timeout = block.get("timeout") or 30
    if not rt.network:
        reason = "network access is off (wflint simulate --no-network) and the case has no stub for this block"
        output = {"error": reason, "error_type": "unknown"}
        rt.ctx.record_output(label, output)
        return failed(f"HTTP request failed: {reason}", output)
    try:
        signal = stops.CURRENT.get()  # the run's own deadline cuts a long request short too
        left = signal.remaining() if signal is not None else None
        status, response_headers, response_body = _send(
            method, url, headers, body, timeout if left is None else max(min(timeout, left), 0.01),
            follow_redirects=block.get("follow_redirects") is not False,
            guard=getattr(rt, "address_guard", AddressGuard()))
    except TimeoutError:
        output = {"error": "Request timed out", "error_type": "timeout"}
        rt.ctx.record_output(label, output)
        return BlockResult("timed_out", output, f"Request timed out after {timeout} seconds")
    except Exception as exc:  # noqa: BLE001 - every transport error fails the block the same way
        output = {"error": str(exc), "error_type": "unknown"}
        rt.ctx.record_output(label, output)
        return failed(f"HTTP request failed: {exc}", output)
    response_headers = {_canonical_header(k): v for k, v in response_headers.items()}
    output = {
        "status_code": status, "response_headers": response_headers, "response_body": response_body,
        "request_method": method, "request_url": url, "request_headers": headers, "request_body": body,
        "headers": response_headers, "body": response_body, "url": url,
    }
    rt.ctx.record_output(label, output)
    if 200 <= status < 300:
        return BlockResult("completed", output)
    return failed(f"HTTP {status}: {response_body}", output)


#: what may stay unescaped in a path or query (RFC 3986; ``%`` keeps existing escapes)
_URL_SAFE = "/:@!$&'()*+,;=%-._~"


def _requote(url: str) -> str:
    """The URL as aiohttp (yarl) sends it: spaces, brackets, braces and other characters a URL
    cannot carry percent-encoded in its path and query; the output's ``request_url`` keeps the
    text as rendered."""
    parts = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit(parts._replace(path=urllib.parse.quote(parts.path, safe=_URL_SAFE),
                                                  query=urllib.parse.quote(parts.query, safe=_URL_SAFE + "?")))


def _split(url: str) -> urllib.parse.SplitResult | None:
    """The URL's parts, or None when it cannot be parsed at all (an unbalanced ``[`` host...)."""
    try:
        return urllib.parse.urlsplit(url)
    except ValueError:
        return None


def _canonical_header(name: str) -> str:
    """aiohttp spells the headers it knows canonically (``Content-Type``), whatever the server sent."""
    return "-".join(part[:1].upper() + part[1:].lower() for part in name.split("-"))


def _send(method: str, url: str, headers: dict[str, str], body: Any, timeout: float, *,
          follow_redirects: bool = True, guard: AddressGuard = AddressGuard()) -> tuple[int, dict, Any]:
    """The real request (``http_transport``: a total timeout, the engine's redirects, the
    server's address guard, a body cap); the body parsed as JSON when it is JSON."""
    data = None
    if body is not None:
        content_type = next((v for k, v in headers.items() if k.lower() == "content-type"), "")
        if "application/json" in content_type.lower():
            data = json.dumps(body).encode()
        elif isinstance(body, dict):
            data = urllib.parse.urlencode(body).encode()
        else:
            data = str(body).encode()
    # aiohttp sends header values as UTF-8 (http.client would refuse anything past latin-1) and
    # the URL requoted as yarl does
    utf8_headers = {k: str(v).encode("utf-8") for k, v in headers.items()}
    status, response_headers, raw = http_transport.request(method, _requote(url), utf8_headers, data, timeout,
                                                           follow_redirects=follow_redirects, guard=guard)
    text = raw.decode("utf-8", "replace")
    try:
        return status, response_headers, json.loads(text)
    except ValueError:
        return status, response_headers, text


# --------------------------------------------------------------------------- text_prompt


def text_prompt(rt: Runtime, block: dict[str, Any]) -> BlockResult:
    label = block["label"]
    namespace = rt.ctx.namespace(label)
    try:
        prompt = render(block.get("prompt") or "", namespace) or ""
        schema = render_schema(block.get("json_schema"), namespace) if block.get("json_schema") else None
    except TemplateFailure as exc:
        return template_failure(rt, label, exc, f"Failed to format jinja template: {exc}")
    for key in block.get("parameter_keys") or []:
        if key not in rt.ctx.values:
            return failed(
                f"Parameter '{key}' is not available in the workflow context. "
                "An upstream block that produces this value may have failed or been skipped."
            )
    schema = schema or semantics.DEFAULT_TEXT_PROMPT_SCHEMA
    if not _valid_schema(json.dumps(schema, default=str)):
        return failed("Text prompt JSON schema is invalid.")
    retry_reason: str | None = None
    response: Any = None
    for _attempt in range(semantics.TEXT_PROMPT_SCHEMA_ATTEMPTS):
        sent = prompt if retry_reason is None else semantics.TEXT_PROMPT_RETRY.format(prompt=prompt, failure=retry_reason)
        sent += semantics.TEXT_PROMPT_SUFFIX.format(schema=json.dumps(schema, indent=2))
        rt.llm_prompts.append({"label": label, "prompt": sent})
        rt.note_input("prompt", sent)
        if not rt.stubs.has("llm", label):
            rt.stubs.unstubbed.append(f"llm:{label}")
            return failed(f"LLM call failed: no llm stub for {label}")
        answer = rt.stubs.take("llm", label)
        if isinstance(answer, dict) and set(answer) == {LLM_RAISE_KEY}:
            return failed(f"LLM call failed: {answer[LLM_RAISE_KEY]}")
        response = {"llm_response": answer} if isinstance(answer, str) else answer
        retry_reason = schema_failure(response, schema)
        if retry_reason is None:
            break
    else:
        return failed(retry_reason)
    rt.ctx.record_output(label, response)
    return BlockResult("completed", response)


def render_schema(value: Any, namespace: dict[str, Any]) -> Any:
    """``_render_schema_templates``: every string value of the schema rendered on its own (keys
    are not); one that fails to render keeps its text. What it renders to can still make the
    schema invalid, which fails the block before any LLM call."""
    if isinstance(value, str):
        try:
            return render(value, namespace)
        except TemplateFailure:
            return value
    if isinstance(value, dict):
        return {k: render_schema(v, namespace) for k, v in value.items()}
    if isinstance(value, list):
        return [render_schema(item, namespace) for item in value]
    return value


@lru_cache(maxsize=256)
def _valid_schema(schema_text: str) -> bool:
    """``validate_schema``: checked as a draft 2020-12 schema, whatever ``$schema`` says."""
    try:
        Draft202012Validator.check_schema(json.loads(schema_text))
    except SchemaError:
        return False
    return True


@lru_cache(maxsize=256)
def _validator(schema_text: str) -> Draft202012Validator:
    return Draft202012Validator(json.loads(schema_text))


def schema_failure(response: Any, schema: dict[str, Any]) -> str | None:
    """``_validate_response_against_json_schema``: the engine's wording of what does not match."""
    validator = _validator(json.dumps(schema, default=str))
    errors = list(dict.fromkeys(_describe(e) for e in validator.iter_errors(response)))
    if not errors:
        return None
    return "LLM response does not match text prompt JSON schema: " + "; ".join(
        errors[: semantics.TEXT_PROMPT_SCHEMA_MAX_ERRORS])


def _json_type(value: Any) -> str:
    for kind, name in ((type(None), "null"), (bool, "boolean"), (dict, "object"), (list, "array"),
                       (str, "string"), (int, "integer"), (float, "number")):
        if isinstance(value, kind):
            return name
    return type(value).__name__


def _describe(error: Any) -> str:
    path, parts, index = list(error.absolute_schema_path), [], 0
    while index < len(path):
        part = path[index]
        if part == "properties" and index + 1 < len(path):
            parts.append(str(path[index + 1]))
            index += 2
            continue
        if part == "items":
            parts.append("[]")
        elif part in ("additionalProperties", "patternProperties"):
            parts.append("<map value>")
            index += 1 if part == "additionalProperties" or index + 1 >= len(path) else 2
            continue
        index += 1
    where = "root" + "".join(p if p == "[]" else f".{p}" for p in parts)
    actual = _json_type(error.instance)
    if error.validator == "type":
        expected = error.validator_value
        expected = " or ".join(map(str, expected)) if isinstance(expected, list) else str(expected)
        return f"{where}: expected type {expected}, got {actual}"
    if error.validator == "required":
        name = error.message.split("'")[1] if error.message.count("'") >= 2 else ""
        return f"{where}: missing required property {name}".rstrip()
    if error.validator == "additionalProperties":
        props = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
        if isinstance(error.instance, dict) and isinstance(props, dict):
            return f"{where}: has {sum(1 for f in error.instance if f not in props)} unexpected properties"
        return f"{where}: has unexpected properties"
    if error.validator in ("minItems", "maxItems") and isinstance(error.instance, list):
        return f"{where}: violates {error.validator}={error.validator_value}; item count={len(error.instance)}"
    if error.validator in ("minLength", "maxLength") and isinstance(error.instance, str):
        return f"{where}: violates {error.validator}={error.validator_value}; string length={len(error.instance)}"
    if error.validator == "enum":
        count = len(error.validator_value) if isinstance(error.validator_value, list) else "configured"
        return f"{where}: value is not one of {count} allowed values; got {actual}"
    return f"{where}: violates {error.validator} constraint; got {actual}"


# --------------------------------------------------------------------------- task blocks

_TASK_FIELDS = ("url", "navigation_goal", "data_extraction_goal", "complete_criterion", "terminate_criterion")


def task(rt: Runtime, block: dict[str, Any]) -> BlockResult:
    """The task seam: the real block's retries and ``TaskOutput`` around the stubbed agent."""
    label = block["label"]
    if block.get("block_type") == "validation" and rt.tasks_created == 0:
        # ``ValidationBlock.execute``: checked before anything renders; no output is recorded
        return BlockResult("terminated", None, semantics.VALIDATION_FIRST)
    namespace = rt.ctx.namespace(label)
    if block.get("block_type") == "validation":
        # ``ValidationBlockYAML`` has neither ``url`` nor ``max_retries``: the save drops them
        block = {k: v for k, v in block.items() if k not in ("url", "max_retries")}
    fields = {name: block.get(name) for name in _TASK_FIELDS}
    fields["url"] = parameterised_url(rt, block.get("url"))
    rendered: dict[str, str] = {}
    try:
        for name in _TASK_FIELDS:
            if fields[name]:
                rendered[name] = render(str(fields[name]), namespace) or ""
                rt.note_input(name, rendered[name])
    except TemplateFailure as exc:
        return template_failure(rt, label, exc, f"Failed to format jinja template: {exc}")
    url = (rendered.get("url") or "").strip()
    if url:
        # a url without a scheme is taken as https (``prepend_scheme_and_validate_url``)
        parts = _split(url if "://" in url else "https://" + url)
        if (parts is None or parts.scheme not in ("http", "https") or any(c.isspace() for c in parts.netloc)
                or len(url) > semantics.MAX_URL_LENGTH):
            reason = f"Failed to format jinja template: {semantics.TASK_URL_MALFORMED}"
            rt.ctx.record_output(label, {"failure_reason": reason})
            return failed(reason, {"failure_reason": reason})
        rt.page_url = url
    rt.tasks_created += 1  # the task row exists from here on, whatever the URL checks say next
    if not url and not rt.browser_open:
        # ``MissingStarterUrl``: the run's first browser block has nowhere to go
        rt.browser_open = True
        rt.ctx.record_output(label, None)
        return failed(semantics.MISSING_STARTER_URL.format(label=label))
    if not fields["url"] and rt.page_url in ("about:blank", ""):
        # only a block with no url at all: one whose url template rendered empty goes on
        # (observed: ``url: "{{ failed_block.output }}"`` after a failed first block completes)
        # ``resolve_inherited_workflow_task_page``: the open page is still blank
        rt.ctx.record_output(label, None)
        return failed(f"No Valid URL found in the first task of workflow run {rt.ctx.runtime['workflow_run_id']}")
    rt.browser_open = True
    max_retries = max(0, int(block.get("max_retries") or 0))
    retry = 0
    while True:
        if not rt.stubs.has("tasks", label):
            rt.stubs.unstubbed.append(f"task:{label}")
        outcome = rt.stubs.take("tasks", label) or {}
        status = str(outcome.get("status") or "completed")
        output = task_output(status, outcome)
        reason = outcome.get("failure_reason")
        task_id = output["task_id"]
        if status in ("completed", "terminated"):
            rt.ctx.record_output(label, output)
            if status == "terminated":
                reason = reason or f"Task {task_id} finished with status {status}"
            return BlockResult(status, output, reason, errors=list(output["errors"]))
        if status == "canceled":
            return BlockResult("canceled", None, reason or f"Task {task_id} was canceled")
        if status == "timed_out":
            return BlockResult("timed_out", None, reason or f"Task {task_id} timed out")
        retry += 1
        if retry <= max_retries and not semantics.is_anti_bot_failure(reason):
            continue
        rt.ctx.record_output(label, output)
        return BlockResult("failed", output, reason or f"Task {task_id} failed with status {status}",
                           errors=list(output["errors"]))


def parameterised_url(rt: Runtime, url: Any) -> Any:
    """A task's ``url`` that is a parameter's key (``url: website_url``, as the service's docs
    write it) is that parameter's value, before any rendering; an empty value leaves the block
    on the page that is open (``has_parameter(self.url)`` in ``BaseTaskBlock.execute``)."""
    if isinstance(url, str) and url and url in rt.ctx.values:
        return rt.ctx.values[url] or None
    return url


def stored_extracted_information(value: Any) -> Any:
    """The task row keeps ``extracted_information`` as a list, an object or text: a number or a
    boolean the agent returned is stored (and later read) as its JSON text (``TaskOutput``)."""
    if isinstance(value, (int, float)):
        return json.dumps(value)  # as JSON writes it: 42 -> "42", True -> "true"
    return value


class TaskStatus(str):
    """A task output's ``status`` as the engine keeps it in memory: a ``TaskStatus`` string enum,
    text everywhere but in a Python repr (``{{ task_output }}`` shows ``<TaskStatus.completed:
    'completed'>``)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"<TaskStatus.{self}: '{self}'>"

    def __deepcopy__(self, memo: Any) -> "TaskStatus":
        return self


def task_output(status: str, outcome: dict[str, Any]) -> dict[str, Any]:
    return {
        "task_id": "tsk_simulated", "status": TaskStatus(status),
        "extracted_information": stored_extracted_information(outcome.get("extracted_information")),
        "failure_reason": outcome.get("failure_reason"), "errors": list(outcome.get("errors") or []),
        "failure_category": None, "downloaded_files": [], "downloaded_file_urls": None,
        "downloaded_file_artifact_ids": None, "task_screenshots": None, "workflow_screenshots": None,
        "task_screenshot_artifact_ids": [], "workflow_screenshot_artifact_ids": [],
    }


