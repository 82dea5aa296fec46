"""Every string the service renders as a Jinja template, parsed once, with what it reads.

The fields come from the model (``Field.templated``: "text" strings, the string "leaves" of an
object, the "values" of a string map); ``sites(wf)`` walks them over every modeled object of a
request, ``workflow_system_prompt`` and branch criteria included. A ``code`` block's ``code`` is
a template too, after the service's masking of Jinja inside Python ``#`` comments.

``analyze(text)`` (``template_analysis``) parses a string as the service does and says what it
reads; ``locate`` turns an offset in a string into a file position (``string_offsets.value_offsets``).
"""

from __future__ import annotations

import json
import re
from typing import Any

from .. import model
from ..model.release_view import per_model
from ..core.diagnostics import Pos
from ..workflow.view import Block, Path, Workflow, modeled_objects
from .template_analysis import (  # noqa: F401 - the public API of templates
    JINJA_GLOBALS, NO_JINJA, Analysis, Read, SyntaxProblem, analyze, has_jinja, mask_python_comments,
)


# --------------------------------------------------------------------------- where templates are


class Site:
    """One templated string of a request.

    ``path`` is where it is (from the request root), ``value`` the string the service holds
    (after the YAML sanitizer), ``text`` what is parsed (``value``, or for ``code`` the value
    with comments masked: same length, so offsets are shared). ``field`` is the templated
    field on its object (``payload`` for every leaf of a payload), ``block`` the block it
    belongs to (None for workflow-level fields), ``loop_scope`` whether ``current_item`` and
    friends exist when it renders, ``analysis`` what the text reads and where its tags are
    (``analyze`` within the ``template-depth`` limit): every site is read by some rule.

    A plain class rather than a frozen dataclass: a file makes about sixty of them, and a
    frozen dataclass's ``__init__`` cost four times as much. Nothing changes a site once made.
    """

    __slots__ = ("path", "value", "text", "field", "block", "kind", "loop_scope", "analysis")

    def __init__(self, path: Path, value: str, text: str, field: str, block: Block | None, kind: str,
                 loop_scope: bool, analysis: Analysis = NO_JINJA) -> None:
        self.path, self.value, self.text, self.field = path, value, text, field
        self.block, self.kind, self.loop_scope, self.analysis = block, kind, loop_scope, analysis

    def __repr__(self) -> str:
        return f"Site({self.path!r}, {self.value!r}, kind={self.kind!r})"


