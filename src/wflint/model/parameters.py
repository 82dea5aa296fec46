"""The 10 parameter types a request may declare (service reference §4, stored forms §9.9.2).

``parameter_type`` is the discriminator and is not listed as a field. ``extra`` holds the
stored-form facts: the id field and its prefix, and fields renamed in the stored form.
"""

from __future__ import annotations

from . import enums as E
from .types import AnyJSON, Array, F, Field, ObjectModel, Str, opt_str

KEY_RULES_NOTE = (
    "key: no whitespace (\"Key cannot contain whitespace characters\") and a Python identifier "
    "(Unicode letters and keywords pass)."
)


def _key() -> Field:
    return F("key", Str(), "Parameter name used in templates and parameter_keys.", required=True)


def _description() -> Field:
    return opt_str("description", "Free description.")


def _req(name: str, description: str) -> Field:
    return F(name, Str(), description, required=True)


def _param(tag: str, class_name: str, title: str, description: str, fields: tuple[Field, ...],
           id_field: str | None, id_prefix: str | None, notes: tuple[str, ...] = (),
           **extra: object) -> ObjectModel:
    return ObjectModel(
        name=class_name,
        title=title,
        description=description,
        fields=(_key(), _description(), *fields),
        tag=tag,
        class_name=class_name,
        notes=(KEY_RULES_NOTE, *notes),
        extra={"id_field": id_field, "id_prefix": id_prefix, **extra},
    )


def _bitwarden_secrets() -> tuple[Field, ...]:
    return (
        _req("bitwarden_client_id_aws_secret_key", "Secret-store key of the Bitwarden client id."),
        _req("bitwarden_client_secret_aws_secret_key",
             "Secret-store key of the Bitwarden client secret."),
        _req("bitwarden_master_password_aws_secret_key",
             "Secret-store key of the Bitwarden master password."),
    )


AWS_SECRET = _param(
    "aws_secret", "AWSSecretParameterYAML", "AWS secret parameter",
    "A secret read from the secret store.",
    (_req("aws_key", "Name of the secret in the secret store."),),
    "aws_secret_parameter_id", "asp_",
)

BITWARDEN_LOGIN_CREDENTIAL = _param(
    "bitwarden_login_credential", "BitwardenLoginCredentialParameterYAML",
    "Bitwarden login credential", "A login credential read from Bitwarden.",
    (
        *_bitwarden_secrets(),
        opt_str("url_parameter_key", "Parameter holding the login URL (item lookup by URL).",
                reference="parameter"),
        opt_str("bitwarden_collection_id", "Bitwarden collection."),
        opt_str("bitwarden_item_id", "Bitwarden item."),
        opt_str("totp_identifier", "Identifier of pushed TOTP codes.", since="1.0.55"),
    ),
    "bitwarden_login_credential_parameter_id", "blc_",
    notes=(
        "At least one of bitwarden_collection_id / bitwarden_item_id is needed (400).",
        "A collection id without an item id needs url_parameter_key (400).",
    ),
)

BITWARDEN_SENSITIVE_INFORMATION = _param(
    "bitwarden_sensitive_information", "BitwardenSensitiveInformationParameterYAML",
    "Bitwarden sensitive information", "Identity fields read from Bitwarden.",
    (
        *_bitwarden_secrets(),
        _req("bitwarden_collection_id", "Bitwarden collection."),
        _req("bitwarden_identity_key", "Identity item key."),
        F("bitwarden_identity_fields", Array(Str()), "Identity fields to read.", required=True),
    ),
    "bitwarden_sensitive_information_parameter_id", "bsi_",
)

BITWARDEN_CREDIT_CARD_DATA = _param(
    "bitwarden_credit_card_data", "BitwardenCreditCardDataParameterYAML",
    "Bitwarden credit card data", "A credit card read from Bitwarden.",
    (
        *_bitwarden_secrets(),
        _req("bitwarden_collection_id", "Bitwarden collection."),
        _req("bitwarden_item_id", "Bitwarden item."),
    ),
    "bitwarden_credit_card_data_parameter_id", "bccd_",
)

ONEPASSWORD = _param(
    "onepassword", "OnePasswordCredentialParameterYAML", "1Password credential",
    "A credential read from 1Password.",
    (
        _req("vault_id", "1Password vault."),
        _req("item_id", "1Password item."),
        opt_str("totp_field_name", "Item field holding the TOTP secret.", since="1.0.55"),
        opt_str("totp_identifier", "Identifier of pushed TOTP codes.", since="1.0.55"),
    ),
    "onepassword_credential_parameter_id", "opp_",
)

