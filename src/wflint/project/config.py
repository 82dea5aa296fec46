"""Configuration: ``.wflint.toml`` or ``[tool.wflint]`` in ``pyproject.toml`` (read with the
standard ``tomllib``), overridden by command-line options.

Keys (all optional)::

    select = ["ALL"]           # codes, code prefixes (WF2) or rule names
    ignore = ["WF213"]
    fail-level = "error"       # lowest severity that makes `wflint check` exit 1
    mode = "auto"              # how files reach the service: auto | json | yaml
    include = ["flows/**"]     # files that are workflows whatever they hold
    exclude = ["drafts/"]      # files and directories never checked, walked or named
    respect-gitignore = true   # a walk skips what .gitignore ignores
    target-version = "1.0.55"  # the service release to judge by (default: the repository's
                               # skyvern pin, else the newest modelled; see release_pin.py)
    docs-url = "https://wflint.example.com/rules/"  # the page rule links point at (default: docs/rules.md in the repository)
    [per-file-ignores]         # rules ignored in the files a glob matches
    "legacy/**" = ["WF213"]
    [severity]                 # per-rule severity overrides
    WF213 = "error"
    [limits]                   # wflint's limits for hostile input (document/limits.py)
    blocks = 20000

Globs have gitignore semantics and match paths relative to the configuration file's directory
(the working directory without one): see ``wflint.project.discovery``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..core.diagnostics import SEVERITIES
from ..document.limits import DEFAULT as DEFAULT_LIMITS, Limits
from ..core.patterns import lazy
from ..core.records import MutableRecord, assign, field_names, fresh

MODES = ("auto", "json", "yaml")


class ConfigError(Exception):
    """A configuration or usage problem: the CLI exits with status 2."""


class Config(MutableRecord):
    def __init__(
        self,
        select: list[str] = fresh(lambda: ["ALL"]),
        ignore: list[str] = fresh(list),
        fail_level: str = "error",
        mode: str = "auto",
        exclude: list[str] = fresh(list),
        include: list[str] = fresh(list),
        per_file_ignores: dict[str, list[str]] = fresh(dict),
        respect_gitignore: bool = True,
        severity: dict[str, str] = fresh(dict),
        limits: Limits = DEFAULT_LIMITS,
        source: str | None = None,
        #: the service release to judge by; None means the newest release wflint models
        target_version: str | None = None,
        #: the page documenting the rules, which reports and the language server link to; None:
        #: docs/rules.md in the repository the package metadata names (``report.links``)
        docs_url: str | None = None,
        #: where each setting in force came from (config key, or ``limits.<key>``): a file's path or
        #: ``command line (--option)``; a key absent here has its default (``--show-settings``)
        origins: dict[str, str] = fresh(dict),
        #: skip named files and standard input whose content is not a workflow, as a walk does
        #: (``--skip-non-workflows``, for the pre-commit hook, which names every staged file)
        skip_non_workflows: bool = False,
        #: why the repository's skyvern pins could not choose a release (two files disagree);
        #: an error only when nothing else names the target (``validate``)
        pin_problem: str | None = None,
    ) -> None:
        assign(self, locals())

    def validate(self) -> "Config":
        from ..rules import lookup, registry

        if self.fail_level not in SEVERITIES:
            raise ConfigError(f"fail-level must be one of {', '.join(SEVERITIES)}, not {self.fail_level!r}")
        if self.mode not in MODES:
            raise ConfigError(f"mode must be one of {', '.join(MODES)}, not {self.mode!r}")
        if not self.select:
            raise ConfigError("select is empty, which would turn every rule off (use ALL, codes, prefixes or names)")
        if self.target_version is None and self.pin_problem:
            raise ConfigError(f"target-version: {self.pin_problem}")
        if self.target_version is not None:
            from ..model.releases import UnknownRelease, check_release

            try:
                self.target_version = check_release(self.target_version)
            except UnknownRelease as exc:
                origin = self.origins.get("target-version", "")
                where = (f" (read from {origin}; set target-version in the configuration or pass "
                         "--target-version to judge by a modelled release)") if "skyvern pin" in origin else ""
                raise ConfigError(f"target-version: {exc}{where}") from None
        for sel in [*self.select, *self.ignore]:
            s = sel.strip()
            if not s:
                raise ConfigError("an empty rule selector (use ALL, a code such as WF201, a prefix such as WF2, or a rule name)")
            if s.upper() == "ALL":
                continue
            if lookup(s) is None and not any(code.startswith(s.upper()) for code in registry()):
                raise ConfigError(f"unknown rule selector {sel!r} (use a code such as WF201, a prefix such as WF2, or a rule name)")
        for pattern, codes in self.per_file_ignores.items():
            for sel in codes:
                if sel.strip().upper() != "ALL" and lookup(sel) is None and not any(c.startswith(sel.strip().upper()) for c in registry()):
                    raise ConfigError(f"per-file-ignores {pattern!r}: unknown rule selector {sel!r}")
        for code, sev in self.severity.items():
            if lookup(code) is None:
                raise ConfigError(f"severity override for unknown rule {code!r}")
            if sev not in SEVERITIES:
                raise ConfigError(f"severity for {code} must be one of {', '.join(SEVERITIES)}, not {sev!r}")
        return self


_KEYS = {"select", "ignore", "fail-level", "mode", "exclude", "include", "per-file-ignores", "respect-gitignore",
         "severity", "target-version", "limits", "docs-url"}


def from_table(table: dict[str, Any], origin: str) -> Config:
    if not isinstance(table, dict):
        raise ConfigError(f"{origin}: the wflint settings must be a table, not {_toml_type(table)}")
    unknown = set(table) - _KEYS
    if unknown:
        raise ConfigError(f"{origin}: unknown setting(s): {', '.join(sorted(unknown))}")
    cfg = Config(source=origin)
    cfg.origins = {key: origin for key in table if key != "limits"}
    if isinstance(table.get("limits"), dict):
        cfg.origins.update({f"limits.{key.replace('_', '-')}": origin for key in table["limits"]})

    def str_list(key: str) -> list[str]:
        v = table.get(key, [])
        if isinstance(v, str):  # a lone string reads as one glob but is easily a typo: say how to write it
            raise ConfigError(f"{origin}: '{key}' must be a list of strings, e.g. {key} = [{_quoted(v)}]")
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise ConfigError(f"{origin}: '{key}' must be a list of strings")
        return v

    if "select" in table:
        cfg.select = str_list("select")
    cfg.ignore = str_list("ignore")
    cfg.exclude = str_list("exclude")
    cfg.include = str_list("include")
    if "respect-gitignore" in table:
        if not isinstance(table["respect-gitignore"], bool):
            raise ConfigError(f"{origin}: 'respect-gitignore' must be true or false")
        cfg.respect_gitignore = table["respect-gitignore"]
    pfi = table.get("per-file-ignores", {})
    if not isinstance(pfi, dict) or not all(
            isinstance(v, list) and all(isinstance(x, str) for x in v) for v in pfi.values()):
        raise ConfigError(f"{origin}: 'per-file-ignores' must be a table of \"glob\" = [\"rule\", ...]")
    cfg.per_file_ignores = dict(pfi)
    _check_globs(origin, [("include", g) for g in cfg.include] + [("exclude", g) for g in cfg.exclude]
                 + [("per-file-ignores", g) for g in cfg.per_file_ignores])
    for key, attr in (("fail-level", "fail_level"), ("mode", "mode"), ("target-version", "target_version"),
                      ("docs-url", "docs_url")):
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


def _toml_type(value: Any) -> str:
    return {bool: "a boolean", int: "a number", float: "a number", str: "a string", list: "an array"}.get(
        type(value), type(value).__name__)


def _quoted(text: str) -> str:
    import json

    return json.dumps(text[:60])


def _check_globs(origin: str, globs: list[tuple[str, str]]) -> None:
    """Globs whose matching could take time out of proportion are refused (``wflint.project.globs``)."""
    if not globs:  # most configurations have none: spare importing pathspec (about 10 ms)
        return
    from .globs import GlobTooComplex, check_pattern

    for key, glob in globs:
        try:
            check_pattern(glob)
        except GlobTooComplex as exc:
            raise ConfigError(f"{origin}: '{key}' glob {_quoted(glob)}: {exc}") from None


def with_limits(base: Limits, values: dict[str, Any], origin: str) -> Limits:
    """``base`` with the limits in ``values`` (config keys) set; ConfigError on a bad one."""
    try:
        return base.with_values(values, origin)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


def load(path: Path) -> Config:
    import tomllib  # here: a run with no configuration file never needs it

    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except OSError as exc:
        raise ConfigError(f"cannot read config {path}: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    except UnicodeDecodeError as exc:  # TOML is UTF-8 by definition
        raise ConfigError(f"{path}: not valid UTF-8 (byte 0x{exc.object[exc.start]:02x} at offset {exc.start}); save it as UTF-8") from None
    except RecursionError:  # tomllib recurses into nested arrays and inline tables
        raise ConfigError(f"{path}: nested too deeply to be a configuration") from None
    return with_pin(_from_document(path, data), path.parent)


def _from_document(path: Path, data: dict[str, Any]) -> Config:
    """The configuration a parsed file holds: all of a ``.wflint.toml``, the ``[tool.wflint]``
    table of a ``pyproject.toml``."""
    if path.name == "pyproject.toml":
        tool = data.get("tool", {})
        if not isinstance(tool, dict):
            raise ConfigError(f"{path}: 'tool' must be a table, not {_toml_type(tool)}")
        data = tool.get("wflint", {})
    return from_table(data, str(path)).validate()


#: what a pyproject.toml needs for ``discover`` to read it: the key ``wflint`` (bare or quoted)
#: followed by the ``.``, ``=`` or ``]`` that a key in a header, a dotted key or an inline table
#: has after it; ``tool`` given a value or as an array of tables (an error to report); or a
#: string escape, which can spell any key (TOML 1.1 adds ``\xHH``)
_MAY_NAME_WFLINT = lazy(rb"""wflint['"]?[ \t]*[.=\]]|tool['"]?[ \t]*[=\]]|\\[uUx]""")


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
                raw = pyproject.read_bytes()
            except OSError:
                continue
            # most projects' pyproject.toml has no wflint table: a look at the bytes spares
            # importing tomllib and parsing the file (5 ms of a one-file check)
            if not _MAY_NAME_WFLINT.search(raw):
                continue
            import tomllib

            try:
                data = tomllib.loads(raw.decode("utf-8"))
            except (tomllib.TOMLDecodeError, UnicodeDecodeError, RecursionError):
                continue
            tool = data.get("tool", {})
            if not isinstance(tool, dict) or "wflint" in tool:  # _from_document says what is wrong with it
                return with_pin(_from_document(pyproject, data), start)
    return with_pin(Config(), start)


