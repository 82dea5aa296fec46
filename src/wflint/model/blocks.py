"""Block family: the common fields (§5.2), shared field factories, and stored-form facts.

The 33 block types themselves are declared in ``blocks_task`` (the 9 task-style types) and
``blocks_other``; ``wflint.model`` assembles them in the service's order. ``block_type`` is the
discriminator and is not a field.
"""

from __future__ import annotations

from typing import Any

from . import enums as E
from .types import (
    AnyJSON, Array, F, Field, FreeObject, Int, ObjectModel, Str, StrMap, Union, flag, opt_str,
    text,
)

LABEL_RULES_NOTE = (
    "label: unique across the whole workflow (loop bodies included), not blank (\"Block labels "
    "cannot be empty.\"), and a Python identifier (Unicode letters and keywords pass)."
)

#: fields every block has (§5.2), in the reference's order
COMMON_BLOCK_FIELDS: tuple[Field, ...] = (
    F("label", Str(), "Unique block name; the output is published as <label>_output.",
      required=True),
    opt_str("next_block_label", "Label of the block that runs next (v2 routing).",
            reference="label"),
    flag("continue_on_failure", False, "Keep running the workflow when this block fails."),
    F("model", FreeObject(), "Per-block LLM choice, e.g. {\"model_name\": …}.",
      nullable=True, default=None, yaml11_sensitive=True),
    flag("ignore_workflow_system_prompt", False, "Opt out of workflow_system_prompt."),
    flag("next_loop_on_failure", False,
         "Inside a loop: go to the next iteration when this block fails."),
)

#: keys that open every stored block, in order (§9.9.2)
STORED_BLOCK_HEAD: tuple[str, ...] = (
    "label", "next_block_label", "block_type", "output_parameter", "continue_on_failure",
    "model", "disable_cache", "ignore_workflow_system_prompt", "next_loop_on_failure",
)

#: the field set shared by stored task-style blocks, in order (§9.9.2)
TASK_STYLE_STORED_FIELDS: tuple[str, ...] = (
    "task_type", "url", "title", "complete_criterion", "complete_criterion_is_untrusted",
    "terminate_criterion", "navigation_goal", "data_extraction_goal", "data_schema",
    "error_code_mapping", "max_retries", "max_steps_per_run", "parameters",
    "complete_on_download", "download_suffix", "totp_verification_url", "totp_identifier",
    "complete_verification", "include_action_history_in_verification", "download_timeout",
    "include_extracted_text",
)

# --------------------------------------------------------------------------- field factories


def parameter_keys() -> Field:
    return F("parameter_keys", Array(Str()),
             "Declared parameters, context parameters or <label>_output keys the block uses.",
             nullable=True, default=None, reference="parameter")


def error_code_mapping() -> Field:
    return F("error_code_mapping", StrMap(), "Error code → description of when to raise it.",
             nullable=True, default=None)


def data_schema(*options: Any) -> Field:
    """``data_schema``: object | array | string by default (not validated at save time)."""
    opts = options or (FreeObject(), Array(AnyJSON()), Str())
    return F("data_schema", Union(tuple(opts)), "Schema of the extracted data (not validated).",
             nullable=True, default=None, yaml11_sensitive=True)


def json_schema(templated: str | None = None) -> Field:
    return F("json_schema", FreeObject(), "JSON Schema of the result.",
             nullable=True, default=None, yaml11_sensitive=True, templated=templated)


def llm_key() -> Field:
    return text("llm_key",
                "LLM key; blank → null, ignored with model, templates kept, unknown dropped.")


def engine_fields(since: str | None = None) -> tuple[Field, ...]:
    """``engine`` (before 1.0.55 a non-null field with default skyvern-1.0, on the types that
    had it then) and ``engine_pinned`` (from 1.0.56). ``since`` marks a type that got
    ``engine`` later."""
    old = () if since is not None else (
        F("engine", E.RUN_ENGINE, "Agent engine.", default="skyvern-1.0", until="1.0.55"),)
    return (
        *old,
        F("engine", E.RUN_ENGINE, "Agent engine; null = the service default.",
          nullable=True, default=None, since=since or "1.0.55"),
        flag("engine_pinned", False, "True only when skyvern-1.0 was chosen explicitly.",
             since="1.0.56"),
    )


