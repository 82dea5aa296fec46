"""GitLab Code Quality (a subset of the Code Climate issue format), for the merge-request
widget: ``artifacts: reports: codequality: wflint.json``.

GitLab matches findings between the base and the head of a merge request by ``fingerprint``,
so a fingerprint must not change when unrelated lines move: it hashes the path, the code, the
message and which repeat of that same finding in the file it is, never the line number.
GitLab shows ``location.path`` relative to the repository root; an absolute path under
``root`` (the CLI passes ``$CI_PROJECT_DIR`` or the working directory) is made relative to it.
The rule's documentation goes in ``content.body`` (the Code Climate field for it), as a link.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from typing import Sequence

from ...core.diagnostics import Diagnostic
from ..links import rule_doc_url
from ..safe_text import without_surrogates

#: wflint severity -> Code Quality severity (info, minor, major, critical, blocker)
SEVERITY = {"error": "major", "warning": "minor", "info": "info"}


def _repo_path(path: str, root: str | None) -> str:
    if root and os.path.isabs(path):
        rel = os.path.relpath(path, root)
        if not rel.startswith(".."):
            path = rel
    path = path.replace("\\", "/")
    return path[2:] if path.startswith("./") else path


def _fingerprint(*parts: str) -> str:
    data = "\0".join(parts).encode("utf-8", errors="surrogatepass")
    return hashlib.sha256(data).hexdigest()[:32]


def render(diags: Sequence[Diagnostic], lines=None, rules=None, *, root: str | None = None,
           docs_url: str | None = None) -> str:
    repeats: Counter[tuple[str, str, str]] = Counter()
    issues = []
    for d in diags:
        path = _repo_path(d.path, root)
        key = (path, d.code, d.message)
        nth = repeats[key]
        repeats[key] += 1
        description = f"{d.code} [{d.name}] {d.message}" + (f" ({d.help})" if d.help else "")
        issue: dict = {
            "type": "issue",
            "check_name": d.code,
            "description": without_surrogates(description),
            "categories": ["Bug Risk"],
            "severity": SEVERITY[d.severity],
            "fingerprint": _fingerprint(path, d.code, d.message, str(nth)),
            "location": {"path": without_surrogates(path), "lines": {"begin": d.line, "end": max(d.end_line, d.line)}},
        }
        url = rule_doc_url(d.code, d.name, docs_url)
        if url:
            issue["content"] = {"body": f"[{d.code} {d.name}]({url})"}
        issues.append(issue)
    return json.dumps(issues, indent=2, ensure_ascii=False) + "\n"
