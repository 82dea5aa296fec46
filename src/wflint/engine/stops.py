"""Everything a run does stops: a run's deadline and cancel (:class:`StopSignal`), and a time
budget for work that runs Python in this process (template rendering: :func:`interruptible`).

A template loop (``{% for a in r %}{% for b in r %}...``) is plain Python bytecode that no
argument check can bound, and the engine itself has no limit (its run would go on for hours).
:func:`interruptible` arms one shared watchdog thread; when the budget passes, or the run is
canceled or reaches its deadline, the watchdog raises :class:`Interrupted` in the working thread
(CPython's ``PyThreadState_SetAsyncExc``, delivered between two bytecodes). The costly single
operations that would not return to the interpreter (a huge power, a huge repetition) are
refused before they start by :mod:`wflint.checks.jinja_bounds`.
"""

from __future__ import annotations

import ctypes
import heapq
import itertools
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar


class Interrupted(BaseException):
    """Raised inside the interrupted thread; a ``BaseException`` so that no ``except Exception``
    of the template or the engine swallows it. :func:`interruptible` turns it into the reason."""


class RunStopped(BaseException):
    """The run was stopped by its deadline or by a user (cancel): ``status`` is the run's status
    (``timed_out`` or ``canceled``), ``reason`` says why. A ``BaseException``: the engine turns
    any ``Exception`` of a block into that block's failure, and a stopped run is no block's."""

    def __init__(self, status: str, reason: str | None) -> None:
        self.status, self.reason = status, reason
        super().__init__(reason or status)


class BudgetExceeded(Exception):
    """One piece of work (a template render) ran past its own time budget."""


class StopSignal:
    """One run's deadline and cancel. ``check()`` raises :class:`RunStopped` once either is due;
    ``cancel()`` also interrupts the work the run is doing at that moment."""

    def __init__(self, deadline_seconds: float | None = None, deadline_reason: str | None = None) -> None:
        self.deadline = None if deadline_seconds is None else time.monotonic() + deadline_seconds
        self.deadline_reason = deadline_reason or f"wflint stopped the run at its deadline ({deadline_seconds:g} s)"
        self._canceled: str | None = None
        self._watches: set[_Watch] = set()
        self._lock = threading.Lock()

    def cancel(self, reason: str = "canceled") -> None:
        with self._lock:
            self._canceled = reason
            watches = list(self._watches)
        for watch in watches:
            _WATCHDOG.fire(watch)

    @property
    def canceled(self) -> bool:
        return self._canceled is not None

    def remaining(self) -> float | None:
        return None if self.deadline is None else self.deadline - time.monotonic()

    def stopped(self) -> RunStopped | None:
        if self._canceled is not None:
            return RunStopped("canceled", None)
        remaining = self.remaining()
        if remaining is not None and remaining <= 0:
            return RunStopped("timed_out", self.deadline_reason)
        return None

    def check(self) -> None:
        stopped = self.stopped()
        if stopped is not None:
            raise stopped


class _Watch:
    __slots__ = ("thread_id", "deadline", "state", "signal")

    def __init__(self, thread_id: int, deadline: float, signal: StopSignal | None) -> None:
        self.thread_id, self.deadline, self.signal = thread_id, deadline, signal
        self.state = "armed"  # -> "fired" (Interrupted sent) or "done" (the work finished first)


class _Watchdog:
    """One daemon thread that interrupts the watches whose deadline passed."""

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._heap: list[tuple[float, int, _Watch]] = []
        self._order = itertools.count()
        self._thread: threading.Thread | None = None

    def arm(self, seconds: float, signal: StopSignal | None) -> _Watch:
        watch = _Watch(threading.get_ident(), time.monotonic() + max(seconds, 0.0), signal)
        with self._lock:
            heapq.heappush(self._heap, (watch.deadline, next(self._order), watch))
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._loop, name="wflint-watchdog", daemon=True)
                self._thread.start()
            if self._heap[0][2] is watch:  # only a new earliest deadline needs the thread awake
                self._lock.notify()
        if signal is not None:
            with signal._lock:
                signal._watches.add(watch)
        return watch

    def disarm(self, watch: _Watch) -> bool:
        """Ends the watch; True when it fired (an ``Interrupted`` still pending is withdrawn)."""
        if watch.signal is not None:
            with watch.signal._lock:
                watch.signal._watches.discard(watch)
        with self._lock:
            fired = watch.state == "fired"
            if fired:
                _set_async_exc(watch.thread_id, None)
            watch.state = "done"
        return fired

    def fire(self, watch: _Watch) -> None:
        with self._lock:
            if watch.state == "armed":
                watch.state = "fired"
                _set_async_exc(watch.thread_id, Interrupted)

    def _loop(self) -> None:
        while True:
            with self._lock:
                while self._heap and self._heap[0][2].state != "armed":
                    heapq.heappop(self._heap)
                if not self._heap:
                    self._lock.wait(30.0)
                    continue
                deadline, _, watch = self._heap[0]
                delay = deadline - time.monotonic()
                if delay > 0:
                    self._lock.wait(delay)
                    continue
                heapq.heappop(self._heap)
                watch.state = "fired"
                _set_async_exc(watch.thread_id, Interrupted)


def _set_async_exc(thread_id: int, exc: type[BaseException] | None) -> None:
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id), ctypes.py_object(exc) if exc else None)


_WATCHDOG = _Watchdog()

#: the stop signal of the run being executed in this context (templates read it: they are
#: rendered deep inside the engine, far from the run that owns them)
CURRENT: ContextVar[StopSignal | None] = ContextVar("wflint_run_stop_signal", default=None)


@contextmanager
def interruptible(budget: float, signal: StopSignal | None = None, *, what: str = "the work") -> Iterator[None]:
    """Run the body for at most ``budget`` seconds, and no later than ``signal``'s deadline or
    cancel: past them it raises :class:`BudgetExceeded` or :class:`RunStopped`."""
    if signal is not None:
        signal.check()
        remaining = signal.remaining()
        if remaining is not None:
            budget = min(budget, remaining)
    try:
        watch = _WATCHDOG.arm(budget, signal)
        try:
            yield
        finally:
            _WATCHDOG.disarm(watch)
    except Interrupted:
        _WATCHDOG.disarm(watch)  # when it landed before the ``finally`` above could run
        if signal is not None:
            stopped = signal.stopped()
            if stopped is not None:
                raise stopped from None
        raise BudgetExceeded(f"wflint stopped {what} after {budget:g} s") from None