def url(required: bool = False, description: str = "Page to open first.") -> Field:
    if required:
        return F("url", Str(), description, required=True, templated="text")
    return text("url", description)


def title() -> Field:
    return text("title", "Task title.", nullable=False, default="")


def totp_fields() -> tuple[Field, ...]:
    return (
        text("totp_verification_url", "URL polled for TOTP codes."),
        text("totp_identifier", "Identifier of pushed TOTP codes."),
    )


def download_suffix() -> Field:
    return text("download_suffix", "Deprecated: sets the complete file name of the download.",
                deprecated=True)


def max_retries() -> Field:
    return F("max_retries", Int(), "Retries of the block.", default=0)


def max_steps_per_run(description: str = "Step limit of one attempt.", since: str | None = None) -> Field:
    return F("max_steps_per_run", Int(), description, nullable=True, default=None, since=since)


def disable_cache() -> Field:
    return flag("disable_cache", False, "Do not use cached actions.")


def storage_fields(azure_folder_path: bool, since: str | None = None, google_since: str | None = None,
                   sftp_since: str = "1.0.47") -> tuple[Field, ...]:
    """Destination settings shared by ``file_upload`` and ``file_download`` (§5.6.9, §5.6.19).
    ``since``: the release the block got them; the Google Drive and SFTP groups came later."""
    def by(*marks: str | None) -> str | None:
        return max((m for m in marks if m), key=lambda m: tuple(map(int, m.split("."))), default=None)

    google, sftp = by(since, google_since), by(since, sftp_since)
    azure_folder = (
        (opt_str("azure_folder_path", "Accepted but dropped from the stored definition.", since=since),)
        if azure_folder_path else ()
    )
    return (
        text("s3_bucket", "S3 bucket.", since=since),
        text("aws_access_key_id", "AWS access key id.", since=since),
        text("aws_secret_access_key", "AWS secret access key.", since=since),
        text("region_name", "AWS region.", since=since),
        text("endpoint_url", "S3-compatible endpoint; blank → null.", since=by(since, "1.0.55")),
        text("azure_storage_account_name", "Azure storage account.", since=since),
        text("azure_storage_account_key", "Azure storage account key.", since=since),
        text("azure_blob_container_name", "Azure blob container.", since=since),
        *azure_folder,
        opt_str("google_credential_id", "Google credential for Drive.", since=google),
        text("google_drive_folder_id", "Google Drive folder.", since=google),
        text("sftp_host", "SFTP host.", since=sftp),
        F("sftp_port", Int(), "SFTP port.", nullable=True, default=None, since=sftp),
        text("sftp_username", "SFTP user.", since=sftp),
        text("sftp_password", "SFTP password.", since=sftp),
        text("sftp_private_key", "SFTP private key.", since=sftp),
        text("sftp_private_key_passphrase", "Passphrase of the SFTP key.", since=sftp),
        text("sftp_remote_path", "Remote directory on the SFTP server.", since=sftp),
        text("sftp_host_key", "Expected SFTP host key.", since=sftp),
    )


# --------------------------------------------------------------------------- the builder


def block(tag: str, class_name: str, description: str, fields: tuple[Field, ...],
          notes: tuple[str, ...] = (), since: str | None = None, until: str | None = None,
          **extra: Any) -> ObjectModel:
    """Declare one block type. ``stored_parameters`` defaults to "has parameter_keys";
    ``since``/``until`` mark the releases that have the type (see ``releases``)."""
    own = tuple(fields)
    extra.setdefault("stored_parameters", any(f.name == "parameter_keys" for f in own))
    return ObjectModel(
        name=class_name,
        title=f"{tag} block",
        description=description,
        fields=own,
        tag=tag,
        class_name=class_name,
        notes=tuple(notes),
        extra=dict(extra),
        since=since,
        until=until,
    )
