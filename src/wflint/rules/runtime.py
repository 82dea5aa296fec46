"""What the run-time rules (WF7xx) share: code blocks' Python, the Jinja trees of templates,
and positions inside code.

Each helper computes once per workflow (``wf.cache``) so that the run-time rules walk the view
once between them.
"""

from __future__ import annotations

import ast
import builtins
from functools import lru_cache
from typing import Any, Iterator

from ..checks import template_sites
from ..checks.template_analysis import environment
from ..core.diagnostics import Pos
from ..document import python_nodes
from ..workflow.view import Block, Workflow

#: names a code block has without being given them: Python's builtins and the engine's own
#: (``CodeBlock.build_safe_vars``)
CODE_BLOCK_GLOBALS = frozenset(dir(builtins)) | {
    "print", "sleep", "json", "re", "datetime", "ErrorCode", "otp", "solve_captcha", "page",
    "click_and_claim_download", "attach_authorized_file", "search_web", "open_page",
    "clear_browser_data", "publish_file", "skyvern_page",
}


def code_blocks(wf: Workflow) -> list[tuple[Block, str, "ParsedCode"]]:
    """(block, code, parsed) of every code block whose code is plain Python (no Jinja: the
    engine renders it first, so its Python is known only after rendering)."""
    cached = wf.cache.get("runtime-code")
    if cached is None:
        cached = []
        for b in wf.blocks_of("code"):
            code = b.data.get("code")
            if not isinstance(code, str) or "{{" in code or "{%" in code:
                continue
            parsed = parsed_code(code) if len(code) <= _SHARED_CODE_CHARS else _parse_code(code)
            if parsed is not None:  # None: WF404's
                cached.append((b, code, parsed))
        wf.cache["runtime-code"] = cached
    return cached


class ParsedCode:
    """A code block's Python, parsed (dedented, as the engine runs it): its tree, the tree's
    nodes in ``ast.walk`` order (``python_nodes.nodes``) and, on first use, the names it binds
    (``stored_names``). The rules only read it, so one is shared by every block with the same
    code."""

    __slots__ = ("tree", "nodes", "_stored")

    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self.nodes = python_nodes.nodes(tree)
        self._stored: frozenset[str] | None = None

    @property
    def stored_names(self) -> frozenset[str]:
        if self._stored is None:
            self._stored = frozenset(stored_names(self.nodes))
        return self._stored


def _parse_code(code: str) -> ParsedCode | None:
    try:
        return ParsedCode(ast.parse(_dedent(code)))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


#: code up to this long is parsed once per process (``parsed_code``); longer code, rare, is
#: parsed per block, so the cache holds at most a few megabytes of trees
_SHARED_CODE_CHARS = 4096


@lru_cache(maxsize=256)
def parsed_code(code: str) -> ParsedCode | None:
    """``_parse_code``, cached per string as Jinja trees are: the same code recurs across
    files (a corpus of 1,000 generated workflows holds 688 code blocks, 176 different)."""
    return _parse_code(code)


def _dedent(code: str) -> str:
    import textwrap

    return textwrap.dedent(code)


def code_pos(wf: Workflow, block: Block, code: str, line: int, col: int) -> tuple[Pos, Pos]:
    """The file span of (1-based line, 0-based column of the dedented code) in a code block."""
    lines = code.split("\n")
    dedented = _dedent(code).split("\n")
    line = min(max(line, 1), len(lines))
    start = sum(len(x) + 1 for x in lines[: line - 1])
    shift = len(lines[line - 1]) - len(dedented[line - 1]) if line - 1 < len(dedented) else 0
    offset = start + shift + col
    end = start + len(lines[line - 1])
    path = block.path + ("code",)
    return template_sites.locate_in(wf, path, code, offset), template_sites.locate_in(wf, path, code, max(offset, end))


def stored_names(walked: list[ast.AST]) -> set[str]:
    """Every name the code binds anywhere: assignments, loop and comprehension targets,
    function and class names, their arguments, imports, ``except ... as``, ``global``.
    ``walked`` lists the tree's nodes (``ParsedCode.nodes``)."""
    out: set[str] = set()
    for node in walked:
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, (ast.Store, ast.Del)):
                out.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.arg):
            out.add(node.arg)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            out.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            out.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            out.update(node.names)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            out.add(node.name)
    return out


