"""Searches over a directed graph given as an adjacency mapping (node -> its successors, in
order): the walk the service's graph check makes, strongly connected components, and one
cycle per looping component. The routing graph and WF403's execution order use them; nothing
here knows what a block is. All iterative: a scope can be a chain of thousands of blocks."""

from __future__ import annotations

from collections import deque
from typing import Any, Iterable, Mapping


def reached_count(root: str, adjacency: Mapping[str, Iterable[str]], incoming: Mapping[str, int]) -> int:
    """A topological walk (Kahn) from ``root``, as the service's check makes it: the number
    of nodes it visits (fewer than all when a cycle holds some back)."""
    queue, visited, degree = deque([root]), 0, dict(incoming)
    while queue:
        node = queue.popleft()
        visited += 1
        for nxt in adjacency[node]:
            degree[nxt] -= 1
            if degree[nxt] == 0:
                queue.append(nxt)
    return visited


def cycles(adjacency: Mapping[str, Mapping[str, Any]]) -> list[tuple[tuple[str, ...], Any]]:
    """One cycle per strongly connected component that loops: the route from the
    component's first node (in mapping order) back to it, shortest first, and the edge value
    (``adjacency[a][b]``) that closes it."""
    out = []
    order = {label: i for i, label in enumerate(adjacency)}
    for component in strongly_connected(adjacency):
        start = min(component, key=order.__getitem__)
        if len(component) == 1 and start not in adjacency[start]:
            continue
        route = _shortest_return(start, set(component), adjacency)
        out.append((tuple(route), adjacency[route[-1]][start]))
    return sorted(out, key=lambda item: order[item[0][0]])


def _shortest_return(start: str, component: set[str], adjacency: Mapping[str, Iterable[str]]) -> list[str]:
    """Breadth first inside the component, from ``start`` back to it."""
    parent: dict[str, str] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for nxt in adjacency[node]:
            if nxt == start:
                route = [node]
                while route[-1] != start:
                    route.append(parent[route[-1]])
                return route[::-1]
            if nxt in component and nxt not in parent:
                parent[nxt] = node
                queue.append(nxt)
    return [start]  # unreachable for a looping component


def strongly_connected(adjacency: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components, without recursion. Each component comes after
    every component it leads to (reverse it for a topological order)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    for root in adjacency:
        if root in index:
            continue
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter(adjacency[root]))]
        while work:
            node, successors = work[-1]
            for nxt in successors:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(adjacency[nxt])))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    out.append(component)
    return out
