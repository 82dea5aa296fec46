"""Rules WF301, WF305 and WF501-WF506 through ``wflint.api.evaluate``: codes, severities, the
key facts of each message, and the service's answer (``rejections[0]``) for save-time cases,
including the §6.11 precedence cases these rules take part in."""

from __future__ import annotations

import pytest

from wflint.api import check_bytes, evaluate


def request(blocks=(), parameters=(), version=None, **top):
    definition = {"parameters": list(parameters), "blocks": list(blocks)}
    if version is not None:
        definition["version"] = version
    return {"title": "t", **top, "workflow_definition": definition}


def wait(label, sec=1, **kw):
    return {"block_type": "wait", "label": label, "wait_sec": sec, **kw}


def found(ev, code):
    return [d for d in ev.diagnostics if d.code == code]


def only(ev, code):
    [d] = found(ev, code)
    return d


def first(ev):
    r = ev.rejections[0]
    return r.status, r.detail


def errors(ev):
    return [d for d in ev.diagnostics if d.severity == "error"]


# --------------------------------------------------------------------------- WF301


def test_wf301_version_1_with_routing():
    ev = evaluate(request([wait("a", next_block_label="b"), wait("b")], version=1))
    d = only(ev, "WF301")
    assert d.severity == "error" and "'a' has next_block_label 'b'" in d.message
    assert "must be 2 or greater" in d.message
    assert first(ev) == (422, None)  # a request-model error: the server renders the body


def test_wf301_conditional_and_lax_string_version():
    blocks = [{"block_type": "conditional", "label": "c", "branch_conditions": [{"is_default": True}]}]
    assert only(evaluate(request(blocks, version="1")), "WF301").severity == "error"


@pytest.mark.parametrize("version", [None, 2, 3])
def test_wf301_quiet_when_version_fits(version):
    assert not found(evaluate(request([wait("a", next_block_label="b"), wait("b")], version=version)), "WF301")


def test_wf301_loop_bodies_do_not_count():
    loop = {"block_type": "for_loop", "label": "l", "loop_variable_reference": "{{ [1] }}",
            "loop_blocks": [wait("x", next_block_label="y"), wait("y")]}
    assert not found(evaluate(request([loop], version=1)), "WF301")


# --------------------------------------------------------------------------- WF305


def conditional(*branches, label="c"):
    return {"block_type": "conditional", "label": label, "branch_conditions": list(branches)}


CRIT = {"criteria": {"expression": "{{ ok }}"}}


@pytest.mark.parametrize("branches,fact", [
    ([], "Conditional blocks require at least one branch."),
    ([{"is_default": True}, {"is_default": "yes"}], "Only one default branch is permitted per conditional block."),
    ([{**CRIT, "is_default": True}], "Default branches may not define criteria."),
    ([{"next_block_label": None}], "Branches without criteria must be marked as default."),
])
def test_wf305_branch_rules(branches, fact):
    ev = evaluate(request([conditional(*branches)]))
    d = only(ev, "WF305")
    assert fact in d.message and d.severity == "error"
    assert first(ev) == (422, None)


def test_wf305_missing_branch_list_is_empty():
    ev = evaluate(request([{"block_type": "conditional", "label": "c"}]))
    assert "at least one branch" in only(ev, "WF305").message


def test_wf305_zero_defaults_and_one_default_pass():
    assert not found(evaluate(request([conditional(CRIT)])), "WF305")
    assert not found(evaluate(request([conditional(CRIT, {"is_default": True})])), "WF305")


# --------------------------------------------------------------------------- WF501


def test_wf501_action_without_goal():
    ev = evaluate(request([{"block_type": "action", "label": "a", "url": "https://x"}]))
    assert only(ev, "WF501").severity == "error"
    assert first(ev) == (422, "Action block 'a' requires navigation_goal")


