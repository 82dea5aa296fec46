"""Stage F, the service's v2 routing check (reference §6.7), case by case.

Each case states the service's verdict and the reason for it from the reference. The first
part drives ``wflint.graph`` directly (labels in, findings out); the second sends whole
requests through ``wflint.api.evaluate`` and checks the rule codes, the places and the
service's answer (the first rejection).
"""

from __future__ import annotations

import pytest

from wflint.workflow import routing as graph
from wflint.api import evaluate
from wflint.workflow.routing import CYCLE, DANGLING, DISCONNECTED, DUPLICATE, NO_ROOT, Edge, Scope, ScopeBlock, check_scope

NO_ROOT_TOP = (
    "Circular reference detected: every block is the target of another block's next_block_label, so there "
    "is no starting block. At least one block must not be the target of any next_block_label or branch condition."
)
CYCLE_TOP = (
    "Circular reference detected: some blocks form a loop through their next_block_label references, causing "
    "an infinite cycle. Ensure that following next_block_label from any block eventually reaches a block with "
    "next_block_label set to null."
)


def blk(label, nxt=None):
    return ScopeBlock(label, nxt)


def cond(label, *targets, merge=None):
    return ScopeBlock(label, merge, True, tuple(targets))


def kinds(findings):
    return [f.kind for f in findings]


# --------------------------------------------------------------------------- passing scopes


def test_linear_chain_passes():
    # §6.7: one root (a), the walk visits a, b, c
    assert check_scope([blk("a", "b"), blk("b", "c"), blk("c")]) == []


def test_single_block_passes():
    # one node, no edges: exactly one root, the walk visits it
    assert check_scope([blk("only")]) == []


def test_empty_scope_passes():
    # §6.7: "F is also skipped when there are no blocks"; an empty loop body passes (step 7)
    assert check_scope([]) == []


def test_branching_without_merge_point_passes():
    # a conditional's edges are its branch targets; several terminal blocks are fine, only
    # several *roots* are refused
    assert check_scope([blk("open", "c"), cond("c", "x", "y"), blk("x"), blk("y")]) == []


def test_branches_merge_at_the_conditionals_next_block_label():
    # §6.7 step 3: x and y end without next_block_label, so they continue at c's merge point m;
    # m then has incoming edges and is no second root
    blocks = [blk("open", "c"), cond("c", "x", "y", merge="m"), blk("x"), blk("y"), blk("m")]
    assert check_scope(blocks) == []
    edges = graph.edges_of(blocks)
    assert Edge("x", "m", ("merge", "c")) in edges and Edge("y", "m", ("merge", "c")) in edges
    assert Edge("c", "m", ("next",)) not in edges  # the merge point itself is not an edge of c


def test_merge_follows_the_whole_branch_chain():
    # the chain from the branch target is followed to its last block, which gets the edge
    blocks = [cond("c", "x", merge="m"), blk("x", "x2"), blk("x2"), blk("m")]
    assert check_scope(blocks) == []
    assert Edge("x2", "m", ("merge", "c")) in graph.edges_of(blocks)


def test_merge_resolution_repeats_until_stable_for_nested_conditionals():
    # the outer conditional's pass gives the inner conditional c2 a merge point (m); only the
    # next pass patches c2's branch ends a and b (the service iterates to convergence)
    blocks = [cond("c1", "c2", "y", merge="m"), cond("c2", "a", "b"), blk("a"), blk("b"), blk("y"), blk("m")]
    assert check_scope(blocks) == []
    edges = graph.edges_of(blocks)
    assert Edge("a", "m", ("merge", "c2")) in edges and Edge("b", "m", ("merge", "c2")) in edges


def test_branch_pointing_at_the_merge_point_is_an_ordinary_edge():
    # a target equal to the merge point is skipped by the merge resolution: it is the edge itself
    assert check_scope([cond("c", "m", "x", merge="m"), blk("x"), blk("m")]) == []


def test_two_branches_to_one_block_count_as_one_edge():
    # the service adds an edge once; counting it twice would leave x's in-degree at 1 after the
    # walk and look like a cycle
    assert check_scope([cond("c", "x", "x"), blk("x")]) == []


def test_empty_next_block_label_is_no_edge():
    # "" is falsy: no edge, and the merge chain stops at it without patching
    assert check_scope([blk("a", "b"), blk("b", "")]) == []


def test_finally_block_is_taken_out_before_the_check():
    # §6.7 step 1: references to the finally block become null, then the block is dropped;
    # "b → cleanup" is no edge and cleanup is no second root
    assert check_scope([blk("a", "b"), blk("b", "cleanup"), blk("cleanup")], finally_label="cleanup") == []
    assert check_scope([blk("a"), blk("cleanup")], finally_label="cleanup") == []


