"""Secret-bearing parameters as the engine of release 1.0.56 resolves and masks them
(``forge/sdk/workflow/context_manager.py``, ``HttpRequestBlock`` in ``models/block.py``).

The engine never hands a template the secret itself: it registers the value under a
placeholder (``placeholder_`` and four characters; a credential's fields get ``_username``,
``_password`` ... appended) and the parameter renders as that placeholder. A credential renders
as a mapping of placeholders with a ``context`` note for the agent. Only an ``http_request``
block swaps the placeholders it rendered for the real values before it sends (its url, header
values and body); the browser agent does the same when it types one. Whatever the request block
stores (its output, its errors) is masked: each registered value is replaced by ``*****``,
values shorter than five characters only when they are the whole string.

A case gives the values in its ``secrets:`` table, by parameter key: a string for a single
secret (``aws_secret``, ``azure_secret``), a mapping of fields for a credential (``credential``,
a ``workflow`` parameter of type ``credential_id``, ``bitwarden_login_credential``,
``bitwarden_sensitive_information``, ``bitwarden_credit_card_data``, ``onepassword``,
``azure_vault_credential``). The engine's random placeholder suffix is derived from the key
here, so the same case renders the same text twice.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

#: ``RANDOM_SECRET_ID_PREFIX``
PLACEHOLDER_PREFIX = "placeholder_"
#: what ``mask_secrets_in_data`` writes in place of a secret
MASK = "*****"
#: ``SECRET_SUBSTRING_MIN_LENGTH``: a shorter secret is masked only when it is the whole string
SUBSTRING_MIN_LENGTH = 5
#: the note a credential's mapping carries for the agent (``_register_credential_parameter_value``)
CREDENTIAL_CONTEXT = ("These values are placeholders. When you type this in, the real value gets "
                      "inserted (For security reasons)")
#: ``NON_SECRET_CREDENTIAL_FIELDS``: kept as plain text in the credential's mapping
NON_SECRET_FIELDS = frozenset({"card_brand"})

#: parameter types whose value is one secret string
SINGLE_SECRET_TYPES = frozenset({"aws_secret", "azure_secret"})
#: parameter types whose value is a credential: a mapping of fields
CREDENTIAL_TYPES = frozenset({
    "credential", "bitwarden_login_credential", "bitwarden_sensitive_information",
    "bitwarden_credit_card_data", "onepassword", "azure_vault_credential",
})
#: the fields each credential type documents (what a case is expected to give)
CREDENTIAL_FIELDS: dict[str, tuple[str, ...]] = {
    "credential": ("username", "password", "totp"),
    "credential_id": ("username", "password", "totp"),
    "bitwarden_login_credential": ("username", "password", "totp"),
    "onepassword": ("username", "password", "totp"),
    "azure_vault_credential": ("username", "password", "totp"),
    "bitwarden_sensitive_information": (),
    "bitwarden_credit_card_data": ("card_number", "card_cvv", "card_holder_name", "card_exp_month",
                                   "card_exp_year", "card_brand"),
}

_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def secret_kind(param: dict[str, Any]) -> str | None:
    """``single``, ``credential`` or None: how a declared parameter holds a secret."""
    kind = param.get("parameter_type", "workflow")
    if kind in SINGLE_SECRET_TYPES:
        return "single"
    if kind in CREDENTIAL_TYPES:
        return "credential"
    if kind == "workflow" and param.get("workflow_parameter_type") == "credential_id":
        return "credential"
    return None


def type_name(param: dict[str, Any]) -> str:
    kind = param.get("parameter_type", "workflow")
    return "credential_id" if kind == "workflow" else str(kind)


def placeholder(key: str) -> str:
    """The engine's ``placeholder_XXXX``, with XXXX derived from the key, not drawn at random."""
    digest = hashlib.sha256(key.encode()).digest()
    return PLACEHOLDER_PREFIX + "".join(_ALPHABET[b % len(_ALPHABET)] for b in digest[:4])


class Vault:
    """The run's registered secrets: placeholder → value (``WorkflowRunContext.secrets``)."""

    def __init__(self) -> None:
        self.secrets: dict[str, str] = {}

    def register(self, param: dict[str, Any], value: Any) -> Any:
        """The value the parameter renders as, with its secret values registered."""
        key = str(param.get("key"))
        token = placeholder(key)
        if secret_kind(param) == "single":
            self.secrets[token] = str(value)
            return token
        rendered: dict[str, Any] = {"context": CREDENTIAL_CONTEXT}
        for field, field_value in (value.items() if isinstance(value, dict) else []):
            if field in NON_SECRET_FIELDS:
                rendered[field] = field_value
            elif field_value in (None, ""):
                if field == "password":  # a password-less login keeps the key, empty
                    rendered[field] = ""
            else:
                field_token = f"{token}_{field}"
                self.secrets[field_token] = str(field_value)
                rendered[field] = field_token
        return rendered

    def reveal(self, text: str) -> str:
        """An ``http_request`` field with its placeholders swapped for the real values
        (``format_potential_template_parameters``: longest token first, on a word boundary)."""
        if PLACEHOLDER_PREFIX not in text:
            return text
        for token in sorted(self.secrets, key=len, reverse=True):
            text = re.sub(re.escape(token) + r"(?![A-Za-z0-9_])", self.secrets[token].replace("\\", "\\\\"), text)
        return text

    def reveal_value(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.reveal(value)
        if isinstance(value, dict):
            return {k: self.reveal_value(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.reveal_value(v) for v in value]
        return value

    def mask(self, data: Any) -> Any:
        """``mask_secrets_in_data``: every registered value replaced by ``*****`` (keys too)."""
        values = sorted({v for v in self.secrets.values() if v}, key=len, reverse=True)
        if not values:
            return data
        return _mask(data, values)


def _mask(data: Any, values: list[str]) -> Any:
    if isinstance(data, str):
        if data in values:
            return MASK
        for secret in values:
            if len(secret) >= SUBSTRING_MIN_LENGTH:
                data = data.replace(secret, MASK)
        return data
    if isinstance(data, dict):
        return {_mask(k, values) if isinstance(k, str) else k: _mask(v, values) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [_mask(v, values) for v in data]
    return data


def needed(definition: dict[str, Any], key: str) -> bool:
    """Whether a block refers to the parameter (the engine registers only those a block uses:
    ``register_block_parameters``): its key appears as a name anywhere in the blocks."""
    text = json.dumps(definition.get("blocks") or [], default=str)
    return re.search(r"(?<![A-Za-z0-9_])" + re.escape(key) + r"(?![A-Za-z0-9_])", text) is not None
