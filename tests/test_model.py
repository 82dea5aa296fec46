"""Pin the declarative request model to the service reference (§2-§5, §9.8, §9.9.2).

The literals below are copied from the reference on purpose: a change in the model that the
reference does not back must fail here.
"""

from __future__ import annotations

import pytest

from wflint import model
from wflint.model import enums
from wflint.model.types import (
    MISSING, Array, Blocks, Enum, FreeObject, Int, Parameters, Ref, Str, StrMap, Union,
)

BLOCK_TAGS = [
    "task", "for_loop", "while_loop", "code", "text_prompt", "download_to_s3", "upload_to_s3",
    "file_upload", "send_email", "file_url_parser", "validation", "action", "navigation",
    "extraction", "login", "wait", "human_interaction", "file_download", "data_export",
    "terminate", "goto_url", "pdf_parser", "task_v2", "http_request", "web_search",
    "conditional", "print_page", "pdf_fill", "split_pdf", "workflow_trigger",
    "google_sheets_read", "email_inbox", "google_sheets_write",
]

CLASS_NAMES = [
    "TaskBlockYAML", "ForLoopBlockYAML", "WhileLoopBlockYAML", "CodeBlockYAML",
    "TextPromptBlockYAML", "DownloadToS3BlockYAML", "UploadToS3BlockYAML", "FileUploadBlockYAML",
    "SendEmailBlockYAML", "FileParserBlockYAML", "ValidationBlockYAML", "ActionBlockYAML",
    "NavigationBlockYAML", "ExtractionBlockYAML", "LoginBlockYAML", "WaitBlockYAML",
    "HumanInteractionBlockYAML", "FileDownloadBlockYAML", "DataExportBlockYAML",
    "TerminateBlockYAML", "UrlBlockYAML", "PDFParserBlockYAML", "TaskV2BlockYAML",
    "HttpRequestBlockYAML", "WebSearchBlockYAML", "ConditionalBlockYAML", "PrintPageBlockYAML",
    "PdfFillBlockYAML", "SplitPdfBlockYAML", "WorkflowTriggerBlockYAML",
    "GoogleSheetsReadBlockYAML", "EmailInboxBlockYAML", "GoogleSheetsWriteBlockYAML",
]

PARAMETER_TAGS = [
    "aws_secret", "bitwarden_login_credential", "bitwarden_sensitive_information",
    "bitwarden_credit_card_data", "onepassword", "azure_vault_credential", "workflow",
    "context", "output", "credential",
]

#: number of own fields per block type, counted from the §5.6 tables
FIELD_COUNTS = {
    "task": 20, "for_loop": 5, "while_loop": 2, "code": 9, "text_prompt": 4,
    "download_to_s3": 1, "upload_to_s3": 1, "file_upload": 22, "send_email": 18,
    "file_url_parser": 5, "validation": 9, "action": 16, "navigation": 19, "extraction": 14,
    "login": 17, "wait": 1, "human_interaction": 9, "file_download": 36, "data_export": 4,
    "terminate": 2, "goto_url": 1, "pdf_parser": 2, "task_v2": 7, "http_request": 11,
    "web_search": 9, "conditional": 1, "print_page": 6, "pdf_fill": 5, "split_pdf": 4,
    "workflow_trigger": 6, "google_sheets_read": 6, "email_inbox": 11, "google_sheets_write": 9,
}


def fld(obj, name):
    f = obj.field(name)
    assert f is not None, f"{obj.name} has no field {name}"
    return f


def required(obj) -> set[str]:
    return {f.name for f in obj.fields if f.required}


def block(tag):
    return model.BLOCK_TYPES[tag]


# --------------------------------------------------------------------------- tags and names


def test_block_tags_in_service_order():
    assert list(model.BLOCK_TYPES) == BLOCK_TAGS
    assert list(enums.BLOCK_TYPE.values) == BLOCK_TAGS
    assert all(m.tag == tag for tag, m in model.BLOCK_TYPES.items())