def test_wf501_validation_without_criteria():
    ev = evaluate(request([{"block_type": "validation", "label": "v", "complete_criterion": ""}]))
    assert first(ev) == (422, "Validation block 'v' requires at least one of complete_criterion or terminate_criterion")


def test_wf501_extraction_export_without_schema():
    block = {"block_type": "extraction", "label": "e", "data_extraction_goal": "rows", "export_enabled": "true",
             "export_data_schema": {}}
    ev = evaluate(request([block]))
    assert "is empty" in only(ev, "WF501").message
    assert first(ev) == (422, "Extraction block 'e' has export enabled but no export_data_schema. A Parquet export "
                              "needs a schema for the exported records.")


def test_wf501_accepted_blocks():
    blocks = [{"block_type": "action", "label": "a", "navigation_goal": "Click Next"},
              {"block_type": "validation", "label": "v", "terminate_criterion": "an error banner shows"},
              {"block_type": "extraction", "label": "e", "data_extraction_goal": "rows", "export_enabled": False}]
    assert not found(evaluate(request(blocks)), "WF501")


def test_wf501_blank_goal_is_a_warning():
    ev = evaluate(request([{"block_type": "action", "label": "a", "navigation_goal": "   "}]))
    assert only(ev, "WF501").severity == "warning" and not ev.rejections


def test_wf501_block_order_decides():
    # §6.11: action without a goal (block 1) and wait_sec: 0 (block 2) → the action error
    ev = evaluate(request([{"block_type": "action", "label": "a"}, wait("w", 0)]))
    assert first(ev) == (422, "Action block 'a' requires navigation_goal")


def test_wf501_loop_child_beats_its_loop():
    # §6.11: a loop without a source whose child fails → the child's error (children first)
    loop = {"block_type": "for_loop", "label": "l", "loop_blocks": [{"block_type": "action", "label": "a"}]}
    ev = evaluate(request([loop]))
    assert found(ev, "WF211")
    assert first(ev) == (422, "Action block 'a' requires navigation_goal")


def test_stage_e_beats_stage_f():
    # §6.11: wait_sec: 0 and a dangling next_block_label → the wait error
    ev = evaluate(request([wait("a", 0, next_block_label="nowhere")]))
    assert found(ev, "WF202")
    assert first(ev)[1].startswith("Invalid wait time 0 for wait block 'a'")


# --------------------------------------------------------------------------- WF502


def workflow_param(kind, value, key="k"):
    return {"parameter_type": "workflow", "key": key, "workflow_parameter_type": kind, "default_value": value}


@pytest.mark.parametrize("kind,value,shown", [
    ("integer", "abc", "abc"),
    ("integer", "1.5", "1.5"),
    ("integer", {"a": 1}, "{'a': 1}"),
    ("float", "x", "x"),
    ("boolean", "yes", "yes"),
    ("boolean", 2, "2"),
])
def test_wf502_refused_defaults(kind, value, shown):
    ev = evaluate(request([wait("a")], [workflow_param(kind, value)]))
    assert only(ev, "WF502").severity == "error"
    assert first(ev) == (400, f"Invalid workflow parameter. Expected parameter type: {kind}. Value: {shown}.")


@pytest.mark.parametrize("kind,value", [
    ("integer", "12"), ("integer", 3), ("float", "1.5"), ("float", 2), ("boolean", "TRUE"), ("boolean", 0),
    ("boolean", "1"), ("string", 5), ("string", "text"), ("json", [1, 2]), ("json", {"a": 1}), ("file_url", "s3://b/k"),
    ("credential_id", "cred_1"), ("integer", None),
])
def test_wf502_accepted_defaults(kind, value):
    assert not found(evaluate(request([wait("a")], [workflow_param(kind, value)])), "WF502")


