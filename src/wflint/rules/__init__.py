"""The rule registry.

One module per rule, named ``wfNNN_<name>.py``. Each declares ``CODE``, ``NAME``, ``SEVERITY``,
a docstring that is its documentation (what it checks, why, a bad and a good example) and a
``check(wf)`` function that yields diagnostics. Rules whose findings are produced while reading
the file (syntax, duplicate keys, the request envelope, suppressions) set ``check = None`` and
``PRODUCED_BY`` to say where; they are documented here all the same.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from dataclasses import dataclass
from functools import lru_cache
from types import ModuleType
from typing import Callable, Iterable

from ..diagnostics import SEVERITIES


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    severity: str
    doc: str
    check: Callable[..., Iterable] | None
    module: ModuleType

    # Rules are passed to Workflow.diag(); these aliases let a Rule stand in for its module.
    @property
    def CODE(self) -> str:  # noqa: N802 - mirrors the module constant
        return self.code

    @property
    def NAME(self) -> str:  # noqa: N802
        return self.name

    @property
    def SEVERITY(self) -> str:  # noqa: N802
        return self.severity

    @property
    def summary(self) -> str:
        return self.doc.strip().splitlines()[0] if self.doc.strip() else ""


@lru_cache(maxsize=1)
def registry() -> dict[str, Rule]:
    """Every rule, by code, in code order."""
    rules: dict[str, Rule] = {}
    for info in pkgutil.iter_modules(__path__):
        if not info.name.startswith("wf"):
            continue
        mod = importlib.import_module(f"{__name__}.{info.name}")
        code, name, severity = mod.CODE, mod.NAME, mod.SEVERITY
        if severity not in SEVERITIES:
            raise ValueError(f"{info.name}: unknown severity {severity!r}")
        if code in rules:
            raise ValueError(f"{info.name}: code {code} is declared twice")
        doc = inspect.cleandoc(mod.__doc__ or "")
        rules[code] = Rule(code, name, severity, doc, getattr(mod, "check", None), mod)
    return dict(sorted(rules.items()))


def by_name() -> dict[str, Rule]:
    return {r.name: r for r in registry().values()}


def lookup(code_or_name: str) -> Rule | None:
    key = code_or_name.strip()
    return registry().get(key.upper()) or by_name().get(key.lower())


def matches(selector: str, rule_code: str, rule_name: str) -> bool:
    """``--select``/``--ignore`` matching: a full code, a code prefix (``WF2``), a name, or ALL."""
    s = selector.strip()
    if not s:
        return False
    if s.upper() == "ALL":
        return True
    if s.lower() == rule_name:
        return True
    return rule_code.startswith(s.upper())