def with_pin(cfg: Config, start: Path) -> Config:
    """``cfg``, with the repository's ``skyvern`` pin as its target when it names none
    (``release_pin``); the pin's file is the setting's origin."""
    if cfg.target_version is not None:
        return cfg
    from .release_pin import ConflictingPins, find_pin

    try:
        pin = find_pin(start)
    except ConflictingPins as exc:
        cfg.pin_problem = str(exc)
        return cfg
    if pin is not None:
        cfg.target_version = pin.version
        cfg.origins["target-version"] = pin.origin()
    return cfg


def settings_text(cfg: Config, base: str) -> str:
    """Every setting in force, for ``--show-settings``: TOML, each value followed by where it
    came from (``default``, the configuration file, or the command line)."""
    import json

    from ..model.releases import NEWEST
    from ..report.links import repository_url

    def toml(value: Any) -> str:
        return json.dumps(value)  # lists of strings, strings, numbers and booleans read the same in TOML

    def line(key: str, value: Any, default_note: str = "", shown: str | None = None) -> str:
        text = f"{shown or key} = {toml(value)}"
        origin = cfg.origins.get(key) or ("default" + (f" ({default_note})" if default_note else ""))
        return f"{text:<40} # {origin}"

    docs_note = "docs/rules.md in the repository the package names"
    docs = cfg.docs_url
    if docs is None:
        repo = repository_url()
        docs = f"{repo}/blob/main/docs/rules.md" if repo else ""
        docs_note += "" if repo else "; none is named, so reports carry no rule links"
    lines = [f"# settings from {cfg.source or 'defaults (no configuration file found)'}",
             f"# globs are relative to {base}",
             line("select", cfg.select), line("ignore", cfg.ignore),
             line("fail-level", cfg.fail_level), line("mode", cfg.mode),
             line("include", cfg.include), line("exclude", cfg.exclude),
             line("respect-gitignore", cfg.respect_gitignore),
             line("target-version", cfg.target_version or NEWEST,
                  "the newest modelled release; no skyvern pin found in the repository"),
             line("docs-url", docs, docs_note),
             f"{'[per-file-ignores]':<40} # {cfg.origins.get('per-file-ignores', 'default')}"]
    lines += [f"{toml(k)} = {toml(v)}" for k, v in cfg.per_file_ignores.items()]
    lines.append(f"{'[severity]':<40} # {cfg.origins.get('severity', 'default')}")
    lines += [f"{k} = {toml(v)}" for k, v in cfg.severity.items()]
    lines.append("[limits]")
    for name in field_names(cfg.limits):
        key = name.replace("_", "-")
        lines.append(line(f"limits.{key}", getattr(cfg.limits, name), shown=key))
    return "\n".join(lines) + "\n"
