"""A finished run's webhook, signed and delivered as the service does (reference runs §4.9).

* Body: the run's status reply updated with its run reply (``run_replies.webhook_payload``),
  written as compact JSON with whole floats as integers (the service's ``_normalize_numbers``:
  ``1.0`` is sent as ``1``), ``ensure_ascii=False``.
* ``x-skyvern-signature``: HMAC-SHA256 of the exact body bytes with the API key the run was
  started with, hex; ``x-skyvern-timestamp``: Unix seconds when the body was signed (the
  timestamp is not signed). The body, signature and timestamp are made once and resent as
  they are on every retry.
* Delivery: up to 3 attempts; a 5xx, 403, 408, 425 or 429 reply or no reply at all is retried
  after ``2**attempt + U(0, 1)`` seconds (``Retry-After`` wins, at most 30 s), so a failing
  receiver is given up on after about 3-5 s. The outcome is the run's
  ``webhook_failure_reason``: ``""`` when delivered, else the service's message.

The standard library does the HTTP (no dependency); failures without a reply are named as
the service's HTTP client names them (``ConnectError``, ``ReadTimeout``). Redirects are not
followed (the service's client does not: a 302 is "Webhook failed with status code 302, ..."),
and each attempt has a total deadline of ``TIMEOUT_SECONDS`` (the service's is per read; a
receiver dripping one byte at a time would hold a delivery thread for ever): at the deadline
the connection is shut down and the attempt is a ``ReadTimeout``. A reply's body is read up to
``MAX_REPLY_BYTES``.
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import json
import random
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable
from urllib.parse import urlsplit

MAX_ATTEMPTS = 3
BASE_DELAY_SECONDS = 1.0
MAX_RETRY_AFTER_SECONDS = 30.0
TIMEOUT_SECONDS = 30.0
RETRYABLE_4XX = frozenset({403, 408, 425, 429})
#: the most of a reply's body read (it only goes into the failure reason)
MAX_REPLY_BYTES = 1024 * 1024


def _normalize_numbers(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _normalize_numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_normalize_numbers(v) for v in value]
    return value


def body_text(payload: dict[str, Any]) -> str:
    return json.dumps(_normalize_numbers(payload), separators=(",", ":"), ensure_ascii=False)


def signature(body: str, api_key: str) -> str:
    return hmac.new(api_key.encode("utf-8"), body.encode("utf-8"), hashlib.sha256).hexdigest()


@dataclass(frozen=True)
class SignedWebhook:
    url: str
    body: str
    headers: dict[str, str]


def sign(url: str, payload: dict[str, Any], api_key: str, now: Callable[[], float] = time.time) -> SignedWebhook:
    body = body_text(payload)
    return SignedWebhook(url, body, {"x-skyvern-timestamp": str(int(now())), "x-skyvern-signature": signature(body, api_key),
                                     "Content-Type": "application/json"})


class NoReply(Exception):
    """No HTTP reply; ``str`` is the service's ``Type: message`` description."""


class _Connection:
    """One HTTP connection whose whole exchange has a deadline: past it, the socket is shut down
    from a timer (which wakes a blocked read) and the attempt ends as ``ReadTimeout``."""

    def __init__(self, url: str, timeout: float) -> None:
        parts = urlsplit(url)
        self.path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        if parts.scheme == "https":
            self.conn: http.client.HTTPConnection = http.client.HTTPSConnection(
                parts.hostname or "", parts.port, timeout=timeout, context=ssl.create_default_context())
        else:
            self.conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=timeout)
        self.expired = False
        self.connected = False
        self._timer = threading.Timer(timeout, self._expire)
        self._timer.daemon = True

    def _expire(self) -> None:
        self.expired = True
        sock = self.conn.sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def post(self, body: bytes, headers: dict[str, str]) -> tuple[int, str, dict[str, str]]:
        self._timer.start()
        try:
            self.conn.connect()
            self.connected = True
            self.conn.request("POST", self.path, body=body, headers=headers)
            reply = self.conn.getresponse()
            text = reply.read(MAX_REPLY_BYTES).decode("utf-8", "replace")
            if self.expired:  # the shut-down socket read as an end: the reply is cut short
                raise socket.timeout("the delivery's deadline passed")
            return reply.status, text, dict(reply.headers)
        finally:
            self._timer.cancel()
            self.conn.close()


def _post(hook: SignedWebhook, timeout: float) -> tuple[int, str, dict[str, str]]:
    connection = _Connection(hook.url, timeout)
    try:
        return connection.post(hook.body.encode("utf-8"), {**hook.headers, "User-Agent": "wflint-serve"})
    except (socket.timeout, TimeoutError) as exc:
        raise NoReply("ReadTimeout" if connection.connected else "ConnectTimeout") from exc
    except socket.gaierror as exc:
        raise NoReply(f"ConnectError: {exc}") from exc
    except (http.client.HTTPException, ConnectionError, OSError, ValueError) as exc:
        if connection.expired:
            raise NoReply("ReadTimeout" if connection.connected else "ConnectTimeout") from exc
        if not connection.connected:
            raise NoReply("ConnectError: All connection attempts failed") from exc
        raise NoReply(f"ReadError: {exc}" if str(exc) else "ReadError") from exc


def _retry_after(headers: dict[str, str]) -> float | None:
    value = next((v for k, v in headers.items() if k.lower() == "retry-after"), None)
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


def deliver(hook: SignedWebhook, *, sleep: Callable[[float], None] = time.sleep,
            post: Callable[[SignedWebhook, float], tuple[int, str, dict[str, str]]] = _post,
            timeout: float = TIMEOUT_SECONDS) -> str:
    """Deliver with the service's retries; the run's ``webhook_failure_reason`` ("" = delivered)."""
    if not hook.url.lower().startswith(("http://", "https://")):
        return f"Webhook delivery failed before receiving a response: InvalidUrl: {hook.url}"
    outcome = ""
    for attempt in range(MAX_ATTEMPTS):
        hinted = None
        try:
            status, text, headers = post(hook, timeout)
        except NoReply as exc:
            outcome = f"Webhook delivery failed before receiving a response: {exc}"
        else:
            if 200 <= status < 300:
                return ""
            outcome = f"Webhook failed with status code {status}, error message: {text}"
            if not (status >= 500 or status in RETRYABLE_4XX):
                return outcome
            hinted = _retry_after(headers)
        if attempt < MAX_ATTEMPTS - 1:
            delay = min(hinted, MAX_RETRY_AFTER_SECONDS) if hinted is not None else \
                BASE_DELAY_SECONDS * 2 ** attempt + random.uniform(0, BASE_DELAY_SECONDS)
            sleep(delay)
    return outcome
