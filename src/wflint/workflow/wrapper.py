"""Requests whose definition is not under ``workflow_definition``: the missing wrapper.

The service reads a request's definition from its top-level ``workflow_definition`` key and
from nowhere else: a request without that key is refused (422 "workflow_definition: Field
required", after the body model drops every key it does not know). Three layouts meet this,
each common in third-party documentation and hand-written files:

* **flat**: the definition's keys (``parameters``, ``blocks``, ``version`` ...) at the top,
  beside ``title``;
* **renamed**: the definition under another key (``definition:``, ``workflow:``), or a
  misspelling of it;
* **nested**: the whole request (``title`` and ``workflow_definition``) under another key.

``find`` says which layout a mapping has; ``meant`` is the request its author meant (which
wflint goes on to check, and ``wflint fix`` writes), as a ``Node`` tree whose positions stay
those of the file.
"""

from __future__ import annotations

from .. import model as M
from ..document.nodes import Node
from ..core.records import Record, assign

REQUEST_KEY = "workflow_definition"
#: what the YAML path answers when both required keys are missing, or only the wrapper
MISSING_BOTH = "title: Field required; workflow_definition: Field required"
MISSING_WRAPPER = "workflow_definition: Field required"


class Wrapper(Record):
    """A missing wrapper: its ``layout`` (flat | renamed | nested), the key that holds the
    definition or request instead (None when flat), and the request meant."""

    def __init__(self, layout: str, key: Node | None, meant: Node, has_title: bool) -> None:
        assign(self, locals())


def _definition_keys() -> frozenset[str]:
    return M.known_keys(M.DEFINITION)


def _is_definition(node: Node | None) -> bool:
    return node is not None and node.kind == "map" and "blocks" in node.keys()


def find(root: Node) -> Wrapper | None:
    """The missing wrapper of ``root`` (a mapping), or None when it is a request as sent (or
    holds no definition anywhere the service could have meant)."""
    if root.kind != "map":
        return None
    keys = root.keys()
    if REQUEST_KEY in keys or "json_definition" in keys or "yaml_definition" in keys:
        return None
    has_title = "title" in keys
    for key, value in root.pairs:
        if value.kind == "map" and REQUEST_KEY in value.keys() and not _is_definition(root):
            return Wrapper("nested", key, value, has_title)
    for key, value in root.pairs:
        if _is_definition(value) and not _is_definition(root):
            return Wrapper("renamed", key, _wrapped(root, [(key, value)], value, with_title=not has_title), has_title)
    if "blocks" in keys:
        defn_keys = _definition_keys() - M.known_keys(M.REQUEST)
        moved = [(k, v) for k, v in root.pairs if k.value in defn_keys]
        start = moved[0][0].start if moved else root.start
        definition = Node("map", start, moved[-1][1].end if moved else root.end, pairs=moved)
        return Wrapper("flat", None, _wrapped(root, moved, definition, with_title=not has_title), has_title)
    return None


def _wrapped(root: Node, taken: list, definition: Node, *, with_title: bool) -> Node:
    """``root`` with the pairs in ``taken`` replaced by one ``workflow_definition`` pair
    holding ``definition`` (where the first of them stood), and an empty title when it has
    none (so that the missing title is said once, by the wrapper's finding)."""
    taken_ids = {id(k) for k, _ in taken}
    pairs: list = []
    placed = False
    for k, v in root.pairs:
        if id(k) in taken_ids:
            if not placed:
                pairs.append((_scalar(REQUEST_KEY, k), definition))
                placed = True
            continue
        pairs.append((k, v))
    if with_title:
        pairs.insert(0, (_scalar("title", root), Node("scalar", root.start, root.start, value="", raw="")))
    return Node("map", root.start, root.end, pairs=pairs)


def _scalar(text: str, at: Node) -> Node:
    return Node("scalar", at.start, at.start, value=text, raw=text)


def message(w: Wrapper) -> str:
    """What happened, in words."""
    if w.layout == "flat":
        what = ("the definition's keys (parameters, blocks ...) are at the top of the request, not under "
                "workflow_definition")
    elif w.layout == "renamed":
        what = f"the definition is under {w.key.value!r}, not under 'workflow_definition'"  # type: ignore[union-attr]
    else:
        what = f"the whole request is nested under {w.key.value!r}, not at the top"  # type: ignore[union-attr]
    missing = "workflow_definition" if w.has_title else "title and workflow_definition"
    return (f"{what}: the service drops the keys it does not know and refuses the request ({missing}: Field "
            "required); the rest is checked as the request it would be with the wrapper")


def help_text(w: Wrapper) -> str:
    if w.layout == "flat":
        return "run `wflint fix` to move the definition's keys under workflow_definition"
    if w.layout == "renamed":
        return f"rename {w.key.value!r} to workflow_definition (`wflint fix` does)"  # type: ignore[union-attr]
    return f"lift the request out of {w.key.value!r} to the top of the file (`wflint fix` does)"  # type: ignore[union-attr]


def yaml_detail(w: Wrapper, root: Node) -> str:
    """The service's joined-string reply on the YAML path (§6.1 shape S)."""
    return MISSING_WRAPPER if "title" in root.keys() else MISSING_BOTH