def test_branch_to_finally_block_is_cut():
    assert check_scope([cond("c", "cleanup", "x"), blk("x"), blk("cleanup")], finally_label="cleanup") == []


def test_nothing_left_after_finally_stripping_passes():
    # "If nothing is left, the graph passes."
    assert check_scope([blk("cleanup")], finally_label="cleanup") == []


# --------------------------------------------------------------------------- refused scopes


def test_unchained_blocks_are_disconnected():
    # no sequential defaulting in v2: a and b both have no incoming edge → two roots
    [f] = check_scope([blk("a"), blk("b")])
    assert f.kind == DISCONNECTED and f.labels == ("a", "b")
    assert f.message == graph.disconnected_message(["a", "b"], None)
    assert f.message.startswith("Disconnected blocks detected: blocks (a, b) are not reachable from any other block.")


def test_disconnected_roots_are_sorted():
    # the message lists the roots sorted, not in block order (calibration example bad_disconnected)
    [f] = check_scope([blk("a"), blk("c", "a"), blk("b", "a")])
    assert f.labels == ("b", "c") and "blocks (b, c)" in f.message


def test_conditional_whose_branches_all_end_leaves_its_merge_point_unreachable():
    # §6.7 consequences: branches pointing to null never reach m, so c and m are both roots
    [f] = check_scope([cond("c", None, None, merge="m"), blk("m")])
    assert f.kind == DISCONNECTED and f.labels == ("c", "m")


def test_two_block_circle_has_no_root():
    # every block is a target → 0 roots, the step-5 "every block is the target" message
    [f] = check_scope([blk("a", "b"), blk("b", "a")])
    assert f.kind == NO_ROOT and f.message == NO_ROOT_TOP
    assert f.labels == ("a", "b") and f.edge == Edge("b", "a", ("next",))


def test_self_loop_alone_has_no_root():
    [f] = check_scope([blk("a", "a")])
    assert f.kind == NO_ROOT and f.labels == ("a",)


def test_cycle_behind_a_root_is_found_by_the_walk():
    # one root (a), but b ↔ c keep each other's in-degree above 0: the walk visits only a
    [f] = check_scope([blk("a", "b"), blk("b", "c"), blk("c", "b")])
    assert f.kind == CYCLE and f.message == CYCLE_TOP
    assert f.labels == ("b", "c") and f.edge == Edge("c", "b", ("next",))


def test_self_loop_behind_a_root():
    [f] = check_scope([blk("a", "b"), blk("b", "b")])
    assert f.kind == CYCLE and f.labels == ("b",)


def test_retry_loop_through_a_branch_is_a_cycle():
    # §6.7 consequences: a wait pointing back at the conditional that routes to it
    blocks = [blk("open", "check"), cond("check", "done", "pause"), blk("pause", "check"), blk("done")]
    [f] = check_scope(blocks)
    assert f.kind == CYCLE and f.labels == ("check", "pause")
    assert f.edge == Edge("pause", "check", ("next",))


def test_cycle_closing_through_a_merge_point():
    # x ends, so it continues at c's merge point m; m points back at c: c → x → m → c
    blocks = [blk("open", "c"), cond("c", "x", merge="m"), blk("x"), blk("m", "c")]
    [f] = check_scope(blocks)
    assert f.kind == CYCLE and f.labels == ("c", "x", "m")
    assert Edge("x", "m", ("merge", "c")) in graph.edges_of(blocks)


def test_each_separate_cycle_is_reported():
    # the service names none; the linter names each strongly connected loop once
    blocks = [blk("a", "b"), blk("b", "a"), blk("c", "d"), blk("d", "c")]
    findings = check_scope(blocks)
    assert kinds(findings) == [NO_ROOT, NO_ROOT]
    assert [f.labels for f in findings] == [("a", "b"), ("c", "d")]


def test_dangling_next_block_label():
    [f] = check_scope([blk("a", "nowhere")])
    assert f.kind == DANGLING and f.message == "Block a references unknown next_block_label nowhere"


def test_dangling_inside_a_loop_names_the_loop():
    [f] = check_scope([blk("a", "outside")], loop="each_row")
    assert f.message == "Block a references unknown next_block_label outside inside loop each_row"


def test_dangling_branch_target():
    [f] = check_scope([cond("c", "x", "ghost"), blk("x")])
    assert f.kind == DANGLING and f.edge == Edge("c", "ghost", ("branch", 1))


def test_unknown_merge_point_is_refused_through_the_chain_end():
    # the implicit edge x → ghost is the one the service refuses, naming x (not c)
    [f] = check_scope([cond("c", "x", merge="ghost"), blk("x")])
    assert f.message == "Block x references unknown next_block_label ghost"
    assert f.edge.via == ("merge", "c")


