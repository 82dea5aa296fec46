"""API keys and organizations, answered the way the service answers (reference §9.2).

Every key belongs to one organization. A key given without ``=ORG_ID`` gets an organization
id derived from the key, so the same key always means the same organization across restarts.
All refusals are 403 with a ``{"detail": ...}`` body; the service never answers 401.
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping

from .ids import derived_id

ENV_VAR = "WFLINT_API_KEYS"

MISSING_CREDENTIALS = "Invalid credentials"
UNKNOWN_KEY = "Could not validate credentials"
BEARER_UNSUPPORTED = "Invalid authentication method"


class KeySpecError(ValueError):
    pass


def parse_key_spec(spec: str) -> tuple[str, str]:
    """``KEY`` or ``KEY=ORG_ID`` → (key, organization id)."""
    key, sep, org = spec.strip().partition("=")
    key, org = key.strip(), org.strip()
    if not key:
        raise KeySpecError(f"empty API key in {spec!r}")
    if sep and not org:
        raise KeySpecError(f"empty organization id in {spec!r}")
    return key, org or derived_id("o", "org:" + key)


def read_key_specs(text: str) -> list[str]:
    """Specs from an environment variable or a file: separated by commas, spaces or lines;
    ``#`` starts a comment in files."""
    out: list[str] = []
    for line in text.splitlines():
        line = line.split("#", 1)[0]
        out.extend(part for part in line.replace(",", " ").split() if part)
    return out


@dataclass
class ApiKeys:
    """The configured keys. ``generated`` is set when no key was given and one was made up."""

    orgs_by_key: dict[str, str] = field(default_factory=dict)
    generated: str | None = None

    @classmethod
    def from_specs(cls, specs: Iterable[str]) -> "ApiKeys":
        keys = cls()
        for spec in specs:
            key, org = parse_key_spec(spec)
            keys.orgs_by_key[key] = org
        return keys

    @classmethod
    def resolve(
        cls,
        cli_specs: Iterable[str] = (),
        key_file: str | os.PathLike | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> "ApiKeys":
        """Keys from the command line, a file and ``$WFLINT_API_KEYS`` together; with none,
        one development key is generated."""
        environ = os.environ if environ is None else environ
        specs = list(cli_specs)
        if key_file is not None:
            specs += read_key_specs(Path(key_file).read_text(encoding="utf-8"))
        specs += read_key_specs(environ.get(ENV_VAR, ""))
        keys = cls.from_specs(specs)
        if not keys.orgs_by_key:
            dev_key = "wflint-dev-" + secrets.token_urlsafe(24)
            keys.orgs_by_key[dev_key] = derived_id("o", "org:" + dev_key)
            keys.generated = dev_key
        return keys

    @property
    def organizations(self) -> list[str]:
        return list(dict.fromkeys(self.orgs_by_key.values()))

    def authenticate(self, headers: Mapping[str, str]) -> tuple[str | None, str | None]:
        """(organization id, None) or (None, 403 detail). ``x-api-key`` wins over
        ``Authorization``; an empty ``x-api-key`` counts as absent."""
        api_key = headers.get("x-api-key") or ""
        if api_key:
            org = self.orgs_by_key.get(api_key)
            return (org, None) if org else (None, UNKNOWN_KEY)
        authorization = headers.get("authorization")
        if authorization is None:
            return None, MISSING_CREDENTIALS
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return None, MISSING_CREDENTIALS
        # like a self-hosted server: bearer tokens are not supported at all
        return None, BEARER_UNSUPPORTED