def test_block_type_members_match_the_union_tag_message():
    members = dict(zip(enums.BLOCK_TYPE.values, enums.BLOCK_TYPE.members))
    assert members["task_v2"] == "TaskV2"
    assert members["file_url_parser"] == "FILE_URL_PARSER"
    assert members["google_sheets_write"] == "GOOGLE_SHEETS_WRITE"
    assert len(enums.BLOCK_TYPE.members) == 33


def test_parameter_tags_in_service_order():
    assert list(model.PARAMETER_TYPES) == PARAMETER_TAGS
    assert list(enums.PARAMETER_TYPE.values) == PARAMETER_TAGS
    assert enums.PARAMETER_TYPE.members[0] == "AWS_SECRET"
    assert enums.PARAMETER_TYPE.members[-1] == "CREDENTIAL"
    assert enums.PARAMETER_TAGS_PRINTED_BARE == ("bitwarden_sensitive_information",)


def test_block_class_names_follow_the_reference_list():
    assert [m.class_name for m in model.BLOCK_TYPES.values()] == CLASS_NAMES
    assert len(set(CLASS_NAMES)) == 33
    assert block("goto_url").class_name == "UrlBlockYAML"
    assert block("file_url_parser").class_name == "FileParserBlockYAML"


def test_every_block_has_a_description_and_no_discriminator_field():
    for tag, m in model.BLOCK_TYPES.items():
        assert m.description, tag
        assert "block_type" not in m.field_names, tag
    for tag, m in model.PARAMETER_TYPES.items():
        assert "parameter_type" not in m.field_names, tag


def test_field_counts_match_the_reference_tables():
    assert {tag: len(m.fields) for tag, m in model.BLOCK_TYPES.items()} == FIELD_COUNTS


def test_field_names_are_unique_and_do_not_shadow_common_fields():
    common = {f.name for f in model.COMMON_BLOCK_FIELDS}
    for m in model.OBJECTS.values():
        assert len(set(m.field_names)) == len(m.field_names), m.name
    for tag, m in model.BLOCK_TYPES.items():
        assert not common & set(m.field_names), tag


# --------------------------------------------------------------------------- common fields


def test_common_block_fields():
    names = [f.name for f in model.COMMON_BLOCK_FIELDS]
    assert names == ["label", "next_block_label", "continue_on_failure", "model",
                     "ignore_workflow_system_prompt", "next_loop_on_failure"]
    label = model.COMMON_BLOCK_FIELDS[0]
    assert label.required and isinstance(label.type, Str) and not label.nullable
    nxt = model.COMMON_BLOCK_FIELDS[1]
    assert nxt.reference == "label" and nxt.nullable and nxt.default is None
    assert model.block_fields("wait")[: len(names)] == model.COMMON_BLOCK_FIELDS
    assert model.block_fields("wait")[-1].name == "wait_sec"


def test_known_keys():
    keys = model.known_keys(block("code"))
    assert {"block_type", "label", "code", "parameter_keys"} <= keys
    assert "error_code" not in keys and "parameters" not in keys
    assert "prompt" not in model.known_keys(block("task"))
    assert model.known_keys(model.PARAMETER_TYPES["workflow"]) == {
        "parameter_type", "key", "description", "workflow_parameter_type", "default_value"}
    assert model.known_keys(model.DEFINITION) == set(model.DEFINITION.field_names)


# --------------------------------------------------------------------------- required fields


@pytest.mark.parametrize("tag, names", [
    ("navigation", {"navigation_goal"}),
    ("extraction", {"data_extraction_goal"}),
    ("file_download", {"navigation_goal"}),
    ("data_export", {"data", "data_schema"}),
    ("send_email", {"recipients", "subject", "body"}),
    ("human_interaction", {"recipients"}),
    ("code", {"code"}),
    ("text_prompt", {"prompt"}),
    ("task_v2", {"prompt"}),
    ("terminate", {"reason"}),
    ("goto_url", {"url"}),
    ("download_to_s3", {"url"}),
    ("web_search", {"query"}),
    ("for_loop", {"loop_blocks"}),
    ("while_loop", {"loop_blocks", "condition"}),
    ("pdf_fill", {"file_url", "prompt"}),
    ("workflow_trigger", {"workflow_permanent_id"}),
    ("email_inbox", {"email_client"}),
    ("google_sheets_write", {"spreadsheet_url"}),
    ("task", set()),
    ("action", set()),
    ("validation", set()),
    ("wait", set()),
    ("conditional", set()),
])
def test_required_fields(tag, names):
    assert required(block(tag)) == names


