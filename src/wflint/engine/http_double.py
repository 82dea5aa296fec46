"""The case's ``http:`` table: a test double for the network, consulted by ``http_request`` after
the block has rendered its request (url, headers, body, secrets swapped in), where the engine
would hand it to its HTTP client. Unlike a ``blocks:`` stub, the block runs for real: what it
would send is recorded and can be asserted on.

A rule matches a request by ``method`` (any when absent, case-insensitive) and by ``url``
(exactly) or ``url_matches`` (a regular expression searched in the url); the first rule that
matches answers with ``status`` (200), ``headers`` and ``body`` (a mapping or list is sent as
JSON, as a server would), or fails the transport with ``error: "message"`` or ``timeout: true``.
``times: N`` lets a rule answer N requests, after which the next matching rule answers (a
sequence of answers, one per loop iteration).

Every request the blocks make is recorded (``requests``): its block, method, url, headers, body
and what answered it (``rule`` index, ``network`` or ``none``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

#: the keys of one rule (the test-file schema lists the same)
RULE_KEYS = ("method", "url", "url_matches", "status", "headers", "body", "error", "timeout", "times")


@dataclass
class Answer:
    status: int = 200
    headers: dict[str, str] | None = None
    body: Any = None
    #: a transport error's message (the block fails: ``HTTP request failed: ...``)
    error: str | None = None
    timeout: bool = False


class HttpDouble:
    def __init__(self, rules: list[dict[str, Any]] | None) -> None:
        self.rules = [dict(r) for r in rules or [] if isinstance(r, dict)]
        self._used = [0] * len(self.rules)
        #: every request made, in order (masked by the run before anyone reads it)
        self.requests: list[dict[str, Any]] = []

    def rule_matches(self, rule: dict[str, Any], method: str, url: str) -> bool:
        if rule.get("method") and str(rule["method"]).upper() != method.upper():
            return False
        if "url" in rule and str(rule["url"]) != url:
            return False
        if "url_matches" in rule:
            try:
                if re.search(str(rule["url_matches"]), url) is None:
                    return False
            except re.error:
                return False
        return True

    def answer(self, method: str, url: str) -> tuple[int | None, Answer | None]:
        """The rule that answers a request (its index) and its answer, or ``(None, None)``."""
        for index, rule in enumerate(self.rules):
            if not self.rule_matches(rule, method, url):
                continue
            times = rule.get("times")
            if isinstance(times, int) and not isinstance(times, bool) and self._used[index] >= times:
                continue
            self._used[index] += 1
            return index, Answer(
                status=int(rule.get("status", 200)),
                headers={str(k): str(v) for k, v in (rule.get("headers") or {}).items()},
                body=rule.get("body"),
                error=str(rule["error"]) if rule.get("error") is not None else None,
                timeout=bool(rule.get("timeout")),
            )
        return None, None

    def record(self, label: str, method: str, url: str, headers: dict[str, str], body: Any,
               answered_by: int | str | None) -> None:
        self.requests.append({"block": label, "method": method, "url": url, "headers": dict(headers),
                              "body": body, "answered_by": "none" if answered_by is None else answered_by})


def shown(request: dict[str, Any]) -> str:
    """One request as a person reads it in a failure: method, url, then the body."""
    import json

    text = f"{request.get('method')} {request.get('url')}"
    if request.get("body") is not None:
        text += f" body {json.dumps(request['body'], default=str, ensure_ascii=False)}"
    return text
