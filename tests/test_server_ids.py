"""Identifiers in the service's form (reference §10)."""

from __future__ import annotations

import re
import threading

from hypothesis import given, strategies as st

from wflint.server.protocol.ids import EPOCH, IdGenerator, derived_id, idempotent_wpid


def test_ids_look_like_the_services_and_grow():
    gen = IdGenerator(worker=5)
    ids = [gen.new("w") for _ in range(2000)]
    numbers = [int(i[2:]) for i in ids]
    assert all(re.fullmatch(r"w_\d{18}", i) for i in ids)
    assert all(n % 2 == 0 for n in numbers) and numbers == sorted(numbers) and len(set(numbers)) == 2000
    import time

    assert abs((numbers[0] >> 32) - (int(time.time()) - EPOCH)) <= 2
    assert (numbers[0] >> 11) & ((1 << 21) - 1) == 5


def test_ids_are_unique_across_threads():
    gen, out = IdGenerator(), []
    lock = threading.Lock()

    def make():
        mine = [gen.new("op") for _ in range(500)]
        with lock:
            out.extend(mine)

    threads = [threading.Thread(target=make) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(out)) == 2000


@given(st.text(min_size=1, max_size=40))
def test_derived_ids_are_stable_and_well_formed(seed):
    a = derived_id("wpid", seed)
    assert a == derived_id("wpid", seed) and re.fullmatch(r"wpid_\d{18}", a) and int(a[5:]) % 2 == 0


def test_idempotent_wpid_is_the_documented_hash():
    import hashlib

    expected = hashlib.sha256(b"create_workflow\x00o_1\x00key").hexdigest()
    assert idempotent_wpid("o_1", "key") == f"wpid_{expected}"