def test_required_fields_of_other_objects():
    assert required(model.REQUEST) == {"title", "workflow_definition"}
    assert required(model.DEFINITION) == {"parameters", "blocks"}
    assert required(model.ENVELOPE) == set()
    assert required(model.OBJECTS["RetryPolicy"]) == {"retry_on"}
    assert required(model.OBJECTS["RetryRule"]) == {"status"}
    assert required(model.OBJECTS["BranchCriteria"]) == {"expression"}
    assert required(model.OBJECTS["BranchCondition"]) == set()
    assert required(model.OBJECTS["GeoTarget"]) == {"country"}
    assert required(model.OBJECTS["ScriptFile"]) == {"path", "content"}
    assert required(model.OBJECTS["CreateScriptRequest"]) == set()
    assert required(model.PARAMETER_TYPES["workflow"]) == {"key", "workflow_parameter_type"}
    assert required(model.PARAMETER_TYPES["context"]) == {"key", "source_parameter_key"}
    assert required(model.PARAMETER_TYPES["output"]) == {"key"}
    assert required(model.PARAMETER_TYPES["credential"]) == {"key", "credential_id"}
    for tag, m in model.PARAMETER_TYPES.items():
        assert m.field_names[:2] == ("key", "description"), tag
        assert fld(m, "description").nullable, tag


# --------------------------------------------------------------------------- bounds


def int_type(obj, name) -> Int:
    t = fld(obj, name).type
    assert isinstance(t, Int)
    return t


def test_bounds():
    assert int_type(block("send_email"), "custom_smtp_port") == Int(ge=1, le=65535)
    assert int_type(block("web_search"), "num_results") == Int(ge=1, le=100, strict=True)
    assert fld(block("web_search"), "num_results").default == 10
    assert int_type(model.REQUEST, "max_elapsed_time_minutes") == Int(ge=1, le=480)
    assert int_type(model.REQUEST, "code_version") == Int(ge=1, le=2)
    policy = model.OBJECTS["RetryPolicy"]
    assert int_type(policy, "max_retries") == Int(ge=1, le=5, strict=True)
    assert int_type(policy, "delay_seconds") == Int(ge=0, le=3600, strict=True)
    assert fld(policy, "max_retries").default == 1 and fld(policy, "delay_seconds").default == 0
    retry_on = fld(policy, "retry_on").type
    assert isinstance(retry_on, Array) and retry_on.min_items == 1
    # clamped, never rejected: no model bound
    assert int_type(model.REQUEST, "max_screenshot_scrolls") == Int()
    # wait_sec 1..1800 is a service check (stage E), not a model bound
    assert int_type(block("wait"), "wait_sec") == Int() and fld(block("wait"), "wait_sec").default == 0
    assert block("wait").extra["service_range"] == {"wait_sec": (1, 1800)}


def test_string_bounds():
    assert fld(block("terminate"), "reason").type == Str(min_length=1, strip=True)
    assert fld(block("web_search"), "query").type.min_length == 1
    for name in ("no_results_error_code", "no_match_error_code"):
        f = fld(block("web_search"), name)
        assert f.type == Str(min_length=1, max_length=100) and f.deprecated and f.nullable
    geo = model.OBJECTS["GeoTarget"]
    assert fld(geo, "country").type == Str(min_length=2, max_length=2)
    assert fld(geo, "subdivision").type.max_length == 10
    assert fld(geo, "city").type.max_length == 100


def test_only_the_three_strict_integers_are_strict():
    strict = {(m.name, f.name) for m in model.OBJECTS.values() for f in m.fields
              if isinstance(f.type, Int) and f.type.strict}
    assert strict == {("WebSearchBlockYAML", "num_results"), ("RetryPolicy", "max_retries"),
                      ("RetryPolicy", "delay_seconds")}


