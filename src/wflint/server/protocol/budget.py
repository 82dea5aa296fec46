"""Request work off the event loop, with a time budget and no write behind an error.

Every handler's work (decoding, validation, the engine, the store) runs in a daemon thread, so
one slow request never stalls the others, ``/healthz`` included, and a thread still working
never holds up the process's exit. The event loop waits at most ``request_seconds``; after
that the request is answered 503 with ``Retry-After``.

A request answered 503 must store nothing, even if its thread finishes later. Writes
therefore *claim* the budget first (``claim_write``): a budget is either claimed by the
write, then the loop waits for that (short) write to finish and answers with its result, or
expired by the loop, then the claim fails and the write is rolled back.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
import time
from typing import Any, Callable

from .errors import Reply

RETRY_AFTER_SECONDS = 1
#: how often a request waiting for a thread slot looks again (on the event loop, never blocking it)
_SLOT_POLL_SECONDS = 0.005


class BudgetExpired(Exception):
    """Raised in a request's thread when it tries to write after the loop answered 503."""


class Budget:
    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._lock = threading.Lock()
        self._state = "running"

    def claim(self) -> bool:
        with self._lock:
            if self._state == "running":
                self._state = "writing"
            return self._state == "writing"

    @property
    def expired(self) -> bool:
        return self._state == "expired"

    def expire(self) -> bool:
        with self._lock:
            if self._state == "running":
                self._state = "expired"
            return self._state == "expired"


_CURRENT: contextvars.ContextVar[Budget | None] = contextvars.ContextVar("wflint_budget", default=None)


def claim_write() -> None:
    """Called by the store as a write begins; raises ``BudgetExpired`` if the request was
    already answered. Outside a request (seeding, tests of the store) there is no budget."""
    budget = _CURRENT.get()
    if budget is not None and not budget.claim():
        raise BudgetExpired()


def check_budget() -> None:
    """Called now and then by long loops; raises ``BudgetExpired`` once the request has been
    answered 503, so abandoned work stops instead of keeping a core busy."""
    budget = _CURRENT.get()
    if budget is not None and budget.expired:
        raise BudgetExpired()


def over_budget(seconds: float) -> Reply:
    return Reply(503, {"detail": f"The request took longer than {seconds:g} s to check and was abandoned; "
                                 "nothing was stored (the mock's 'request-seconds' limit)"},
                 headers={"Retry-After": str(RETRY_AFTER_SECONDS)})


def _settle(future: asyncio.Future, ok: bool, value: Any) -> None:
    if future.done():
        return
    if ok:
        future.set_result(value)
    else:
        future.set_exception(value)


async def run_in_thread(work: Callable[[Any], Any], seconds: float, gate: threading.Semaphore | None = None,
                        prepare: Callable[[], Any] = lambda: None,
                        threads: threading.Semaphore | None = None) -> Any:
    """``work(prepare())`` in a daemon thread, holding one of ``gate``'s slots (if given) for
    ``work`` only: the cheap door checks in ``prepare`` never queue behind heavy requests.
    The thread itself holds one of ``threads``' slots from its start to its very end (an
    abandoned thread keeps its slot until it stops), so no flood of requests starts more
    threads than that; a request waits for a slot within its budget.
    Answered 503 when the whole passes ``seconds``."""
    loop = asyncio.get_running_loop()
    budget = Budget(seconds)
    deadline = time.monotonic() + seconds
    if threads is not None:
        while not threads.acquire(blocking=False):
            if time.monotonic() >= deadline:
                budget.expire()
                raise over_budget(seconds)
            await asyncio.sleep(_SLOT_POLL_SECONDS)
    future: asyncio.Future = loop.create_future()

    def hand_over(ok: bool, value: Any) -> None:
        try:
            loop.call_soon_threadsafe(_settle, future, ok, value)
        except RuntimeError:  # the loop is gone (shut down): nobody is waiting any more
            pass

    def target() -> None:
        try:
            attempt()
        finally:
            if threads is not None:
                threads.release()

    def attempt() -> None:
        _CURRENT.set(budget)
        try:
            prepared = prepare()
        except BaseException as exc:  # noqa: BLE001 - handed to the loop, which decides
            hand_over(False, exc)
            return
        if gate is not None and not gate.acquire(timeout=max(0.0, deadline - time.monotonic())):
            return  # the loop has answered 503 by now
        try:
            result = work(prepared)
        except BaseException as exc:  # noqa: BLE001 - handed to the loop, which decides
            hand_over(False, exc)
        else:
            hand_over(True, result)
        finally:
            if gate is not None:
                gate.release()  # given back when the work is done, not when the loop stops waiting

    context = contextvars.copy_context()
    try:
        threading.Thread(target=context.run, args=(target,), daemon=True, name="wflint-request").start()
    except BaseException:
        if threads is not None:
            threads.release()
        raise
    try:
        return await asyncio.wait_for(asyncio.shield(future), max(0.0, deadline - time.monotonic()))
    except asyncio.TimeoutError:
        if budget.expire():
            raise over_budget(seconds) from None
        return await future  # the write claimed the budget first: its answer stands