AZURE_VAULT_CREDENTIAL = _param(
    "azure_vault_credential", "AzureVaultCredentialParameterYAML", "Azure Key Vault credential",
    "A credential read from Azure Key Vault.",
    (
        _req("vault_name", "Key Vault name."),
        _req("username_key", "Secret holding the user name."),
        _req("password_key", "Secret holding the password."),
        opt_str("totp_secret_key", "Secret holding the TOTP seed."),
    ),
    "azure_vault_credential_parameter_id", "azcp_",
)

WORKFLOW = _param(
    "workflow", "WorkflowParameterYAML", "Workflow input parameter",
    "An input supplied at run time, with an optional default.",
    (
        F("workflow_parameter_type", E.WORKFLOW_PARAMETER_TYPE, "Declared type of the value.",
          required=True),
        F("default_value", AnyJSON(),
          "Default value; converted to workflow_parameter_type at save time (400 on failure).",
          nullable=True, default=None, yaml11_sensitive=True),
    ),
    "workflow_parameter_id", "wp_",
    notes=(
        "default_value is converted to the declared type at save time; failure gives 400 "
        "\"Invalid workflow parameter. Expected parameter type: {type}. Value: {value}.\"",
    ),
)

CONTEXT = _param(
    "context", "ContextParameterYAML", "Context parameter",
    "A value derived from another parameter or a block output.",
    (
        F("source_parameter_key", Str(),
          "A non-context parameter, a <label>_output, or an earlier context parameter.",
          required=True, reference="parameter"),
    ),
    None, None,
    notes=("The source must be defined before this parameter (422).",),
    # stored as {parameter_type, key, description, source: <full object>, value: null}
    stored_fields=("source", "value"),
    stored_replaces={"source_parameter_key": "source"},
    timestamps=False,
)

OUTPUT = _param(
    "output", "OutputParameterYAML", "Output parameter",
    "A block output; created by the service for every block, never by hand.",
    (),
    "output_parameter_id", "op_",
    notes=("Any output parameter in a request is refused: \"Cannot manually create output "
           "parameters\" (422).",),
    stored_description="Output parameter for block {label}",
)

CREDENTIAL = _param(
    "credential", "CredentialParameterYAML", "Credential parameter",
    "A stored credential, optionally rotated or with fallbacks.",
    (
        F("credential_id", Str(), "Primary credential id (not looked up at save time).",
          required=True),
        F("credential_ids", Array(Str()), "Rotation list; every id must exist (400).",
          nullable=True, default=None, since="1.0.45"),
        opt_str("selection_strategy", "round_robin (null) or random; checked with credential_ids.",
                since="1.0.45"),
        F("fallback_credential_ids", Array(Str()),
          "Fallback list; cannot be combined with credential_ids.", nullable=True, default=None,
          since="1.0.48"),
        opt_str("fallback_trigger",
                "credential_failures or any_failure; needs a non-empty fallback list.",
                since="1.0.48"),
    ),
    "credential_parameter_id", "cp_",
    notes=(
        "credential_ids may not be [] (400).",
        "selection_strategy must be round_robin or random when credential_ids is set (400).",
        "credential_ids and a non-empty fallback_credential_ids cannot be combined (400).",
        "fallback_trigger must be credential_failures or any_failure and needs fallback ids (400).",
    ),
    selection_strategies=E.SELECTION_STRATEGIES,
    fallback_triggers=E.FALLBACK_TRIGGERS,
)

#: in the service's tag order (§4.1)
PARAMETER_MODELS: tuple[ObjectModel, ...] = (
    AWS_SECRET, BITWARDEN_LOGIN_CREDENTIAL, BITWARDEN_SENSITIVE_INFORMATION,
    BITWARDEN_CREDIT_CARD_DATA, ONEPASSWORD, AZURE_VAULT_CREDENTIAL, WORKFLOW, CONTEXT, OUTPUT,
    CREDENTIAL,
)

#: a stored-only type: present in stored definitions, refused in requests (§4.1, §9.9.2)
STORED_ONLY_PARAMETER_TYPES: dict[str, dict[str, object]] = {
    "azure_secret": {"id_field": "azure_secret_parameter_id", "fields": ("azure_key",)},
}

#: keys every stored parameter except ``context`` carries besides its id field and own fields
STORED_PARAMETER_META: tuple[str, ...] = ("workflow_id", "created_at", "modified_at",
                                             "deleted_at")