# --------------------------------------------------------------------------- nullability, defaults


def test_title_is_not_nullable():
    for tag in ("task", "action", "navigation", "extraction", "login", "file_download"):
        f = fld(block(tag), "title")
        assert not f.nullable and f.default == "" and not f.required, tag
    f = fld(model.REQUEST, "title")
    assert f.required and not f.nullable


def test_sender_defaults():
    f = fld(block("send_email"), "sender")
    assert f.default == "" and not f.nullable and not f.required
    hi = block("human_interaction")
    assert fld(hi, "sender").default == "hello@skyvern.com"
    assert fld(hi, "timeout_seconds").default == 7200
    assert fld(hi, "instructions").default == (
        "Please review and approve or reject to continue the workflow.")
    assert not fld(block("email_inbox"), "sender").default


@pytest.mark.parametrize("tag, name, default", [
    ("task", "complete_verification", True),
    ("task", "max_retries", 0),
    ("for_loop", "loop_over_parameter_key", ""),
    ("conditional", "branch_conditions", []),
    ("send_email", "cc", []),
    ("send_email", "body_format", "text"),
    ("file_upload", "storage_type", "s3"),
    ("file_download", "download_target", "website"),
    ("file_url_parser", "file_type", "auto_detect"),
    ("action", "ai_fallback", "fallback"),
    ("task_v2", "max_iterations", 50),
    ("task_v2", "max_steps", 25),
    ("http_request", "method", "GET"),
    ("http_request", "timeout", 30),
    ("http_request", "follow_redirects", True),
    ("web_search", "provider", "auto"),
    ("print_page", "format", "A4"),
    ("print_page", "print_background", True),
    ("workflow_trigger", "wait_for_completion", True),
    ("email_inbox", "max_results", 25),
    ("google_sheets_write", "write_mode", "append"),
    ("google_sheets_write", "values", ""),
])
def test_block_defaults(tag, name, default):
    f = fld(block(tag), name)
    assert f.default == default and type(f.default) is type(default)


def test_request_defaults_and_nullability():
    r = model.REQUEST
    assert len(r.fields) == 32
    assert fld(r, "status").default == "published" and fld(r, "status").type is enums.WORKFLOW_STATUS
    assert fld(r, "cache_key").default == "default" and fld(r, "cache_key").nullable
    assert fld(r, "ai_fallback").default is True
    assert fld(r, "mask_secrets").nullable and fld(r, "mask_secrets").default is None
    assert not fld(r, "persist_browser_session").nullable
    assert fld(r, "run_with").default == "agent"
    assert isinstance(fld(r, "extra_http_headers").type, StrMap)
    assert r.extra["on_update_omitted"]["folder_id"] == "kept_always"
    assert set(r.extra["on_update_omitted"]) == set(r.field_names) - {
        "title", "recording_id", "workflow_definition"}


def test_definition_fields():
    d = model.DEFINITION
    assert isinstance(fld(d, "parameters").type, Parameters)
    blocks = fld(d, "blocks").type
    assert isinstance(blocks, Blocks) and not blocks.loop
    assert fld(d, "finally_block_label").reference == "label"
    assert fld(d, "retry_policy").type == Ref("RetryPolicy")
    assert fld(d, "browser_settings").type == Ref("BrowserSettings")


def test_loop_bodies_are_loop_block_lists():
    for tag in ("for_loop", "while_loop"):
        t = fld(block(tag), "loop_blocks").type
        assert isinstance(t, Blocks) and t.loop, tag
    assert fld(block("while_loop"), "condition").type == Ref("BranchCriteria")
    assert fld(block("conditional"), "branch_conditions").type == Array(Ref("BranchCondition"))


# --------------------------------------------------------------------------- enumerations