@pytest.mark.parametrize("kind,value,fact", [
    ("string", {"a": 1}, "{'a': 1}"),
    ("string", True, "True"),
    ("integer", 3.9, "stored as 3"),
    ("integer", True, "stored as 1"),
    ("float", False, "stored as 0.0"),
    ("json", "not json", "plain string"),
    ("json", '{"a": 1}', "JSON written as text"),
    ("file_url", 5, "not text"),
])
def test_wf502_accepted_but_surprising_defaults_warn(kind, value, fact):
    ev = evaluate(request([wait("a")], [workflow_param(kind, value)]))
    d = only(ev, "WF502")
    assert d.severity == "warning" and fact in d.message and not ev.rejections


def test_wf502_repeated_key_is_skipped_by_the_service():
    # D5(a): the second 'k' is recorded as a duplicate and never converted
    ev = evaluate(request([wait("a")], [workflow_param("integer", 1), workflow_param("integer", "abc")]))
    assert not found(ev, "WF502")
    assert first(ev)[1].startswith("WorkflowDefinition has parameters with duplicate keys")


# --------------------------------------------------------------------------- WF503


def credential(key="login", **kw):
    return {"parameter_type": "credential", "key": key, "credential_id": "cred_1", **kw}


@pytest.mark.parametrize("fields,detail", [
    ({"credential_ids": []}, "credential_ids for credential parameter login must be non-empty."),
    ({"credential_ids": ["a", "b"], "selection_strategy": "weighted"},
     "selection_strategy for credential parameter login must be one of: random, round_robin."),
    ({"credential_ids": ["a"], "fallback_credential_ids": ["b"]},
     "credential parameter login cannot combine credential_ids rotation with fallback_credential_ids; "
     "configure one or the other."),
    ({"fallback_credential_ids": ["b"], "fallback_trigger": "sometimes"},
     "fallback_trigger for credential parameter login must be one of: any_failure, credential_failures."),
    ({"fallback_trigger": "any_failure"}, "fallback_trigger for credential parameter login requires fallback_credential_ids."),
])
def test_wf503_rotation_rules(fields, detail):
    ev = evaluate(request([wait("a")], [credential(**fields)]))
    assert found(ev, "WF503") and all(d.severity == "error" for d in found(ev, "WF503"))
    assert first(ev) == (400, detail)


def test_wf503_rotation_that_is_fine():
    params = [credential(credential_ids=["a", "b"], selection_strategy="random"),
              credential("backup", fallback_credential_ids=["c"], fallback_trigger="credential_failures")]
    assert not found(evaluate(request([wait("a")], params)), "WF503")


def test_wf503_rotation_comes_first_of_all_service_checks():
    # C4 runs before the definition conversion: it beats D1 (output parameter) and E (wait_sec)
    params = [{"parameter_type": "output", "key": "o"}, credential(credential_ids=[])]
    ev = evaluate(request([wait("a", 0)], params))
    assert first(ev) == (400, "credential_ids for credential parameter login must be non-empty.")


def bitwarden(key="bw", **kw):
    return {"parameter_type": "bitwarden_login_credential", "key": key, "bitwarden_client_id_aws_secret_key": "i",
            "bitwarden_client_secret_aws_secret_key": "s", "bitwarden_master_password_aws_secret_key": "m", **kw}


PREFIX = ("Missing required value for workflow parameter. Workflow parameter type: bitwarden_login_credential. "
          "workflow_parameter_key: bw. Required value: ")


def test_wf503_bitwarden_needs_a_collection_or_item():
    ev = evaluate(request([wait("a")], [bitwarden()]))
    assert first(ev) == (400, PREFIX + "bitwarden_collection_id or bitwarden_item_id")


def test_wf503_bitwarden_collection_needs_url_parameter_key():
    ev = evaluate(request([wait("a")], [bitwarden(bitwarden_collection_id="col")]))
    assert first(ev) == (400, PREFIX + "url_parameter_key")
    assert not found(evaluate(request([wait("a")], [bitwarden(bitwarden_collection_id="col", url_parameter_key="u")])), "WF503")
    assert not found(evaluate(request([wait("a")], [bitwarden(bitwarden_item_id="item")])), "WF503")


