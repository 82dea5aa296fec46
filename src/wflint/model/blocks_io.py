"""File, storage, e-mail and spreadsheet block types (§5.6.7-11, 20, 23, 27-29, 31-33).

Split from ``blocks_other`` to keep modules short.
"""

from __future__ import annotations

from . import enums as E
from .blocks import block, json_schema, llm_key, parameter_keys, storage_fields
from .types import (
    AnyJSON, Array, F, Field, FreeObject, Int, ObjectModel, Str, StrMap, Union, flag, opt_str,
    text,
)


def _file_url() -> Field:
    return F("file_url", Str(), "URL or path of the file.", required=True, templated="text")


def _prompt(required: bool, description: str, since: str | None = None) -> Field:
    if required:
        return F("prompt", Str(), description, required=True, templated="text", since=since)
    return text("prompt", description, since=since)


DOWNLOAD_TO_S3 = block(
    "download_to_s3", "DownloadToS3BlockYAML", "Download a URL to storage.",
    (F("url", Str(), "File URL (not URL-validated at save time).", required=True,
       templated="text"),),
)

UPLOAD_TO_S3 = block(
    "upload_to_s3", "UploadToS3BlockYAML", "Upload downloaded files.",
    (text("path", "Path of the files to upload."),),
)

FILE_UPLOAD = block(
    "file_upload", "FileUploadBlockYAML", "Upload files to S3/Azure/Drive/SFTP.",
    (
        F("storage_type", E.FILE_STORAGE_TYPE, "Destination kind.", default="s3"),
        *storage_fields(azure_folder_path=True, google_since="1.0.44"),
        _prompt(False, "Which downloaded files to upload; empty = all.", since="1.0.47"),
        text("path", "Path of the files to upload."),
    ),
    notes=(
        "No completeness check of the storage settings at save time.",
        "azure_folder_path is accepted but dropped from the stored definition.",
    ),
    stored_added={"continue_on_empty": False},
    not_stored=("azure_folder_path",),
)

#: the four SMTP slots of send_email and their override-key fields (§6.6)
SMTP_SLOTS: dict[str, str] = {
    slot: f"{slot}_secret_parameter_key"
    for slot in ("smtp_host", "smtp_port", "smtp_username", "smtp_password")
}
#: aws_key of the auto-provisioned platform SMTP parameters (§6.6)
SMTP_PLATFORM_AWS_KEYS: dict[str, str] = {
    "smtp_host": "SKYVERN_SMTP_HOST_AWS_SES",
    "smtp_port": "SKYVERN_SMTP_PORT_AWS_SES",
    "smtp_username": "SKYVERN_SMTP_USERNAME_SES",
    "smtp_password": "SKYVERN_SMTP_PASSWORD_SES",
}

SEND_EMAIL = block(
    "send_email", "SendEmailBlockYAML", "Send an e-mail.",
    (
        # before 1.0.55 the four override keys were required strings
        *(F(key, Str(), f"Parameter key of the {slot.split('_', 1)[1]} secret.", required=True,
            reference="parameter", until="1.0.55") for slot, key in SMTP_SLOTS.items()),
        *(opt_str(key, f"Override parameter key for the {slot.split('_', 1)[1]} secret.",
                  reference="parameter", since="1.0.55") for slot, key in SMTP_SLOTS.items()),
        opt_str("custom_smtp_host", "A non-blank value switches the block to custom SMTP.",
                since="1.0.55"),
        F("custom_smtp_port", Int(ge=1, le=65535), "Custom SMTP port.", nullable=True,
          default=None, since="1.0.55"),
        opt_str("custom_smtp_username", "Custom SMTP user.", since="1.0.55"),
        opt_str("custom_smtp_password", "Custom SMTP password.", since="1.0.55"),
        F("sender", Str(), "Sender address.", required=True, templated="text", until="1.0.56"),
        F("sender", Str(), "Sender address; the key must be present unless transport is gmail.",
          default="", templated="text", since="1.0.56"),
        F("recipients", Array(Str()), "Recipient addresses.", required=True, templated="text"),
        F("subject", Str(), "E-mail subject.", required=True, templated="text"),
        F("body", Str(), "E-mail body.", required=True, templated="text"),
        F("body_format", E.EMAIL_BODY_FORMAT, "Body format.", default="text", since="1.0.55"),
        F("file_attachments", Array(Str()), "Files to attach.", nullable=True, default=None,
          templated="text"),
        F("transport", E.EMAIL_TRANSPORT, "gmail sends from the Google account credential_id.",
          nullable=True, default=None, since="1.0.56"),
        opt_str("credential_id", "Google credential (transport gmail only).", since="1.0.56"),
        F("cc", Array(Str()), "Cc addresses (gmail only).", default=[], templated="text",
          since="1.0.56"),
        F("bcc", Array(Str()), "Bcc addresses (gmail only).", default=[], templated="text",
          since="1.0.56"),
    ),
    notes=(
        "With transport gmail, a non-null custom_smtp_port or a non-blank custom_smtp_host, "
        "custom_smtp_username or custom_smtp_password is refused: \"custom SMTP settings cannot "
        "be combined with the gmail transport\".",
        "Otherwise the sender key must be present (it may be empty): \"sender is required unless "
        "the transport is gmail\".",
        "Otherwise non-blank cc or bcc entries are refused: \"cc and bcc are only supported with "
        "the gmail transport\".",
        "Platform SMTP (no custom host, not gmail): set override keys must be declared, declared "
        "slot keys must be aws_secret parameters, and missing ones are added by the service.",
    ),
    # how the service labels this type in loop_blocks errors: (label, since, until)
    loop_labels=(("function-after[_validate_transport_fields(), SendEmailBlockYAML]", "1.0.56", None),),
    smtp_slots=SMTP_SLOTS,
    smtp_platform_aws_keys=SMTP_PLATFORM_AWS_KEYS,
    stored_replaces={key: slot for slot, key in SMTP_SLOTS.items()},
    stored_null_to_empty_list=("file_attachments",),
)