def _strings(value: Any, path: Path, kind: str):
    """(path, string) for the strings a field of templated ``kind`` holds."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, list):
        if kind in ("text", "leaves"):  # text lists: recipients, cc, file_attachments ...
            for i, item in enumerate(value):
                if kind == "leaves" or isinstance(item, str):
                    yield from _strings(item, path + (i,), kind)
    elif isinstance(value, dict):
        for k, item in value.items():
            if kind == "leaves":
                yield from _strings(item, path + (k,), kind)
            elif kind == "values" and isinstance(item, str):
                yield path + (k,), item


def sites(wf: Workflow) -> list[Site]:
    """Every templated string of the request, in document order of objects (cached)."""
    cached = wf.cache.get("template_sites")
    if cached is not None:
        return cached
    by_path = {b.path: b for b in wf.all_blocks}
    any_loop_body = any(b.parent is not None for b in wf.all_blocks)
    depth = wf.limits.template_depth
    release = wf.release
    out: list[Site] = []
    append = out.append
    for path, data, obj in objects(wf):
        block = _UNSEEN
        scope = False
        for name, templated in _templated_fields(release, obj):
            value = data.get(name, _UNSEEN)
            if value is _UNSEEN:
                continue
            if block is _UNSEEN:
                block = _owner(by_path, path)
                scope = _loop_scope(block, path, any_loop_body)
            is_code = name == "code" and block is not None and block.tag == "code" and path == block.path
            if value.__class__ is str and not is_code:
                # the common case, a plain string field: what ``_strings`` gives for it
                append(Site(path + (name,), value, value, name, block, templated, scope, analyze(value, depth)))
                continue
            for where, item in _strings(value, path + (name,), templated):
                text = mask_python_comments(item) if is_code else item
                append(Site(where, item, text, name, block, "code" if is_code else templated, scope,
                            analyze(text, depth)))
    wf.cache["template_sites"] = out
    return out


_UNSEEN: Any = object()


@per_model
def _templated_fields(release: Any, obj: Any) -> tuple[tuple[str, str], ...]:
    """The templated fields of a model, as (name, kind)."""
    return tuple((f.name, f.templated) for f in obj.fields if f.templated)


def objects(wf: Workflow) -> list[tuple[Path, dict[str, Any], Any]]:
    """``view.modeled_objects(wf)``, computed once per workflow."""
    cached = wf.cache.get("modeled_objects")
    if cached is None:
        cached = wf.cache["modeled_objects"] = modeled_objects(wf)
    return cached


def _owner(by_path: dict[Path, Block], path: Path) -> Block | None:
    for k in range(len(path), 1, -1):
        b = by_path.get(path[:k])
        if b is not None:
            return b
    return None


def _loop_scope(block: Block | None, path: Path, any_loop_body: bool) -> bool:
    if block is None:
        # the system prompt is rendered for every block, loop bodies included
        return any_loop_body
    if block.parent is not None:
        return True
    # a while loop's condition is evaluated per iteration (a for loop's source is not)
    return block.tag == "while_loop" and path[len(block.path):][:1] == ("condition",)


def reads(wf: Workflow) -> list[tuple[Site, Read]]:
    """Every (site, read) of the request: the variables its templates take from the context."""
    return [(s, r) for s in sites(wf) for r in s.analysis.reads]


def read_names(wf: Workflow) -> set[str]:
    """Every name any template reads. A template that does not parse still counts its
    ``{{ name }}``-looking words, so a typo elsewhere does not make a parameter look unused."""
    used: set[str] = set()
    for s in sites(wf):
        a = s.analysis
        if a.error is None:
            used.update(r.name for r in a.reads)
        else:
            for m in re.finditer(r"\{[{%](.*?)(?:[}%]\}|$)", s.text, re.S):
                used.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", m.group(1)))
    return used


def defined_names(wf: Workflow) -> frozenset[str]:
    """Names defined for every template of the workflow (loop variables aside, §7.2)."""
    cached = wf.cache.get("template_defined")
    if cached is None:
        cached = frozenset(wf.param_keys) | frozenset(wf.labels) | frozenset(wf.output_keys) \
            | frozenset(model.RUNTIME_VARIABLES) | JINJA_GLOBALS
        wf.cache["template_defined"] = cached
    return cached


# --------------------------------------------------------------------------- positions


def locate(wf: Workflow, site: Site, offset: int) -> Pos:
    """The file position of character ``offset`` of the site's string."""
    return locate_in(wf, site.path, site.value, offset)


def locate_in(wf: Workflow, path: Path, value: str, offset: int) -> Pos:
    """The file position of character ``offset`` of the string ``value`` at ``path``; the
    string's start when there is no source text (plain data) or the text in the file differs
    from what the service holds (a YAML-path rename changed its length)."""
    node = wf.node(path)
    if node is None:
        return Pos(1, 1, 0)
    if wf.source is None or not node.is_str() or len(node.value) != len(value):
        return node.start
    key = ("value_offsets", id(node))
    table = wf.cache.get(key)
    if table is None:
        from ..document.string_offsets import value_offsets

        table = value_offsets(wf.source, node)
        wf.cache[key] = table
    return wf.source.pos(table[min(max(offset, 0), len(table) - 1)])


def span(wf: Workflow, site: Site, start: int, end: int) -> tuple[Pos, Pos]:
    return locate(wf, site, start), locate(wf, site, max(start, end))


def describe_site(site: Site) -> str:
    """"'navigation_goal' of task block 'open'", "the workflow_system_prompt" ..."""
    field = _field_path(site)
    if site.block is None:
        return f"'{field}'" if field != "workflow_system_prompt" else "the workflow_system_prompt"
    b = site.block
    name = f"{b.tag or 'block'} block '{b.label}'" if b.label is not None else f"{b.tag or 'block'} block"
    return f"'{field}' of {name}"


def dotted_path(parts) -> str:
    """A path as the service writes it in G4 messages: ``.key`` for identifier keys,
    ``["key"]`` (JSON-quoted) for other keys, ``[i]`` for list items."""
    out = ""
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        elif isinstance(p, str) and p.isidentifier():
            out += f".{p}" if out else p
        else:
            out += f"[{json.dumps(str(p))}]"
    return out


def _field_path(site: Site) -> str:
    base = site.block.path if site.block is not None else site.path[: site.path.index(site.field)]
    return dotted_path(site.path[len(base):]) or site.field