def test_proxy_location():
    p = enums.PROXY_LOCATION
    assert p.name == "ProxyLocation" and len(p.values) == 28 and len(set(p.values)) == 28
    assert {"RESIDENTIAL_KR", "RESIDENTIAL_SA", "RESIDENTIAL_ISP", "US-CA"} <= set(p.values)
    assert p.values[0] == "RESIDENTIAL" and p.values[-1] == "NONE"
    assert len(p.members) == 28 and "US_CA" in p.members
    f = fld(model.REQUEST, "proxy_location")
    assert f.type == Union((p, Ref("GeoTarget"), FreeObject())) and f.nullable


@pytest.mark.parametrize("enum, values", [
    (enums.WORKFLOW_STATUS, ("published", "draft", "auto_generated", "importing",
                             "import_failed")),
    (enums.WORKFLOW_PARAMETER_TYPE, ("string", "integer", "float", "boolean", "json",
                                     "file_url", "credential_id")),
    (enums.RUN_ENGINE, ("skyvern-1.0", "skyvern-2.0", "skyvern-3.0", "openai-cua",
                        "anthropic-cua", "ui-tars", "yutori-navigator")),
    (enums.FILE_TYPE, ("auto_detect", "csv", "excel", "pdf", "image", "docx", "zip")),
    (enums.PDF_FORMAT, ("A4", "Letter", "Legal", "Tabloid")),
    (enums.FILE_STORAGE_TYPE, ("s3", "azure", "google_drive", "sftp")),
    (enums.FILE_DOWNLOAD_TARGET, ("website", "s3", "azure", "google_drive", "sftp")),
    (enums.AI_FALLBACK_MODE, ("fallback", "proactive")),
    (enums.EMAIL_BODY_FORMAT, ("text", "html")),
    (enums.EMAIL_TRANSPORT, ("smtp", "gmail")),
    (enums.CRITERIA_TYPE, ("jinja2_template", "prompt")),
    (enums.WEBHOOK_ON_RETRY, ("final_only", "every_attempt")),
    (enums.RETRY_STATUS, ("completed", "failed", "terminated", "canceled", "timed_out")),
    (enums.WEB_SEARCH_PROVIDER, ("auto", "google", "exa")),
    (enums.EMAIL_CLIENT, ("gmail", "outlook")),
    (enums.SHEETS_WRITE_MODE, ("append", "update")),
    (enums.SCRIPT_FILE_ENCODING, ("base64", "utf-8")),
    (enums.BROWSER_TYPE, ("msedge", "chrome", "stealth-chromium")),
])
def test_enum_values(enum: Enum, values):
    assert enum.values == values
    assert not enum.members or len(enum.members) == len(enum.values)


def test_literal_sets():
    assert enums.CRITERIA_TYPE.literal  # literal_error "Input should be 'jinja2_template' or 'prompt'"
    assert not enums.SCRIPT_FILE_ENCODING.literal  # the reference shows type `enum`
    assert not enums.PROXY_LOCATION.literal
    assert fld(model.REQUEST, "browser_type").type == Str()  # custom rule, not an enum field


# --------------------------------------------------------------------------- parameter_keys


def test_types_without_parameter_keys():
    assert set(model.BLOCKS_WITHOUT_PARAMETER_KEYS) == {
        "for_loop", "while_loop", "conditional", "download_to_s3", "upload_to_s3",
        "file_upload", "send_email", "file_url_parser", "pdf_parser", "wait",
        "human_interaction", "terminate", "goto_url", "task_v2"}
    for tag, m in model.BLOCK_TYPES.items():
        has = m.field("parameter_keys") is not None
        assert has == (tag not in model.BLOCKS_WITHOUT_PARAMETER_KEYS), tag
        if has:
            f = fld(m, "parameter_keys")
            assert f.reference == "parameter" and f.nullable and f.type == Array(Str())


def test_reserved_parameter_keys():
    assert model.RESERVED_PARAMETER_KEYS == (
        "current_item", "current_value", "current_index", "current_date", "workflow_title",
        "workflow_id", "workflow_permanent_id", "workflow_run_id", "workflow_run_outputs",
        "workflow_run_summary")


# --------------------------------------------------------------------------- refs, stored forms


