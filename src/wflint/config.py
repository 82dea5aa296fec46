"""Configuration: ``.wflint.toml`` or ``[tool.wflint]`` in ``pyproject.toml`` (read with the
standard ``tomllib``), overridden by command-line options.

Keys (all optional)::

    select = ["ALL"]           # codes, code prefixes (WF2) or rule names
    ignore = ["WF213"]
    fail-level = "error"       # lowest severity that makes `wflint check` exit 1
    mode = "auto"              # how files reach the service: auto | json | yaml
    exclude = ["drafts/**"]    # glob patterns skipped when walking directories
    [severity]                 # per-rule severity overrides
    WF213 = "error"
    [limits]                   # wflint's limits for hostile input (document/limits.py)
    blocks = 20000
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .diagnostics import SEVERITIES
from .document.limits import DEFAULT as DEFAULT_LIMITS, Limits

MODES = ("auto", "json", "yaml")


class ConfigError(Exception):
    """A configuration or usage problem: the CLI exits with status 2."""


@dataclass
class Config:
    select: list[str] = field(default_factory=lambda: ["ALL"])
    ignore: list[str] = field(default_factory=list)
    fail_level: str = "error"
    mode: str = "auto"
    exclude: list[str] = field(default_factory=list)
    severity: dict[str, str] = field(default_factory=dict)
    limits: Limits = DEFAULT_LIMITS
    source: str | None = None

    def validate(self) -> "Config":
        from .rules import lookup, registry

        if self.fail_level not in SEVERITIES:
            raise ConfigError(f"fail-level must be one of {', '.join(SEVERITIES)}, not {self.fail_level!r}")
        if self.mode not in MODES:
            raise ConfigError(f"mode must be one of {', '.join(MODES)}, not {self.mode!r}")
        if not self.select:
            raise ConfigError("select is empty, which would turn every rule off (use ALL, codes, prefixes or names)")
        for sel in [*self.select, *self.ignore]:
            s = sel.strip()
            if not s:
                raise ConfigError("an empty rule selector (use ALL, a code such as WF201, a prefix such as WF2, or a rule name)")
            if s.upper() == "ALL":
                continue
            if lookup(s) is None and not any(code.startswith(s.upper()) for code in registry()):
                raise ConfigError(f"unknown rule selector {sel!r} (use a code such as WF201, a prefix such as WF2, or a rule name)")
        for code, sev in self.severity.items():
            if lookup(code) is None:
                raise ConfigError(f"severity override for unknown rule {code!r}")
            if sev not in SEVERITIES:
                raise ConfigError(f"severity for {code} must be one of {', '.join(SEVERITIES)}, not {sev!r}")
        return self


_KEYS = {"select", "ignore", "fail-level", "mode", "exclude", "severity", "limits"}


def from_table(table: dict[str, Any], origin: str) -> Config:
    unknown = set(table) - _KEYS
    if unknown:
        raise ConfigError(f"{origin}: unknown setting(s): {', '.join(sorted(unknown))}")
    cfg = Config(source=origin)

    def str_list(key: str) -> list[str]:
        v = table.get(key, [])
        if isinstance(v, str):
            v = [v]
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise ConfigError(f"{origin}: '{key}' must be a list of strings")
        return v

    if "select" in table:
        cfg.select = str_list("select")
    cfg.ignore = str_list("ignore")
    cfg.exclude = str_list("exclude")
    for key, attr in (("fail-level", "fail_level"), ("mode", "mode")):
        if key in table:
            if not isinstance(table[key], str):
                raise ConfigError(f"{origin}: '{key}' must be a string")
            setattr(cfg, attr, table[key])
    sev = table.get("severity", {})
    if not isinstance(sev, dict) or not all(isinstance(v, str) for v in sev.values()):
        raise ConfigError(f"{origin}: 'severity' must be a table of rule = \"severity\"")
    cfg.severity = {k.upper() if k.upper().startswith("WF") else k: v for k, v in sev.items()}
    limits = table.get("limits", {})
    if not isinstance(limits, dict):
        raise ConfigError(f"{origin}: 'limits' must be a table of name = number")
    cfg.limits = with_limits(cfg.limits, limits, origin)
    return cfg


def with_limits(base: Limits, values: dict[str, Any], origin: str) -> Limits:
    """``base`` with the limits in ``values`` (config keys) set; ConfigError on a bad one."""
    try:
        return base.with_values(values, origin)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


def load(path: Path) -> Config:
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except OSError as exc:
        raise ConfigError(f"cannot read config {path}: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    except UnicodeDecodeError as exc:  # TOML is UTF-8 by definition
        raise ConfigError(f"{path}: not valid UTF-8 (byte 0x{exc.object[exc.start]:02x} at offset {exc.start}); save it as UTF-8") from None
    if path.name == "pyproject.toml":
        data = data.get("tool", {}).get("wflint", {})
    return from_table(data, str(path)).validate()


def discover(start: Path) -> Config:
    """The nearest ``.wflint.toml``, or ``pyproject.toml`` with a ``[tool.wflint]`` table,
    from ``start`` upwards; defaults when there is none."""
    start = start.resolve()
    for d in [start, *start.parents]:
        candidate = d / ".wflint.toml"
        if candidate.is_file():
            return load(candidate)
        pyproject = d / "pyproject.toml"
        if pyproject.is_file():
            try:
                with pyproject.open("rb") as fh:
                    data = tomllib.load(fh)
            except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
                continue
            if "wflint" in data.get("tool", {}):
                return load(pyproject)
    return Config()