@pytest.mark.parametrize("order", ["bitwarden_first", "default_first"])
def test_d5_parameters_are_judged_in_list_order(order):
    params = [bitwarden(), workflow_param("integer", "abc")]
    if order == "default_first":
        params.reverse()
    detail = first(evaluate(request([wait("a")], params)))[1]
    expected = PREFIX if order == "bitwarden_first" else "Invalid workflow parameter."
    assert detail.startswith(expected)


# --------------------------------------------------------------------------- WF504


MALFORMED = "Invalid webhook_callback_url: malformed. Use an HTTP or HTTPS URL with at most 2083 characters."


@pytest.mark.parametrize("url,detail", [
    ("not a url", MALFORMED),
    ("https://" + "a" * 2080 + ".com", MALFORMED),
    ("http://example.com:99999/", MALFORMED),
    ("ftp://hooks.example.com/x", "Invalid webhook_callback_url: unsupported scheme. Use an HTTP or HTTPS URL with "
                                  "at most 2083 characters."),
    ("https://my-lb-1234.us-east-1.elb.amazonaws.com/hook", "Invalid webhook_callback_url: unsupported host. Use a "
     "stable custom hostname instead of an AWS load balancer DNS name."),
])
def test_wf504_refused_urls(url, detail):
    ev = evaluate(request([wait("a")], webhook_callback_url=url))
    assert only(ev, "WF504").severity == "error"
    assert first(ev) == (400, detail)


@pytest.mark.parametrize("url", ["https://hooks.example.com/x", "example.com/hook", "http://user@host.example/x"])
def test_wf504_accepted_urls(url):
    assert not found(evaluate(request([wait("a")], webhook_callback_url=url)), "WF504")


@pytest.mark.parametrize("url,host", [
    ("http://localhost:8000/hook", "localhost"), ("http://127.0.0.1/x", "127.0.0.1"), ("http://10.1.2.3/x", "10.1.2.3"),
    ("http://[::1]/x", "::1"), ("http://2130706433/", "127.0.0.1"), ("http://169.254.169.254/", "169.254.169.254"),
])
def test_wf504_private_hosts_only_warn(url, host):
    ev = evaluate(request([wait("a")], webhook_callback_url=url))
    d = only(ev, "WF504")
    assert d.severity == "warning" and host in d.message and not ev.rejections


def test_wf504_webhook_comes_after_rotation_but_before_conversion():
    # C4 < C6 < D
    ev = evaluate(request([wait("a")], [credential(credential_ids=[])], webhook_callback_url="ftp://x"))
    assert first(ev)[1].startswith("credential_ids for credential parameter")
    ev = evaluate(request([wait("a")], [{"parameter_type": "output", "key": "o"}], webhook_callback_url="ftp://x"))
    assert first(ev)[1].startswith("Invalid webhook_callback_url: unsupported scheme")


# --------------------------------------------------------------------------- WF505


def http(**kw):
    return {"block_type": "http_request", "label": "h", "url": "https://api.example.com", **kw}


def email(**kw):
    return {"block_type": "send_email", "label": "e", "recipients": ["a@example.com"], "subject": "s", "body": "b", **kw}


@pytest.mark.parametrize("req,fact", [
    (request([http(save_response_as_file="true", secret_response_paths=["token"])]),
     "secret_response_paths cannot be combined with save_response_as_file"),
    (request([email(transport="gmail", custom_smtp_host="smtp.example.com")]),
     "custom SMTP settings cannot be combined with the gmail transport"),
    (request([email()]), "sender is required unless the transport is gmail"),
    (request([email(sender="me@example.com", cc=["b@example.com"])]), "cc and bcc are only supported with the gmail transport"),
    (request([{"block_type": "web_search", "label": "w", "query": "q", "no_match_error_code": "NONE"}]),
     "No Match Error Code requires a Prompt."),
    (request([{"block_type": "web_search", "label": "w", "query": "q", "no_results_error_code": "  "}]),
     "Outcome error codes must not be blank."),
    (request([{"block_type": "web_search", "label": "w", "query": "q", "json_schema": {"type": "nothing"}}]),
     "The Data Schema is not a valid JSON Schema"),
    (request([{"block_type": "terminate", "label": "t", "reason": "r", "error_code": "bad code"}]),
     "literal error codes may contain only ASCII letters"),
    ({"title": "t", "workflow_definition": {"parameters": [], "blocks": [], "retry_policy": {
        "retry_on": [{"status": "failed"}, {"status": "failed"}]}}}, "retry_on must contain each status at most once"),
])
def test_wf505_model_rules(req, fact):
    ev = evaluate(req)
    d = only(ev, "WF505")
    assert fact in d.message and d.severity == "error"
    assert first(ev) == (422, None)


