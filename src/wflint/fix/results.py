"""What ``fix_text`` returns and raises."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class FixResult:
    """The fixed text, one line per change (``line N: … (WF106)``), and notes on what was
    found but deliberately left alone."""

    text: str
    changes: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.changes)


class FixError(Exception):
    """The text cannot be fixed because it cannot be read (a YAML or JSON syntax error)."""


class FixInternalError(Exception):
    """The edits did not produce exactly the intended data: a wflint bug. Nothing is changed."""
