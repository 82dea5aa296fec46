"""Output formats: each a pure function from a sorted list of diagnostics to text.

Every format is called as ``render(diags, lines, rules)``: ``full`` quotes source lines through
the ``lines(path, n)`` callable, and ``sarif`` describes each rule from ``rules`` (code to rule,
the registry), so each stays a pure function of its arguments and no format imports the rule
layer. A few take keyword options (``OPTIONS``): ``style`` (colour) for the human formats,
``files`` (the files checked) for ``junit``, ``root`` (the repository) for ``gitlab``,
``docs_url`` (the ``docs-url`` setting: where rule links point) for the formats that link;
``render`` passes each format only the options it takes.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping, Sequence

if TYPE_CHECKING:  # the format names are read at start-up (the CLI's choices); the formats need more
    from ...core.diagnostics import Diagnostic

LineGetter = Callable[[str, int], "str | None"]


class _Formats(Mapping[str, Callable[..., str]]):
    """Format name → its ``render``, each module imported when first asked for: a run renders
    one format, and importing all of them (XML, hashing) cost every command's start-up."""

    def __init__(self, modules: dict[str, str]) -> None:
        self._modules = modules

    def __getitem__(self, name: str) -> Callable[..., str]:
        return importlib.import_module(f"{__name__}.{self._modules[name]}").render

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __len__(self) -> int:
        return len(self._modules)


FORMATS = _Formats({
    "full": "full",
    "concise": "concise",
    "json": "json_format",
    "github": "github",
    "sarif": "sarif",
    "junit": "junit",
    "gitlab": "gitlab",
})

#: the keyword options each format understands beyond (diags, lines, rules)
OPTIONS: dict[str, frozenset[str]] = {
    "full": frozenset({"style", "with_summary"}),
    "concise": frozenset({"style"}),
    "json": frozenset({"docs_url"}),
    "sarif": frozenset({"docs_url"}),
    "junit": frozenset({"files", "docs_url"}),
    "gitlab": frozenset({"root", "docs_url"}),
}

#: the formats a person reads, which get colour on a terminal
HUMAN_FORMATS = frozenset({"full", "concise"})


def render(fmt: str, diags: Sequence[Diagnostic], lines: LineGetter | None, rules: Any, **options: Any) -> str:
    accepted = OPTIONS.get(fmt, frozenset())
    return FORMATS[fmt](diags, lines, rules, **{k: v for k, v in options.items() if k in accepted})
