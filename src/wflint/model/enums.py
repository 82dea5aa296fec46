"""Every closed set of values the service knows (service reference §2.3, §3.2, §4, §5).

Values and their order are exactly the service's: error messages list them in this order.
``members`` are the Python member names the service prints in discriminator errors
(``<BlockType.TASK: 'task'>``). ``literal=True`` marks sets the service declares as a
``Literal`` (the error type is ``literal_error`` instead of ``enum``).
"""

from __future__ import annotations

from .types import Enum


def _upper(values: tuple[str, ...]) -> tuple[str, ...]:
    """Python-ish member names: upper case, ``-``/``.`` replaced by ``_``."""
    return tuple(v.upper().replace("-", "_").replace(".", "_") for v in values)


# --------------------------------------------------------------------------- top level (§2)

_PROXY_VALUES = (
    "RESIDENTIAL", "US-CA", "US-NY", "US-TX", "US-FL", "US-WA",
    "RESIDENTIAL_ES", "RESIDENTIAL_IE", "RESIDENTIAL_GB", "RESIDENTIAL_IN", "RESIDENTIAL_JP",
    "RESIDENTIAL_FR", "RESIDENTIAL_DE", "RESIDENTIAL_NZ", "RESIDENTIAL_ZA", "RESIDENTIAL_AR",
    "RESIDENTIAL_AU", "RESIDENTIAL_BR", "RESIDENTIAL_TR", "RESIDENTIAL_CA", "RESIDENTIAL_MX",
    "RESIDENTIAL_IT", "RESIDENTIAL_NL", "RESIDENTIAL_PH", "RESIDENTIAL_KR", "RESIDENTIAL_SA",
    "RESIDENTIAL_ISP", "NONE",
)
PROXY_LOCATION = Enum(
    "ProxyLocation", _PROXY_VALUES, _upper(_PROXY_VALUES),
    "Proxy location of the browser (case-sensitive).",
)

_STATUS_VALUES = ("published", "draft", "auto_generated", "importing", "import_failed")
WORKFLOW_STATUS = Enum("WorkflowStatus", _STATUS_VALUES, _STATUS_VALUES, "Workflow status.")

#: ``browser_type`` is a plain string field checked by a custom rule (§2.2), not an Enum field.
BROWSER_TYPES: tuple[str, ...] = ("msedge", "chrome", "stealth-chromium")
BROWSER_TYPE = Enum("BrowserType", BROWSER_TYPES, (), "Allowed browser_type values (custom rule).")

#: ``run_with`` is normalised, never rejected (§2.2): only these two values are kept.
RUN_WITH_VALUES: tuple[str, ...] = ("agent", "code")

# --------------------------------------------------------------------------- definition (§3)

WEBHOOK_ON_RETRY = Enum(
    "WebhookOnRetry", ("final_only", "every_attempt"), (),
    "When the run webhook fires for retried runs.", literal=True,
)
RETRY_STATUS = Enum(
    "RetryStatus", ("completed", "failed", "terminated", "canceled", "timed_out"), (),
    "Run status a retry rule matches.", literal=True,
)

# --------------------------------------------------------------------------- parameters (§4)

_PARAMETER_TAGS = (
    "aws_secret", "bitwarden_login_credential", "bitwarden_sensitive_information",
    "bitwarden_credit_card_data", "onepassword", "azure_vault_credential",
    "workflow", "context", "output", "credential",
)
PARAMETER_TYPE = Enum(
    "ParameterType", _PARAMETER_TAGS, _upper(_PARAMETER_TAGS),
    "Discriminator of workflow parameters.",
)
#: tags the service prints as a bare string (not ``<ParameterType.X: 'x'>``) in the
#: ``union_tag_invalid`` message (§4.1)
PARAMETER_TAGS_PRINTED_BARE: tuple[str, ...] = ("bitwarden_sensitive_information",)

_WP_TYPES = ("string", "integer", "float", "boolean", "json", "file_url", "credential_id")
WORKFLOW_PARAMETER_TYPE = Enum(
    "WorkflowParameterType", _WP_TYPES, _upper(_WP_TYPES),
    "Declared type of a workflow input parameter; default_value is coerced to it (§4.3).",
)

#: effective ``credential.selection_strategy`` values (null means round_robin), rule C4
SELECTION_STRATEGIES: tuple[str, ...] = ("round_robin", "random")
#: allowed ``credential.fallback_trigger`` values, rule C4
FALLBACK_TRIGGERS: tuple[str, ...] = ("credential_failures", "any_failure")

# --------------------------------------------------------------------------- blocks (§5)

