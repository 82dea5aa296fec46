"""Identifiers in the service's form (reference §10): ``<prefix>_<64-bit decimal>``.

The integer packs, from high bits to low: seconds since 2022-06-20T00:00:00Z (<< 32), a
21-bit worker hash (<< 11), a 10-bit rolling sequence (<< 1) and a zero version bit. Ids are
therefore about 18 digits, even, and grow with time, like the service's.
"""

from __future__ import annotations

import hashlib
import os
import socket
import threading
import time

EPOCH = 1655683200  # 2022-06-20T00:00:00Z


class IdGenerator:
    """Thread-safe; ids made in one second by one generator differ by 2, as in the service."""

    def __init__(self, worker: int | None = None) -> None:
        if worker is None:
            seed = f"{socket.gethostname()}:{os.getpid()}:{os.urandom(8).hex()}".encode()
            worker = int.from_bytes(hashlib.sha256(seed).digest()[:4], "big")
        self._worker = worker & ((1 << 21) - 1)
        self._lock = threading.Lock()
        self._last_second = 0
        self._sequence = 0

    def _next_int(self) -> int:
        with self._lock:
            second = max(int(time.time()) - EPOCH, self._last_second)
            if second == self._last_second:
                self._sequence = (self._sequence + 1) & 0x3FF
                if self._sequence == 0:  # 1024 ids in one second: borrow the next second
                    second += 1
            else:
                self._sequence = 0
            self._last_second = second
            return (second << 32) | (self._worker << 11) | (self._sequence << 1)

    def new(self, prefix: str) -> str:
        return f"{prefix}_{self._next_int()}"


def derived_id(prefix: str, seed: str) -> str:
    """A stable id of the same shape for a seed string (seeded workflows, key organizations).

    The "seconds" field is taken from the hash within a range that keeps 18 digits, so the
    id looks like any other and never changes between runs.
    """
    h = int.from_bytes(hashlib.sha256(seed.encode("utf-8")).digest()[:16], "big")
    seconds = 100_000_000 + h % 100_000_000
    worker = (h >> 40) & ((1 << 21) - 1)
    sequence = (h >> 64) & 0x3FF
    return f"{prefix}_{(seconds << 32) | (worker << 11) | (sequence << 1)}"


def idempotent_wpid(organization_id: str, key: str) -> str:
    """§9.3: ``wpid_`` + sha256("create_workflow" NUL org NUL key), lowercase hex."""
    digest = hashlib.sha256(f"create_workflow\0{organization_id}\0{key}".encode("utf-8")).hexdigest()
    return f"wpid_{digest}"
