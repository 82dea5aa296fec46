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
from functools import lru_cache
from types import ModuleType
from typing import Callable, Iterable

from ..core.diagnostics import SEVERITIES
from ..core.records import Record, assign


class Rule(Record):
    def __init__(self, code: str, name: str, severity: str, doc: str, check: Callable[..., Iterable] | None,
                 module: ModuleType) -> None:
        assign(self, locals())

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


def _module_names() -> list[str]:
    return [info.name for info in pkgutil.iter_modules(__path__) if info.name.startswith("wf")]


def _rule(module_name: str) -> Rule:
    mod = importlib.import_module(f"{__name__}.{module_name}")
    code, name, severity = mod.CODE, mod.NAME, mod.SEVERITY
    if severity not in SEVERITIES:
        raise ValueError(f"{module_name}: unknown severity {severity!r}")
    doc = inspect.cleandoc(mod.__doc__ or "")
    return Rule(code, name, severity, doc, getattr(mod, "check", None), mod)


@lru_cache(maxsize=1)
def registry() -> dict[str, Rule]:
    """Every rule, by code, in code order."""
    rules: dict[str, Rule] = {}
    for module_name in _module_names():
        rule = _rule(module_name)
        if rule.code in rules:
            raise ValueError(f"{module_name}: code {rule.code} is declared twice")
        rules[rule.code] = rule
    return dict(sorted(rules.items()))


def by_name() -> dict[str, Rule]:
    return {r.name: r for r in registry().values()}


def lookup(code_or_name: str) -> Rule | None:
    key = code_or_name.strip()
    if registry.cache_info().currsize == 0:
        # before the registry is built (``wflint rule WF201``), import only the module whose
        # file is named after the rule (``wf201_duplicate_label``: a test keeps every file so
        # named) instead of all of them and what they import
        wanted = key.lower().replace("-", "_")
        for module_name in _module_names():
            code, _, name = module_name.partition("_")
            if wanted in (code, name):
                rule = _rule(module_name)
                if rule.code == key.upper() or rule.name == key.lower():
                    return rule
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
