"""What the speed work relies on, held by tests (the figures themselves live in bench/ and
docs/speed.md: timing asserts would flake on a shared machine)."""

from __future__ import annotations

import gc
from pathlib import Path

from wflint import api
from wflint.document.nodes import Node
from wflint.workflow.view import Workflow

ROOT = Path(__file__).resolve().parents[1]
VALID = sorted((ROOT / "fixtures" / "valid").glob("*.yaml"))


def _garbage_after(check) -> list:
    """The objects only the cycle collector could free after ``check()`` runs."""
    gc.collect()
    was = gc.isenabled()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        check()
        gc.collect()
        return list(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if was:
            gc.enable()


def test_a_check_leaves_no_cycle_holding_the_tree_or_the_view():
    # the tree and the view are freed as soon as the check ends (reference counting), so
    # pausing the collector during a check keeps memory flat
    garbage = _garbage_after(lambda: [api.check_bytes(p.read_bytes(), str(p)) for p in VALID])
    held = [type(o).__name__ for o in garbage if isinstance(o, (Node, Workflow))]
    assert held == []


def test_the_collector_runs_again_after_a_check():
    assert gc.isenabled()
    api.check_bytes(VALID[0].read_bytes(), str(VALID[0]))
    assert gc.isenabled()
    gc.disable()
    try:
        api.check_bytes(VALID[0].read_bytes(), str(VALID[0]))
        assert not gc.isenabled()  # a caller that turned it off keeps it off
    finally:
        gc.enable()
