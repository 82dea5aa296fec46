"""The service's YAML-path auto-sanitizer (reference §8.2), reproduced on plain data.

A definition sent as ``yaml_definition`` is rewritten before validation: invalid or duplicate
block labels and parameter keys are renamed, and references to them are re-pointed, but not
all of them (§8.3). The linter runs the same rewrite so that it judges the definition the
service will actually see, and tells the author what was renamed (WF106, WF201); the mock
server runs it to store what the service stores.
"""

from __future__ import annotations

import copy
import re
from bisect import bisect_right
from typing import Any, Callable

from ..core.patterns import lazy
from ..core.records import MutableRecord, assign, fresh

_NOT_IDENT = lazy(r"[^A-Za-z0-9_]")
_UNDERSCORES = lazy(r"_+")


#: the names the rewrite below leaves as they are (nearly all of them): checked in one match
_UNCHANGED = lazy(r"[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)*")


def sanitize_name(name: str, fallback: str) -> str:
    """``open-page`` → ``open_page``, ``1st`` → ``_1st``, ``café`` → ``caf``, ``---`` → fallback."""
    if _UNCHANGED.fullmatch(name):
        return name
    out = _UNDERSCORES.sub("_", _NOT_IDENT.sub("_", name)).strip("_")
    if out and out[0].isdigit():
        out = "_" + out
    return out or fallback


def _ref_pattern(old: str) -> re.Pattern[str]:
    # ``{{``, optional whitespace, the exact name, then anything that cannot continue an
    # identifier (or the end). ``{% if old %}`` and ``default(old)`` are deliberately missed,
    # as the service misses them.
    return re.compile(r"\{\{(\s*)" + re.escape(old) + r"(?![A-Za-z0-9_])")


def rewrite_refs(text: str, old: str, new: str) -> str:
    return _ref_pattern(old).sub(lambda m: "{{" + m.group(1) + new, text)


class Sanitized(MutableRecord):
    def __init__(self, request: dict[str, Any],
                 #: original label → new label, in the order they were met (depth-first)
                 label_map: dict[str, str] = fresh(dict), key_map: dict[str, str] = fresh(dict)) -> None:
        assign(self, locals())

    @property
    def changed(self) -> bool:
        return bool(self.label_map or self.key_map)


def _walk_blocks(blocks: Any, visit: Callable[[dict[str, Any]], None]) -> None:
    if not isinstance(blocks, list):
        return
    for block in blocks:
        if isinstance(block, dict):
            visit(block)
            _walk_blocks(block.get("loop_blocks"), visit)


def _unique_names(items: list[dict[str, Any]], field_name: str, fallback: str) -> dict[str, str]:
    seen: set[str] = set()
    renames: dict[str, str] = {}
    for item in items:
        old = item.get(field_name)
        if not isinstance(old, str):
            continue
        new = base = sanitize_name(old, fallback)
        n = 2
        while new in seen:
            new = f"{base}_{n}"
            n += 1
        seen.add(new)
        if new != old:
            item[field_name] = new
            renames[old] = new  # a later duplicate of the same original overwrites the entry
    return renames


