"""The keys the service does not know, classified once per workflow for WF104 and WF109.

Each unknown key is one of: refused by a code block (an error of WF104's), a field of a later
release (WF104, a warning), a near miss of a field valid at that place (WF109,
an error: the service drops it and the block runs without it), or a key with no near match
(WF104, a warning: it may belong to a newer release).
"""

from __future__ import annotations

from typing import Any

from ..checks.intent import near_misses
from ..core.records import Record, assign
from ..workflow.view import Path, Workflow, modeled_objects
from .versions import field_from_later_release

CODE_BLOCK_REFUSED, LATER_RELEASE, NEAR_MISS, UNKNOWN = "refused", "later", "near", "unknown"


class UnknownKey(Record):
    def __init__(self,
                 path: Path,  # of the object holding the key
                 key: str, obj: Any, kind: str,
                 #: for NEAR_MISS: the fields it is a near miss of; for LATER_RELEASE: the release
                 detail: Any = None) -> None:
        assign(self, locals())


def unknown_keys(wf: Workflow) -> list[UnknownKey]:
    cached = wf.cache.get("unknown_keys")
    if cached is not None:
        return cached
    rel = wf.release
    out: list[UnknownKey] = []
    for path, data, obj in modeled_objects(wf):
        known = None
        is_code = rel.is_block(obj) and obj.tag == "code"
        for key in data:
            if not isinstance(key, str):
                continue
            if known is None:
                known = rel.known_keys(obj)
            if key in known:
                continue
            # 'parameters' is refused from 1.0.42 (1.0.48 too); 'error_code' from 1.0.55
            if is_code and ((key == "parameters" and rel.has_check("code_parameters_key"))
                            or (key == "error_code" and rel.has_check("code_block_forbidden_keys"))):
                out.append(UnknownKey(path, key, obj, CODE_BLOCK_REFUSED))
                continue
            later = field_from_later_release(rel, obj, key)
            if later is not None:
                out.append(UnknownKey(path, key, obj, LATER_RELEASE, later))
                continue
            close = near_misses(key, known)
            if close and not _field_elsewhere(rel, obj, key):
                out.append(UnknownKey(path, key, obj, NEAR_MISS, close))
            else:
                out.append(UnknownKey(path, key, obj, UNKNOWN, close))
    wf.cache["unknown_keys"] = out
    return out


def _field_elsewhere(rel, obj, key: str) -> bool:
    """A block key that is a field of another block type was put in the wrong block, not
    misspelt: WF104 says whose field it is."""
    return rel.is_block(obj) and any(
        tag != obj.tag and rel.BLOCK_TYPES[tag].field(key) is not None for tag in rel.BLOCK_TYPES)
