"""Colour for the human formats (``full`` and ``concise``) on a terminal.

``--color auto`` (the default) colours only when standard output is a terminal whose ``TERM``
is not ``dumb``; the ``NO_COLOR`` environment variable (any non-empty value) turns colour off
and ``FORCE_COLOR`` (non-empty and not ``0``) turns it on, NO_COLOR winning when both are set.
``--color always`` and ``--color never`` override all of that.
"""

from __future__ import annotations

from typing import Mapping, TextIO

from ..core.records import Record, assign

CHOICES = ("auto", "always", "never")

_RESET = "\x1b[0m"
_SGR = {"bold": "1", "dim": "2", "red": "31", "yellow": "33", "blue": "34", "cyan": "36"}
_SEVERITY = {"error": "red", "warning": "yellow", "info": "blue"}


def wants_color(choice: str, stream: TextIO, env: Mapping[str, str]) -> bool:
    """Whether to colour what is written to ``stream``."""
    if choice == "always":
        return True
    if choice == "never":
        return False
    if env.get("NO_COLOR"):
        return False
    if env.get("FORCE_COLOR", "") not in ("", "0"):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and env.get("TERM") != "dumb"


class Style(Record):
    """How the human formats mark up their parts; ``PLAIN`` leaves text as it is."""

    def __init__(self, enabled: bool = False) -> None:
        assign(self, locals())

    def _paint(self, text: str, *names: str) -> str:
        if not self.enabled or not text:
            return text
        return "\x1b[" + ";".join(_SGR[n] for n in names) + "m" + text + _RESET

    def path(self, text: str) -> str:
        return self._paint(text, "bold")

    def code(self, text: str, severity: str) -> str:
        return self._paint(text, "bold", _SEVERITY.get(severity, "red"))

    def severity(self, text: str, severity: str) -> str:
        return self._paint(text, _SEVERITY.get(severity, "red"))

    def muted(self, text: str) -> str:
        return self._paint(text, "dim")

    def caret(self, text: str, severity: str) -> str:
        return self._paint(text, "bold", _SEVERITY.get(severity, "red"))

    def help(self, text: str) -> str:
        return self._paint(text, "cyan")


PLAIN = Style(False)
COLOR = Style(True)
