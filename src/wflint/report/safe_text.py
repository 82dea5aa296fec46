"""Text every output format can print safely, whatever a file's names and contents hold.

Labels, keys, messages and file names come from the input. Printed raw, a control character
or a line break in them is a terminal escape (``\\x1b[2J``) or a forged line for a problem
matcher, and a lone surrogate (a ``\\ud800`` escape in JSON or YAML, or an undecodable byte in
a file name, which Python keeps as U+DC80..U+DCFF) cannot be written as UTF-8 at all.

* ``printable`` is for the human formats: it shows every such character as an escape
  (``\\x1b``, ``\\n``, ``\\u2028``, ``\\udcff``; an undecodable file-name byte as ``\\xff``);
* ``json_safe`` is for JSON text (the ``json`` format): lone surrogates become JSON
  ``\\uXXXX`` escapes, so the output is valid UTF-8 and still says what the input held;
* ``without_surrogates`` replaces them with U+FFFD where an escape would be read as text
  (SARIF, GitLab), and ``xml_text`` keeps what XML 1.0 cannot carry out of JUnit reports.
"""

from __future__ import annotations

import re

from ..core.patterns import lazy

# C0 and C1 controls, DEL, the Unicode line and paragraph separators, the bidirectional
# overrides and isolates (they reorder what a terminal shows), and lone surrogates
_UNSAFE = lazy("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_UNSAFE_OR_TAB = lazy("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_SURROGATE = lazy("[\ud800-\udfff]")


def escape_char(c: str) -> str:
    """The printable escape of one unsafe character."""
    short = _SHORT.get(c)
    if short is not None:
        return short
    code = ord(c)
    if code < 0x100:
        return f"\\x{code:02x}"
    if 0xDC80 <= code <= 0xDCFF:  # an undecodable byte of a file name (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    return f"\\u{code:04x}"


def printable(text: str, keep_tabs: bool = False) -> str:
    """``text`` with every unsafe character escaped (tabs too, unless ``keep_tabs``)."""
    pattern = _UNSAFE if keep_tabs else _UNSAFE_OR_TAB
    if pattern.search(text) is None:
        return text
    return pattern.sub(lambda m: escape_char(m.group()), text)


def is_unsafe(c: str, keep_tabs: bool = True) -> bool:
    return (_UNSAFE if keep_tabs else _UNSAFE_OR_TAB).match(c) is not None


def escape_surrogates(text: str) -> str:
    """``text`` with each lone surrogate written as ``printable`` writes it (``\\ud800``, and
    ``\\xff`` for an undecodable file-name byte), everything else as it is."""
    return _SURROGATE.sub(lambda m: escape_char(m.group()), text)


def without_surrogates(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD, so it encodes as UTF-8."""
    return _SURROGATE.sub("\ufffd", text)


def json_safe(dumped: str) -> str:
    """JSON text from ``json.dumps(..., ensure_ascii=False)`` with lone surrogates escaped
    (``json.dumps`` leaves them raw, which no encoder can write as UTF-8)."""
    if _SURROGATE.search(dumped) is None:
        return dumped
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", dumped)


# XML 1.0 allows tab, newline, carriage return, and U+0020 up, minus the surrogates and
# U+FFFE/U+FFFF
_NOT_XML = lazy("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml_replacement(match: re.Match[str]) -> str:
    ch = match.group()
    if ch < "\x20":
        return f"\\x{ord(ch):02x}"  # a control character stays visible, as Python writes it
    return "\ufffd"


def xml_text(text: str) -> str:
    """``text`` with the characters XML 1.0 cannot carry made visible (``\\x01``) or replaced
    (U+FFFD); escaping ``<`` and ``&`` is left to the XML writer."""
    return _NOT_XML.sub(_xml_replacement, text)
