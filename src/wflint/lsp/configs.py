"""The configuration of an open document: the nearest ``.wflint.toml`` or ``pyproject.toml``
with ``[tool.wflint]`` above it, as ``wflint check`` finds it, read again whenever one of those
files' modification times changes. A configuration that cannot be read is reported once and the
default one used, so a typo in a config file never leaves the editor without diagnostics.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from ..project.config import Config, ConfigError, discover

CONFIG_NAMES = (".wflint.toml", "pyproject.toml")


class ConfigCache:
    """The configuration per directory, fresh as long as the config files' times are."""

    def __init__(self, report: Callable[[str], None]):
        #: shows a configuration error to the user, once per message (the server replaces the
        #: opening's way of showing it when it takes the session over)
        self.report = report
        self._cache: dict[Path, tuple[tuple, Config]] = {}
        self._reported: set[str] = set()

    @staticmethod
    def _stamp(directory: Path) -> tuple:
        out = []
        for d in [directory, *directory.parents]:
            for name in CONFIG_NAMES:
                try:
                    out.append((str(d / name), (d / name).stat().st_mtime_ns))
                except OSError:
                    pass
        return tuple(out)

    def clear(self) -> None:
        self._cache.clear()

    def for_path(self, path: str | None) -> Config:
        if not path:
            return Config()
        directory = Path(path).parent
        stamp = self._stamp(directory)
        cached = self._cache.get(directory)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        try:
            config = discover(directory)
        except ConfigError as exc:
            message = f"wflint: {exc}; using the default configuration"
            if message not in self._reported:
                self._reported.add(message)
                self.report(message)
            config = Config()
        self._cache[directory] = (stamp, config)
        return config