@pytest.mark.parametrize("req,code,fact", [
    (request([{"block_type": "code", "label": "c", "code": "x = 1", "error_code_mapping": {"E1 ": "d"}}]),
     "WF105", "error code keys must be trimmed"),
    (request([], browser_type="firefox"), "WF103", "'firefox' is not a valid browser_type"),
    (request([], max_elapsed_time_minutes=True), "WF102", "got the boolean true"),
    ({"title": "t", "workflow_definition": {"parameters": [], "blocks": [], "browser_settings": {
        "timezone_id": "+02:00"}}}, "WF103", "is not an IANA time-zone name"),
])
def test_single_value_model_rules_use_their_catalogue_codes(req, code, fact):
    """rules.md files these under WF102/WF103/WF105, not WF505."""
    ev = evaluate(req)
    d = only(ev, code)
    assert fact in d.message and d.severity == "error"
    assert not found(ev, "WF505")
    assert first(ev) == (422, None)


@pytest.mark.parametrize("req", [
    request([http(save_response_as_file=True), http(label="h2", secret_response_paths=["token"])]),
    request([email(transport="gmail", cc=["b@example.com"], credential_id="cred")]),
    request([email(sender="")]),
    request([{"block_type": "web_search", "label": "w", "query": "q", "no_match_error_code": "NONE", "prompt": "p"}]),
    request([{"block_type": "terminate", "label": "t", "reason": "r", "error_code": " {{ code }} "}]),
    request([{"block_type": "code", "label": "c", "code": "x = 1", "error_code_mapping": {"E1": "went wrong"}}]),
    request([], browser_type="chrome", max_elapsed_time_minutes=30),
    {"title": "t", "workflow_definition": {"parameters": [], "blocks": [], "browser_settings": {"timezone_id": "Africa/Kampala"},
                                           "retry_policy": {"retry_on": [{"status": "failed"}, {"status": "timed_out"}]}}},
])
def test_wf505_accepted_option_sets(req):
    assert not found(evaluate(req), "WF505")


# --------------------------------------------------------------------------- WF506


def test_wf506_unknown_action_type_warns_with_suggestion():
    block = {"block_type": "code", "label": "c", "code": "x = 1",
             "steps": [{"action_type": "click"}, {"action_type": "input_txt"}, {"description": "no type"}]}
    ev = evaluate(request([block]))
    d = only(ev, "WF506")
    assert d.severity == "warning" and "step 2" in d.message and "'input_text'" in d.help
    assert not ev.rejections


# --------------------------------------------------------------------------- the YAML path


def test_rules_point_at_the_yaml_lines():
    text = """title: t
workflow_definition:
  version: 1
  parameters:
    - {parameter_type: workflow, key: max_pages, workflow_parameter_type: integer, default_value: ten}
  blocks:
    - {block_type: wait, label: a, wait_sec: 1, next_block_label: b}
    - {block_type: wait, label: b, wait_sec: 1}
"""
    by_code = {d.code: d for d in check_bytes(text.encode(), "x.yaml")}
    assert by_code["WF301"].line == 3
    assert by_code["WF502"].line == 5 and '"ten"' in by_code["WF502"].message