def _named_items(definition: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The blocks (nested ones included) and the parameters of a definition."""
    blocks: list[dict[str, Any]] = []
    _walk_blocks(definition.get("blocks"), blocks.append)
    params = [p for p in definition.get("parameters") or [] if isinstance(p, dict)] if isinstance(definition.get("parameters"), list) else []
    return blocks, params


def _renames_needed(request: dict[str, Any]) -> bool:
    """Would ``sanitize`` rename a label or a key? (Computed on shallow copies: read-only.)"""
    definition = request.get("workflow_definition")
    if not isinstance(definition, dict):
        return False
    blocks, params = _named_items(definition)
    return bool(_unique_names([{"label": b.get("label")} for b in blocks], "label", "block")
                or _unique_names([{"key": p.get("key")} for p in params], "key", "parameter"))


def _map_strings(value: Any, fn: Callable[[str], str]) -> Any:
    """Apply ``fn`` to every string value at any depth (dictionary keys are left alone)."""
    if isinstance(value, str):
        return fn(value)
    if isinstance(value, list):
        return [_map_strings(v, fn) for v in value]
    if isinstance(value, dict):
        return {k: _map_strings(v, fn) for k, v in value.items()}
    return value


def sanitize(request: dict[str, Any], *, share_unchanged: bool = False, one_by_one: bool = False) -> Sanitized:
    """Return a rewritten deep copy of a top-level request, with the rename maps. With
    ``share_unchanged`` (a caller that owns ``request`` and only reads the result), a request
    the sanitizer would not change is returned itself: most are, and the copy was a tenth of
    a check. ``one_by_one`` runs the service's steps literally (slow; the tests' reference)."""
    if share_unchanged and not _renames_needed(request):
        return Sanitized(request)
    request = copy.deepcopy(request)
    definition = request.get("workflow_definition")
    if not isinstance(definition, dict):
        return Sanitized(request)
    blocks, params = _named_items(definition)

    label_map = _unique_names(blocks, "label", "block")
    key_map = _unique_names(params, "key", "parameter")
    if not label_map and not key_map:
        return Sanitized(request, label_map, key_map)

    def rewrite_blocks(fn: Callable[[str], str]) -> None:
        if isinstance(definition.get("blocks"), list):
            definition["blocks"] = _map_strings(definition["blocks"], fn)
        if isinstance(definition.get("workflow_system_prompt"), str):
            definition["workflow_system_prompt"] = fn(definition["workflow_system_prompt"])

    def rewrite_params(fn: Callable[[str], str]) -> None:
        if isinstance(definition.get("parameters"), list):
            definition["parameters"] = _map_strings(definition["parameters"], fn)

    label_steps = [pair for old, new in label_map.items() for pair in ((old + "_output", new + "_output"), (old, new))]
    key_steps = list(key_map.items())
    if one_by_one or any("{" in old or not old for old, _ in label_steps + key_steps):
        _rewrite_one_by_one(label_map, key_map, rewrite_blocks, rewrite_params)
    else:
        refs = _Steps(label_steps + key_steps)
        wholes = _Steps([(o + "_output", n + "_output") for o, n in label_map.items()] + key_steps)
        rewrite_blocks(refs.rewrite_refs)
        rewrite_params(lambda s: refs.rewrite_refs(s) if "{{" in s else wholes.whole(s))

    mapping = definition.get("error_code_mapping")
    if isinstance(mapping, dict):
        subs = [(o + "_output", n + "_output") for o, n in label_map.items()]
        subs += list(label_map.items()) + list(key_map.items())
        rewrite = _all_at_once(subs)
        definition["error_code_mapping"] = {
            rewrite(k) if isinstance(k, str) else k: rewrite(v) if isinstance(v, str) else v
            for k, v in mapping.items()
        }

    def fix_block_refs(block: dict[str, Any]) -> None:
        keys = block.get("parameter_keys")
        if isinstance(keys, list):
            block["parameter_keys"] = [key_map.get(k, k) if isinstance(k, str) else k for k in keys]
        nxt = block.get("next_block_label")
        if isinstance(nxt, str) and nxt in label_map:
            block["next_block_label"] = label_map[nxt]

    _walk_blocks(definition.get("blocks"), fix_block_refs)
    fin = definition.get("finally_block_label")
    if isinstance(fin, str) and fin in label_map:
        definition["finally_block_label"] = label_map[fin]
    return Sanitized(request, label_map, key_map)


def _rewrite_one_by_one(label_map, key_map, rewrite_blocks, rewrite_params) -> None:
    """The service's steps literally, one pass over the text per rename: only for empty names
    and names that hold a ``{`` (where one reference can overlap the next ``{{``, so
    ``_Steps``, which follows each ``{{`` on its own, does not apply)."""
    for old, new in label_map.items():
        def refs(s: str, old: str = old, new: str = new) -> str:
            return rewrite_refs(rewrite_refs(s, old + "_output", new + "_output"), old, new)

        rewrite_blocks(refs)
        rewrite_params(lambda s, refs=refs, o=old + "_output", n=new + "_output": n if s == o else refs(s))

    for old, new in key_map.items():
        rewrite_blocks(lambda s, o=old, n=new: rewrite_refs(s, o, n))
        rewrite_params(lambda s, o=old, n=new: n if s == o else rewrite_refs(s, o, n))


_IDENT_CHAR = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_OPEN = lazy(r"\{\{\s*")


class _Steps:
    """An ordered list of (old, new) renames applied one after another, as the service applies
    them (a later step may rename the result of an earlier one), in time linear in the text.

    The service rewrites the whole text once per rename (O(renames x text): 2,000 renamed
    labels in a 365 KB file took 84 s). A rename only ever changes the name right after one
    ``{{`` (non-empty names without ``{`` cannot reach another one), so each ``{{`` is followed through
    the steps on its own: the next step that applies there is the first one, after the last
    applied, whose old name is a prefix of what follows, found by one dictionary lookup per
    distinct name length.
    """

    def __init__(self, pairs: list[tuple[str, str]]) -> None:
        self.pairs = pairs
        self.steps: dict[str, list[int]] = {}
        for i, (old, _) in enumerate(pairs):
            self.steps.setdefault(old, []).append(i)
        self.lengths = sorted({len(old) for old, _ in pairs})

    def _next(self, name: str, after: int) -> int | None:
        steps = self.steps.get(name)
        if not steps:
            return None
        j = bisect_right(steps, after)
        return steps[j] if j < len(steps) else None

    def whole(self, text: str) -> str:
        """A value that *is* a name (a parameter's ``key`` or a ``parameter_keys`` entry)."""
        done = -1
        while True:
            i = self._next(text, done)
            if i is None:
                return text
            text, done = self.pairs[i][1], i

    def rewrite_refs(self, text: str) -> str:
        """Every ``{{ old`` (not followed by an identifier character) renamed, step by step."""
        if "{{" not in text:
            return text
        out: list[str] = []
        copied = 0
        i = text.find("{{")
        while i >= 0:
            start = _OPEN.match(text, i).end()
            head, rest = "", start  # what follows the "{{": head + text[rest:]
            done = -1
            while True:
                best = None
                for length in self.lengths:
                    if length <= len(head):
                        name, after = head[:length], head[length : length + 1] or text[rest : rest + 1]
                    else:
                        name = head + text[rest : rest + length - len(head)]
                        if len(name) < length:
                            break
                        after = text[rest + length - len(head) : rest + length - len(head) + 1]
                    if after and after in _IDENT_CHAR:
                        continue
                    step = self._next(name, done)
                    if step is not None and (best is None or step < best[0]):
                        best = (step, length)
                if best is None:
                    break
                done, length = best
                new = self.pairs[done][1]
                if length <= len(head):
                    head = new + head[length:]
                else:
                    rest += length - len(head)
                    head = new
            if done >= 0:
                out.append(text[copied:start])
                out.append(head)
                copied = rest
            i = text.find("{{", i + 1)
        if not out:
            return text
        out.append(text[copied:])
        return "".join(out)


def _all_at_once(subs: list[tuple[str, str]]) -> Callable[[str], str]:
    """All substitutions in one pass, so a result is never substituted again (§8.2 step 6);
    the pattern is built once for every value of the mapping."""
    if not subs:
        return lambda text: text
    table = dict(subs)
    names = sorted(table, key=len, reverse=True)
    pattern = re.compile(r"\{\{(\s*)(" + "|".join(re.escape(n) for n in names) + r")(?![A-Za-z0-9_])")
    return lambda text: pattern.sub(lambda m: "{{" + m.group(1) + table[m.group(2)], text)