def loaded_names(walked: list[ast.AST]) -> Iterator[ast.Name]:
    for node in walked:
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            yield node


@lru_cache(maxsize=1024)
def jinja_tree(text: str) -> Any | None:
    """The Jinja AST of a template (None when it does not parse: WF401's). Cached per string,
    as ``analyze`` is: the same template recurs across files. The rules only read the tree."""
    try:
        return environment().parse(text)
    except Exception:  # noqa: BLE001 - any parse failure is WF401's business
        return None


def loops_by_output(wf: Workflow) -> dict[str, Block]:
    """``<label>_output`` → the loop block, for every uniquely labelled loop."""
    cached = wf.cache.get("runtime-loop-outputs")
    if cached is None:
        cached = {f"{b.label}_output": b for b in wf.blocks_of("for_loop", "while_loop")
                  if b.label is not None and len(wf.labels.get(b.label, ())) == 1}
        wf.cache["runtime-loop-outputs"] = cached
    return cached


class BranchPaths:
    """Which blocks of a v2 scope with a conditional have run when another block runs.

    ``may_skip(reader, target)`` is True when some route from the scope's start reaches
    ``reader`` without passing ``target`` although ``target`` can run before it: ``target``
    sits on a branch the run may not take. Reachability avoiding one block is computed once
    per target, so a question costs a set lookup.
    """

    def __init__(self, members: list[Block], finally_label: str | None) -> None:
        from ..workflow import routing

        self.ok = False
        labels = [b.label for b in members]
        if any(label is None for label in labels) or len(set(labels)) != len(labels):
            return
        scoped = routing.strip_finally([routing.scope_block(b) for b in members], finally_label)
        self.children: dict[str, set[str]] = {s.label: set() for s in scoped}
        indegree = dict.fromkeys(self.children, 0)
        edges = [(e.source, e.target) for e in routing.edges_of(scoped)]
        # a branch without next_block_label goes on at the conditional's own (its merge point)
        edges += [(s.label, s.next) for s in scoped if s.conditional and isinstance(s.next, str)
                  and any(not isinstance(t, str) or not t for t in s.branches)]
        for source, target in edges:
            if source in self.children and target in self.children and target not in self.children[source]:
                self.children[source].add(target)
                indegree[target] += 1
        roots = [label for label, n in indegree.items() if n == 0 and label != finally_label]
        if len(roots) != 1:
            return
        self.root = roots[0]
        self.ok = True
        self._avoiding: dict[str | None, set[str]] = {}

    def _reach(self, start: str, avoid: str | None) -> set[str]:
        seen = {start} if start != avoid else set()
        todo = list(seen)
        while todo:
            for nxt in self.children.get(todo.pop(), ()):
                if nxt != avoid and nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    def may_skip(self, reader: str, target: str) -> bool:
        if not self.ok or reader == target or target not in self.children:
            return False
        if None not in self._avoiding:
            self._avoiding[None] = self._reach(self.root, None)
        if reader not in self._avoiding[None]:
            return False
        avoiding = self._avoiding.get(target)
        if avoiding is None:
            avoiding = self._avoiding[target] = self._reach(self.root, target)
        if reader not in avoiding:
            return False  # every route passes the target: it has run
        return reader in self._reach(target, None)


def branch_paths(wf: Workflow) -> dict[int, BranchPaths]:
    """id(block) → the ``BranchPaths`` of its scope, for blocks of v2 scopes holding a
    conditional (the only scopes where a block before another may not have run)."""
    cached = wf.cache.get("runtime-branch-paths")
    if cached is None:
        cached = {}
        if wf.version >= 2:
            for b in [None, *wf.blocks_of("for_loop", "while_loop")]:
                members = wf.blocks if b is None else b.children
                if not any(m.tag == "conditional" for m in members):
                    continue
                paths = BranchPaths(members, wf.finally_label if b is None else None)
                if paths.ok:
                    for m in members:
                        cached[id(m)] = paths
        wf.cache["runtime-branch-paths"] = cached
    return cached