_BLOCK_TAGS = (
    "task", "for_loop", "while_loop", "code", "text_prompt", "download_to_s3", "upload_to_s3",
    "file_upload", "send_email", "file_url_parser", "validation", "action", "navigation",
    "extraction", "login", "wait", "human_interaction", "file_download", "data_export",
    "terminate", "goto_url", "pdf_parser", "task_v2", "http_request", "web_search",
    "conditional", "print_page", "pdf_fill", "split_pdf", "workflow_trigger",
    "google_sheets_read", "email_inbox", "google_sheets_write",
)
BLOCK_TYPE = Enum(
    "BlockType", _BLOCK_TAGS,
    tuple("TaskV2" if t == "task_v2" else t.upper() for t in _BLOCK_TAGS),
    # each block type's since/until marks say which releases have it
    "Discriminator of blocks, in the service's order.",
)

_ENGINES = (
    "skyvern-1.0", "skyvern-2.0", "skyvern-3.0", "openai-cua", "anthropic-cua", "ui-tars",
    "yutori-navigator",
)
RUN_ENGINE = Enum(
    "RunEngine", _ENGINES,
    ("skyvern_v1", "skyvern_v2", "skyvern_v3", "openai_cua", "anthropic_cua", "ui_tars",
     "yutori_navigator"),
    "Browser agent engine of a task-style block.",
    spans=(("skyvern-3.0", "1.0.55", None),),
)

_FILE_TYPES = ("auto_detect", "csv", "excel", "pdf", "image", "docx", "zip")
FILE_TYPE = Enum("FileType", _FILE_TYPES, _upper(_FILE_TYPES), "Kind of file to parse.",
                 spans=(("zip", "1.0.45", None),))

_PDF_FORMATS = ("A4", "Letter", "Legal", "Tabloid")
PDF_FORMAT = Enum("PDFFormat", _PDF_FORMATS, _upper(_PDF_FORMATS), "Paper size of a printed page.")

_STORAGE = ("s3", "azure", "google_drive", "sftp")
FILE_STORAGE_TYPE = Enum(
    "FileStorageType", _STORAGE, _upper(_STORAGE), "Destination of uploaded files.",
    spans=(("google_drive", "1.0.44", None), ("sftp", "1.0.47", None)),
)
_TARGETS = ("website", "s3", "azure", "google_drive", "sftp")
FILE_DOWNLOAD_TARGET = Enum(
    "FileDownloadTarget", _TARGETS, _upper(_TARGETS), "Where a file download goes.",
)

AI_FALLBACK_MODE = Enum(
    "AIFallbackMode", ("fallback", "proactive"), ("FALLBACK", "PROACTIVE"),
    "fallback: try the selector, then AI; proactive: always AI, the selector is a hint.",
)
EMAIL_BODY_FORMAT = Enum("EmailBodyFormat", ("text", "html"), ("TEXT", "HTML"), "E-mail body format.")
EMAIL_TRANSPORT = Enum("EmailTransport", ("smtp", "gmail"), ("SMTP", "GMAIL"), "E-mail transport.")

CRITERIA_TYPE = Enum(
    "BranchCriteriaType", ("jinja2_template", "prompt"), (),
    "How a branch criterion is meant to be evaluated.", literal=True,
)
WEB_SEARCH_PROVIDER = Enum(
    "WebSearchProvider", ("auto", "google", "exa"), (), "Web search provider.", literal=True,
)
EMAIL_CLIENT = Enum("EmailClient", ("gmail", "outlook"), (), "Mailbox provider.", literal=True)
SHEETS_WRITE_MODE = Enum(
    "SheetsWriteMode", ("append", "update"), (), "How rows are written.", literal=True,
)

# --------------------------------------------------------------------------- scripts (§9.8)

SCRIPT_FILE_ENCODING = Enum(
    "ScriptFileEncoding", ("base64", "utf-8"), ("BASE64", "UTF8"), "Encoding of script content.",
)

#: every enumeration above, by its ``name``
ALL_ENUMS: dict[str, Enum] = {
    e.name: e
    for e in (
        PROXY_LOCATION, WORKFLOW_STATUS, BROWSER_TYPE, WEBHOOK_ON_RETRY, RETRY_STATUS,
        PARAMETER_TYPE, WORKFLOW_PARAMETER_TYPE, BLOCK_TYPE, RUN_ENGINE, FILE_TYPE, PDF_FORMAT,
        FILE_STORAGE_TYPE, FILE_DOWNLOAD_TARGET, AI_FALLBACK_MODE, EMAIL_BODY_FORMAT,
        EMAIL_TRANSPORT, CRITERIA_TYPE, WEB_SEARCH_PROVIDER, EMAIL_CLIENT, SHEETS_WRITE_MODE,
        SCRIPT_FILE_ENCODING,
    )
}