FILE_URL_PARSER = block(
    "file_url_parser", "FileParserBlockYAML", "Parse CSV/Excel/PDF/image/docx/zip.",
    (
        _file_url(),
        F("file_type", E.FILE_TYPE, "Kind of file.", default="auto_detect"),
        json_schema(),
        text("worksheet", "Spreadsheet sheet name.", since="1.0.55"),
        flag("force_ocr", False, "PDF only: OCR the first 50 pages.", since="1.0.56"),
    ),
)

DATA_EXPORT = block(
    "data_export", "DataExportBlockYAML", "Export data as a file.", since="1.0.55",
    fields=(
        F("data", Str(), "Data to export, normally a reference such as {{ extract_output }}.",
          required=True, templated="text"),
        F("data_schema", FreeObject(), "Schema of the exported records (not validated).",
          required=True, yaml11_sensitive=True),
        text("file_name", "File name of the export."),
        parameter_keys(),
    ),
)

PDF_PARSER = block(
    "pdf_parser", "PDFParserBlockYAML", "Parse a PDF.",
    (_file_url(), json_schema()),
)

PRINT_PAGE = block(
    "print_page", "PrintPageBlockYAML", "Print page to PDF.",
    (
        flag("include_timestamp", True, "Add a timestamp to the file name."),
        text("custom_filename", "File name of the PDF."),
        F("format", E.PDF_FORMAT, "Paper size.", default="A4"),
        flag("landscape", False, "Landscape orientation."),
        flag("print_background", True, "Print background graphics."),
        parameter_keys(),
    ),
)

PDF_FILL = block(
    "pdf_fill", "PdfFillBlockYAML", "Fill a PDF form.",
    (
        _file_url(),
        _prompt(True, "How to fill the form."),
        F("payload", Union((FreeObject(), Array(AnyJSON()), Str())), "Data to fill in.",
          nullable=True, default=None, templated="leaves", yaml11_sensitive=True),
        llm_key(), parameter_keys(),
    ),
    since="1.0.42",
    loop_labels=(("function-after[normalize_llm_selection(), PdfFillBlockYAML]", None, None),),
)

SPLIT_PDF = block(
    "split_pdf", "SplitPdfBlockYAML", "Split a PDF.",
    (_file_url(), _prompt(True, "How to split the document."), llm_key(), parameter_keys()),
    since="1.0.47",
    loop_labels=(("function-after[normalize_llm_selection(), SplitPdfBlockYAML]", None, None),),
)


def _sheet_fields() -> tuple[Field, ...]:
    return (
        F("spreadsheet_url", Str(), "Google Sheets URL.", required=True, templated="text"),
        text("sheet_name", "Sheet name."),
        text("range", "A1 range."),
        opt_str("credential_id", "Google credential (not checked at save time)."),
    )


GOOGLE_SHEETS_READ = block(
    "google_sheets_read", "GoogleSheetsReadBlockYAML", "Read a Google Sheet.",
    (*_sheet_fields(), flag("has_header_row", True, "The first row holds column names."),
     parameter_keys()),
)

EMAIL_INBOX = block(
    "email_inbox", "EmailInboxBlockYAML", "Read an e-mail inbox.",
    (
        F("email_client", E.EMAIL_CLIENT, "Mailbox provider.", required=True),
        opt_str("credential_id", "Mailbox credential (not checked at save time)."),
        text("folder", "Folder to read."),
        _prompt(False, "What to look for."),
        text("sender", "Only mail from this sender."),
        text("subject", "Only mail with this subject."),
        F("newer_than_days", Int(), "Only mail newer than this.", nullable=True, default=None),
        F("max_results", Int(), "Maximum number of messages.", default=25),
        flag("include_body", True, "Include message bodies."),
        flag("download_attachments", False, "Download attachments.", since="1.0.56"),
        parameter_keys(),
    ),
    since="1.0.47",
)

GOOGLE_SHEETS_WRITE = block(
    "google_sheets_write", "GoogleSheetsWriteBlockYAML", "Write a Google Sheet.",
    (
        *_sheet_fields(),
        F("write_mode", E.SHEETS_WRITE_MODE, "Append rows or update the range.",
          default="append"),
        F("values", Str(), "Template/text of the values to write.", default="",
          templated="text"),
        F("column_mapping", StrMap(), "Column mapping.", nullable=True, default=None),
        flag("create_sheet_if_missing", False, "Create the sheet when it does not exist."),
        parameter_keys(),
    ),
)

#: in the service's tag order
IO_MODELS: tuple[ObjectModel, ...] = (
    DOWNLOAD_TO_S3, UPLOAD_TO_S3, FILE_UPLOAD, SEND_EMAIL, FILE_URL_PARSER, DATA_EXPORT,
    PDF_PARSER, PRINT_PAGE, PDF_FILL, SPLIT_PDF, GOOGLE_SHEETS_READ, EMAIL_INBOX,
    GOOGLE_SHEETS_WRITE,
)