def test_dangling_edges_stop_the_scope_before_roots():
    # step 4 raises before step 5: a → nowhere and b unchained report only the dangling edge
    assert kinds(check_scope([blk("a", "nowhere"), blk("b")])) == [DANGLING]


def test_merge_chain_stops_at_a_loop_without_patching():
    # p → q → p: the chain meets p again and stops; m gets no edge → roots c and m
    [f] = check_scope([cond("c", "p", merge="m"), blk("p", "q"), blk("q", "p"), blk("m")])
    assert f.kind == DISCONNECTED and f.labels == ("c", "m")


def test_duplicate_labels_stop_the_scope():
    # D2 refuses these first; the graph reports the duplicate and nothing else
    [f] = check_scope([blk("a"), blk("a")])
    assert f.kind == DUPLICATE and f.message == "Duplicate block label detected: a"


# --------------------------------------------------------------------------- whole definitions


def test_v1_definition_is_never_graph_checked():
    # §6.7: "F is skipped entirely when the definition's version < 2", loop bodies included
    loop = blk("l")
    scopes = [Scope(None, (blk("l"),)), Scope(loop, (blk("x", "y"), blk("y", "x")))]
    assert graph.check_definition(scopes, 1, None) == []
    [(position, f)] = graph.check_definition(scopes, 2, None)
    assert position == 1 and f.kind == NO_ROOT and "inside loop l" in f.message


def test_finally_is_stripped_only_at_the_top_level():
    # "There is no finally stripping inside loops"
    loop = blk("l", "cleanup")
    scopes = [Scope(None, (loop, blk("cleanup"))), Scope(loop, (blk("cleanup2"), blk("z")))]
    findings = graph.check_definition(scopes, 2, "cleanup")
    assert [(p, f.kind) for p, f in findings] == [(1, DISCONNECTED)]


def _request(blocks, version=None, finally_label=None, **top):
    definition = {"parameters": [], "blocks": blocks}
    if version is not None:
        definition["version"] = version
    if finally_label is not None:
        definition["finally_block_label"] = finally_label
    return {"title": "t", **top, "workflow_definition": definition}


def wait(label, nxt=None, **kw):
    return {"block_type": "wait", "label": label, "wait_sec": 1, **({"next_block_label": nxt} if nxt else {}), **kw}


def codes(ev):
    return sorted({d.code for d in ev.diagnostics if d.severity == "error"})


def first(ev):
    r = ev.rejections[0]
    return r.status, r.detail


def test_v1_blocks_run_in_list_order_and_pass():
    # no top-level conditional or next_block_label: version inferred 1, no graph check
    ev = evaluate(_request([wait("a"), wait("b")]))
    assert codes(ev) == [] and ev.workflow.version == 1


def test_explicit_version_2_with_unchained_blocks_is_disconnected():
    # R29: v2 without chaining → two roots
    ev = evaluate(_request([wait("a"), wait("b")], version=2))
    assert codes(ev) == ["WF303"]
    assert first(ev) == (422, graph.disconnected_message(["a", "b"], None))
    [d] = [d for d in ev.diagnostics if d.code == "WF303"]
    assert "'b'" in d.message and "set next_block_label: b on block 'a'" in d.help


def test_one_stray_next_block_label_makes_the_definition_v2():
    # §3.4: a top-level next_block_label infers version 2; c is then unreachable
    ev = evaluate(_request([wait("a", "b"), wait("b"), wait("c")]))
    assert ev.workflow.version == 2 and codes(ev) == ["WF303"]
    [d] = [d for d in ev.diagnostics if d.code == "WF303"]
    assert "'c'" in d.message and "which makes the definition v2" in d.message


def test_v1_loop_body_is_not_checked():
    # a v1 definition: the loop body's cycle is accepted (loop bodies are skipped too)
    body = [wait("x", "y"), wait("y", "x")]
    ev = evaluate(_request([{"block_type": "for_loop", "label": "l", "loop_variable_reference": "{{ [1] }}",
                              "loop_blocks": body}]))
    assert "WF304" not in codes(ev) and not ev.rejections


def test_v2_loop_body_is_its_own_scope():
    body = [wait("x"), wait("y")]
    loop = {"block_type": "for_loop", "label": "l", "loop_variable_reference": "{{ [1] }}", "loop_blocks": body}
    ev = evaluate(_request([loop, wait("after")], version=2))
    # top level: l and after are both roots; the loop body: x and y are both roots
    assert first(ev)[1].startswith("Disconnected blocks detected: blocks (after, l)")
    details = [r.detail for r in ev.rejections]
    assert graph.disconnected_message(["x", "y"], "l") in details


