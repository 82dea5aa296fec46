"""The mock's run queue: one line per organization, served fairly.

Runs wait in their organization's own first-in-first-out line. A free worker takes the next run
of the organization that has the fewest runs executing (the one served longest ago among equals),
and no organization holds more than ``share`` workers at once, so one organization's hundreds of
runs, or its runs that take minutes, never keep another's from starting. Each organization has
its own line; the lines share one condition, held only to pick a run, never while one executes.
"""

from __future__ import annotations

import itertools
import threading
from collections import deque


class FairQueue:
    def __init__(self, share: int) -> None:
        #: the most workers one organization may hold at once
        self.share = max(1, share)
        self._cond = threading.Condition()
        self._lines: dict[str, deque[str]] = {}
        self._running: dict[str, int] = {}
        self._served: dict[str, int] = {}
        self._clock = itertools.count()

    def put(self, organization: str, run_id: str) -> None:
        with self._cond:
            self._lines.setdefault(organization, deque()).append(run_id)
            self._cond.notify()

    def take(self) -> tuple[str, str]:
        """Blocks until a run may start; (organization, run id). Call :meth:`done` after it."""
        with self._cond:
            while True:
                choice = self._choose()
                if choice is not None:
                    line = self._lines[choice]
                    run_id = line.popleft()
                    if not line:
                        del self._lines[choice]
                    self._running[choice] = self._running.get(choice, 0) + 1
                    self._served[choice] = next(self._clock)
                    return choice, run_id
                self._cond.wait()

    def done(self, organization: str) -> None:
        with self._cond:
            left = self._running.get(organization, 0) - 1
            if left > 0:
                self._running[organization] = left
            else:
                self._running.pop(organization, None)
            self._cond.notify_all()

    def waiting(self) -> int:
        with self._cond:
            return sum(map(len, self._lines.values()))

    def _choose(self) -> str | None:
        ready = [org for org in self._lines if self._running.get(org, 0) < self.share]
        if not ready:
            return None
        return min(ready, key=lambda org: (self._running.get(org, 0), self._served.get(org, -1)))
