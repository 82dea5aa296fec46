"""A progress line on standard error for long runs, only where a person is watching.

Nothing is shown for the first ``DELAY`` seconds (most runs end before that), nor ever when
standard error is not a terminal, when ``CI`` is set, or with ``--quiet``: CI logs and
redirected output stay clean. The line is redrawn in place at most ``INTERVAL`` times a second
and erased when the run ends, so it never mixes with the report.
"""

from __future__ import annotations

import time
from typing import Callable, Mapping, TextIO

DELAY = 2.0
INTERVAL = 0.1
_ERASE = "\r\x1b[K"


def should_show(stream: TextIO, env: Mapping[str, str], quiet: bool = False) -> bool:
    isatty = getattr(stream, "isatty", None)
    return not quiet and bool(isatty and isatty()) and not env.get("CI") and env.get("TERM") != "dumb"


class Progress:
    def __init__(
        self, stream: TextIO, *, enabled: bool, clock: Callable[[], float] = time.monotonic, delay: float = DELAY
    ) -> None:
        self.stream = stream
        self.enabled = enabled
        self.clock = clock
        self.delay = delay
        self.started = clock()
        self._last_drawn: float | None = None

    @property
    def shown(self) -> bool:
        return self._last_drawn is not None

    def update(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        now = self.clock()
        if now - self.started < self.delay:
            return
        if self._last_drawn is not None and now - self._last_drawn < INTERVAL and done < total:
            return
        self._last_drawn = now
        elapsed = now - self.started
        self.stream.write(f"{_ERASE}wflint: checked {done}/{total} files ({elapsed:.0f} s)")
        self.stream.flush()

    def close(self) -> None:
        """Erase the line, if one was drawn."""
        if self.shown:
            self.stream.write(_ERASE)
            self.stream.flush()
            self._last_drawn = None

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