def test_every_ref_target_exists():
    targets = model.ref_targets()
    assert {"GeoTarget", "WorkflowDefinition", "RetryPolicy", "RetryRule", "BrowserSettings",
            "BranchCriteria", "BranchCondition", "CodeBlockStep", "ScriptFile",
            "WorkflowRequest"} <= targets
    assert targets <= set(model.OBJECTS)
    for name, m in model.OBJECTS.items():
        assert m.name == name


def test_parameter_id_fields():
    expected = {
        "output": ("output_parameter_id", "op_"), "workflow": ("workflow_parameter_id", "wp_"),
        "aws_secret": ("aws_secret_parameter_id", "asp_"),
        "bitwarden_login_credential": ("bitwarden_login_credential_parameter_id", "blc_"),
        "bitwarden_sensitive_information": ("bitwarden_sensitive_information_parameter_id",
                                            "bsi_"),
        "bitwarden_credit_card_data": ("bitwarden_credit_card_data_parameter_id", "bccd_"),
        "onepassword": ("onepassword_credential_parameter_id", "opp_"),
        "azure_vault_credential": ("azure_vault_credential_parameter_id", "azcp_"),
        "credential": ("credential_parameter_id", "cp_"),
        "context": (None, None),
    }
    got = {tag: (m.extra["id_field"], m.extra["id_prefix"])
           for tag, m in model.PARAMETER_TYPES.items()}
    assert got == expected


def test_task_style_types():
    assert set(model.TASK_STYLE_TYPES) == {
        "task", "navigation", "action", "extraction", "login", "validation", "file_download",
        "goto_url", "human_interaction"}
    types = {tag: block(tag).extra["task_type"] for tag in model.TASK_STYLE_TYPES}
    assert types.pop("validation") == "validation" and types.pop("action") == "action"
    assert set(types.values()) == {"general"}
    text = {tag for tag in model.TASK_STYLE_TYPES
            if not block(tag).extra["include_extracted_text"]}
    assert text == {"extraction"}
    assert block("validation").extra["stored_fill_if_null"] == {"max_steps_per_run": 2}
    assert block("action").extra["stored_fill_if_null"] == {"max_steps_per_run": 1}
    assert block("goto_url").extra["stored_engine"] == "skyvern-1.0"
    assert "task_style" not in block("task_v2").extra


# --------------------------------------------------------------------------- templates, YAML 1.1


@pytest.mark.parametrize("obj, name, kind", [
    ("code", "code", "text"), ("task", "navigation_goal", "text"), ("task", "url", "text"),
    ("http_request", "headers", "values"), ("http_request", "files", "values"),
    ("http_request", "body", "leaves"), ("workflow_trigger", "payload", "leaves"),
    ("pdf_fill", "payload", "leaves"), ("send_email", "recipients", "text"),
    ("terminate", "reason", "text"), ("google_sheets_write", "values", "text"),
    ("for_loop", "loop_variable_reference", "text"),
    ("WorkflowDefinition", "workflow_system_prompt", "text"),
    ("WorkflowRequest", "browser_profile_key", "text"),
    ("BranchCriteria", "expression", "text"),
])
def test_templated_fields(obj, name, kind):
    assert (obj, name, kind) in model.templated_fields()


def test_not_templated():
    listed = {(o, n) for o, n, _ in model.templated_fields()}
    for pair in [("code", "prompt"), ("for_loop", "loop_over_parameter_key"),
                 ("file_upload", "azure_folder_path"), ("task", "parameter_keys"),
                 ("send_email", "smtp_host_secret_parameter_key"),
                 ("WorkflowRequest", "extra_http_headers"), ("WorkflowRequest", "title")]:
        assert pair not in listed, pair
    assert all(not f.templated for f in model.COMMON_BLOCK_FIELDS)


