"""Stage C6 for the mock: the shared ``webhook_callback_url`` check plus the deployment's
blocked hosts. Like the local self-hosted server the reference observed (which accepted
``127.0.0.1`` and ``localhost``), the mock blocks no host unless told to.
"""

from __future__ import annotations

from ...checks.webhook_url import BAD_SCHEME, BLOCKED, ELB, MALFORMED, full_url, webhook_url_error

__all__ = ["BAD_SCHEME", "BLOCKED", "ELB", "MALFORMED", "normalize_webhook_url", "webhook_url_error"]


def normalize_webhook_url(url: str) -> str:
    """The stored form: ``https://`` is assumed when the value has no scheme."""
    return full_url(url)