def test_nested_loop_bodies_are_checked_recursively():
    inner = {"block_type": "for_loop", "label": "inner", "loop_variable_reference": "{{ [1] }}",
             "loop_blocks": [wait("p", "q"), wait("q", "p")]}
    outer = {"block_type": "for_loop", "label": "outer", "loop_variable_reference": "{{ [1] }}", "loop_blocks": [inner]}
    ev = evaluate(_request([outer], version=2))
    assert codes(ev) == ["WF304"]
    assert "inside loop inner" in first(ev)[1]


def test_reference_across_a_loop_boundary_dangles():
    # §6.7 step 4: "a reference across them is unknown"
    loop = {"block_type": "for_loop", "label": "l", "loop_variable_reference": "{{ [1] }}",
            "loop_blocks": [wait("inner")]}
    ev = evaluate(_request([wait("a", "inner"), loop]))
    assert first(ev) == (422, "Block a references unknown next_block_label inner")
    [d] = [d for d in ev.diagnostics if d.code == "WF202"]
    assert "outside the top level" in d.message


def test_cycle_reported_at_the_reference_that_closes_it():
    blocks = [wait("open", "check"),
              {"block_type": "conditional", "label": "check", "branch_conditions": [
                  {"criteria": {"expression": "{{ ready }}"}, "next_block_label": "done"},
                  {"is_default": True, "next_block_label": "pause"}]},
              wait("pause", "check"), wait("done")]
    ev = evaluate(_request(blocks))
    assert codes(ev) == ["WF302"] and first(ev) == (422, CYCLE_TOP)
    [d] = [d for d in ev.diagnostics if d.code == "WF302"]
    assert "check → pause → check" in d.message


def test_no_start_block_names_the_circle():
    ev = evaluate(_request([wait("a", "b"), wait("b", "a")]))
    assert codes(ev) == ["WF304"] and first(ev) == (422, NO_ROOT_TOP)
    [d] = [d for d in ev.diagnostics if d.code == "WF304"]
    assert "a → b → a" in d.message


def test_all_branches_ending_explains_the_merge_point():
    blocks = [{"block_type": "conditional", "label": "c", "next_block_label": "m", "branch_conditions": [
        {"criteria": {"expression": "{{ x }}"}}, {"is_default": True}]}, wait("m")]
    ev = evaluate(_request(blocks))
    assert first(ev)[1].startswith("Disconnected blocks detected: blocks (c, m)")
    [d] = [d for d in ev.diagnostics if d.code == "WF303"]
    assert "merge point" in d.message


def test_unknown_merge_point_no_branch_reaches_is_a_warning():
    # branches end at x and y; c's merge point "ghost" is reached by their chains → refused.
    # With every branch ending (null) the service never follows a chain to it: accepted.
    reached = [{"block_type": "conditional", "label": "c", "next_block_label": "ghost", "branch_conditions": [
        {"is_default": True, "next_block_label": "x"}]}, wait("x")]
    ev = evaluate(_request(reached))
    assert first(ev) == (422, "Block x references unknown next_block_label ghost")
    unreached = [wait("a", "c"), {"block_type": "conditional", "label": "c", "next_block_label": "ghost",
                                  "branch_conditions": [{"is_default": True, "next_block_label": None}]}]
    ev = evaluate(_request(unreached))
    assert not ev.rejections
    assert [(d.code, d.severity) for d in ev.diagnostics if d.code == "WF202"] == [("WF202", "warning")]


def test_finally_block_outside_the_route_is_fine():
    ev = evaluate(_request([wait("a", "b"), wait("b"), wait("cleanup")], finally_label="cleanup"))
    assert codes(ev) == [] and not ev.rejections


def test_top_level_findings_come_before_loop_bodies():
    # stage F validates the top level first, then the loop bodies: order ("F", scope, step)
    loop = {"block_type": "for_loop", "label": "l", "loop_variable_reference": "{{ [1] }}", "next_block_label": "b",
            "loop_blocks": [wait("x", "nowhere")]}
    ev = evaluate(_request([loop, wait("b", "l")]))
    assert first(ev) == (422, NO_ROOT_TOP)
    assert "Block x references unknown next_block_label nowhere inside loop l" in [r.detail for r in ev.rejections]


@pytest.mark.parametrize("version,expected", [(None, []), (2, ["WF303"]), (99, ["WF303"])])
def test_any_version_of_2_or_more_is_v2(version, expected):
    # §3.1: "Any explicit value ≥ 2 is kept as is (e.g. 99) and treated as v2."
    assert codes(evaluate(_request([wait("a"), wait("b")], version=version))) == expected