def test_yaml11_sensitive_fields():
    assert fld(model.PARAMETER_TYPES["workflow"], "default_value").yaml11_sensitive
    for tag, name in [("http_request", "body"), ("workflow_trigger", "payload"),
                      ("task", "data_schema"), ("text_prompt", "json_schema"),
                      ("data_export", "data_schema")]:
        assert fld(block(tag), name).yaml11_sensitive, (tag, name)
    assert fld(model.REQUEST, "model").yaml11_sensitive
    assert not fld(model.REQUEST, "extra_http_headers").yaml11_sensitive
    # a strict string or string map refuses the converted value instead: never sensitive
    for m in model.OBJECTS.values():
        for f in m.fields:
            if isinstance(f.type, (Str, StrMap)):
                assert not f.yaml11_sensitive, (m.name, f.name)


def test_defaults_are_consistent_with_required():
    for m in model.OBJECTS.values():
        for f in (*m.fields, *model.COMMON_BLOCK_FIELDS):
            if f.required:
                assert f.default is MISSING, (m.name, f.name)
            if f.default is None:
                assert f.nullable, (m.name, f.name)


def test_lint_schemas_build_only_the_definitions_they_reach():
    # a fresh process: the registry of definitions is per process and other tests fill it
    import subprocess
    import sys

    code = """
from wflint.model import releases, schema, validators
validators.lint_schema("block.wait")
built = set(validators._lint_defs(releases.NEWEST)._built)
assert "block.wait" in built and "block.navigation" not in built, built
assert len(built) < len(schema.all_defs()) // 4, len(built)
# and each is what inlining the fully built definitions gives
for version in releases.RELEASES:
    full = dict(schema.all_defs(version))
    full["block"] = validators._lint_defs(version)["block"]
    full["loop_block"] = validators._lint_defs(version)["loop_block"]
    full["parameter"] = validators._lint_defs(version)["parameter"]
    for name in full:
        assert validators.lint_schema(name, version) == validators._inline(full[name], full), name
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


def test_all_defs_keeps_its_order_and_content_when_built_from_the_builders():
    from wflint.model import schema

    built = schema.all_defs()
    builders = schema.def_builders()
    assert list(built) == list(builders)
    assert all(builders[name]() == built[name] for name in built)
    assert list(built)[:2] == ["BlockType", "ParameterType"] and list(built)[-3:] == ["block", "loop_block", "parameter"]


def test_every_public_name_of_the_model_package_resolves_to_the_newest_release():
    # the derived names are made on first read (module __getattr__); each must resolve
    for name in model.__all__:
        assert getattr(model, name) is not None, name
    newest = model.release(model.NEWEST)
    assert model.NEWEST_RELEASE is newest
    assert model.BLOCK_TYPES is newest.BLOCK_TYPES and model.OBJECTS is newest.OBJECTS
    assert model.REQUEST is newest.REQUEST and model.COMMON_BLOCK_FIELDS is newest.COMMON_BLOCK_FIELDS
    assert model.TASK_STYLE_TYPES == tuple(t for t, m in newest.BLOCK_TYPES.items() if m.extra.get("task_style"))
    with pytest.raises(AttributeError):
        model.NO_SUCH_NAME  # noqa: B018


def test_declaration_types_behave_as_frozen_dataclasses():
    # plain classes for start-up's sake (model.types), with a frozen dataclass's behaviour
    from dataclasses import FrozenInstanceError

    from wflint.model import types as t

    f = t.Field("goal", t.Str(min_length=1), "The goal.", required=True)
    assert f == t.Field("goal", t.Str(min_length=1), "The goal.", required=True) and f != t.Field("goal", t.Str())
    assert hash(f) == hash(t.Field("goal", t.Str(min_length=1), "The goal.", required=True))
    assert t.Str() != t.Bool() and t.Num() == t.Num() and hash(t.Num()) == hash(())
    assert repr(t.Array(t.Str(), 1)) == "Array(items=Str(min_length=None, max_length=None, strip=False), min_items=1)"
    changed = t.replace(f, since="1.0.55")
    assert (changed.since, changed.name, f.since) == ("1.0.55", "goal", None)
    with pytest.raises(FrozenInstanceError):
        f.name = "x"
    with pytest.raises(TypeError):
        t.replace(f, colour="red")
    assert t.ObjectModel("O", "O", "", ()).extra == {}
