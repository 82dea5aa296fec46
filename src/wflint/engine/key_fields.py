"""Fields the engine reads as a parameter's key when their whole value is one.

The service's own documentation writes ``url: website_url``: a block whose ``url`` (and a few
other fields) equals a declared parameter's key is given that parameter. The engine registers
it with the block (``get_all_parameters`` and ``_get_destination_parameters`` ask
``workflow_run_context.has_parameter(self.<field>)``) and, for most of these fields, uses the
parameter's value instead of the text (``BaseTaskBlock.execute`` sets ``self.url`` to
``get_value(self.url)``). Read from ``skyvern/forge/sdk/workflow/models/block.py`` (1.0.40 to
1.0.56 alike for the fields below) and observed on the real 1.0.56 engine.
"""

from __future__ import annotations

from typing import Any

_TASK_STYLE = ("url", "totp_identifier", "download_suffix")
_DESTINATION = (
    "path", "prompt", "s3_bucket", "aws_access_key_id", "aws_secret_access_key", "endpoint_url",
    "azure_storage_account_name", "azure_storage_account_key", "azure_blob_container_name",
    "google_credential_id", "google_drive_folder_id", "sftp_host", "sftp_username", "sftp_password",
    "sftp_private_key", "sftp_private_key_passphrase", "sftp_remote_path", "sftp_host_key",
)

#: block type → the fields whose whole value may be a parameter key (``BaseTaskBlock`` and its
#: subclasses, ``FileDestinationBlock`` and the I/O blocks that look a key up)
KEY_FIELDS: dict[str, tuple[str, ...]] = {
    **{tag: _TASK_STYLE for tag in ("task", "navigation", "extraction", "login", "action",
                                    "validation", "human_interaction", "goto_url")},
    "file_download": (*_TASK_STYLE, *_DESTINATION),
    "file_upload": _DESTINATION,
    "download_to_s3": ("url",),
    "upload_to_s3": ("path",),
    "file_url_parser": ("file_url",),
    "pdf_parser": ("file_url",),
    "http_request": ("url",),
    # file_attachments: each item
    "send_email": ("subject", "body", "file_attachments", "custom_smtp_host", "custom_smtp_username",
                   "custom_smtp_password"),
}


def keys_named(block_type: str | None, data: dict[str, Any], parameter_keys: set[str] | frozenset[str]) -> set[str]:
    """The declared parameter keys that a block's key fields name by their whole value."""
    out: set[str] = set()
    for field in KEY_FIELDS.get(block_type or "", ()):
        value = data.get(field)
        for item in value if isinstance(value, list) else (value,):
            if isinstance(item, str) and item in parameter_keys:
                out.add(item)
    return out
