"""Text that every consumer of a report can read: no lone surrogates (which UTF-8 cannot
encode) and, for XML, no characters XML 1.0 forbids even as references.

A diagnostic quotes the user's file, so a message may hold any character the file held.
"""

from __future__ import annotations

import re

_SURROGATE = re.compile("[\ud800-\udfff]")
# XML 1.0 allows tab, newline, carriage return, and U+0020 up, minus the surrogates and
# U+FFFE/U+FFFF
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def without_surrogates(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD, so it encodes as UTF-8."""
    return _SURROGATE.sub("\ufffd", text)


def _xml_replacement(match: re.Match[str]) -> str:
    ch = match.group()
    if ch < "\x20":
        return f"\\x{ord(ch):02x}"  # a control character stays visible, as Python writes it
    return "\ufffd"


def xml_text(text: str) -> str:
    """``text`` with the characters XML 1.0 cannot carry made visible (``\\x01``) or replaced
    (U+FFFD); escaping ``<`` and ``&`` is left to the XML writer."""
    return _NOT_XML.sub(_xml_replacement, text)
