"""The simulator's code policy against the REAL 1.0.56 engine (``pytest -m engine``; a few minutes).

Every snippet of ``code_attacks.py`` (escapes of each class the safe-runs issue names, more of
the same kind, and ordinary uses of the namespace) runs as a code block on the real engine and
on the simulator: both refuse it (``"Insecure code detected."``, with the same detail from
``is_safe_code``) or both run it with the same outputs and reasons. The golden file the default
suite reads (``tests/data/code_attacks_engine.json``) must still be the engine's answer.
"""

from __future__ import annotations

import sys

import pytest

import code_attacks

pytestmark = pytest.mark.engine


@pytest.fixture(scope="module")
def engine():
    sys.path.insert(0, str(code_attacks.ROOT / "tools" / "engine"))
    import oracle

    if not oracle.available():
        pytest.skip(oracle.why_unavailable())
    return {"answers": code_attacks.engine_answers(), "details": code_attacks.engine_details()}


def test_simulator_and_engine_answer_every_snippet_alike(engine):
    sim = code_attacks.simulator_answers()
    differ = {name: {"simulator": sim[name], "engine": engine["answers"][name]}
              for name in engine["answers"] if sim.get(name) != engine["answers"][name]}
    assert differ == {}
    refused = [name for name, a in engine["answers"].items() if a["rows"] and a["rows"][0][3] == "Insecure code detected."]
    assert len(refused) >= 45  # the corpus really attacks


def test_simulator_and_engine_refuse_with_the_same_detail(engine):
    assert code_attacks.simulator_details() == engine["details"]


def test_the_golden_file_is_still_the_engines_answer(engine):
    assert code_attacks.golden() == engine
