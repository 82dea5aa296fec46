"""Where wflint lives on the web, for reports that link to it (SARIF's ``informationUri`` and
``helpUri``, the ``url`` of the json and gitlab formats, junit failures, the language server).

The repository is the one named in ``[project.urls]`` of ``pyproject.toml`` (``Repository``,
else ``Homepage``), read back from the installed package's metadata, so a fork changes one line
there and every report follows. A rule's documentation is its section of ``docs/rules.md`` in
that repository's default branch, unless the ``docs-url`` setting (``--docs-url``) names the
page that documents the rules (a team's own copy of the docs site, or of ``docs/rules.md``):
each rule then links to its section there, ``<docs-url>#wf104-unknown-field``.
"""

from __future__ import annotations

from functools import lru_cache

#: the branch whose docs/rules.md a rule's link points at
DOCS_BRANCH = "main"


@lru_cache(maxsize=1)
def repository_url() -> str | None:
    """The repository's address, or None when the package metadata names none."""
    from importlib import metadata  # on first use: it costs a third of a one-file check's start-up

    try:
        entries = metadata.metadata("wflint").get_all("Project-URL") or []
    except metadata.PackageNotFoundError:
        return None
    urls: dict[str, str] = {}
    for entry in entries:
        label, _, url = entry.partition(",")
        urls[label.strip().lower()] = url.strip()
    found = urls.get("repository") or urls.get("homepage")
    return found.rstrip("/") if found else None


def rule_anchor(code: str, name: str) -> str:
    """The Markdown heading anchor of a rule's section (``## WF104 unknown-field``)."""
    return f"{code.lower()}-{name}"


def rule_doc_url(code: str, name: str, docs_url: str | None = None) -> str | None:
    """A rule's documentation: its section of ``docs_url`` when given, else of ``docs/rules.md``
    in the repository the package metadata names; None when there is neither."""
    if docs_url:
        return f"{docs_url}#{rule_anchor(code, name)}"
    repo = repository_url()
    if repo is None:
        return None
    return f"{repo}/blob/{DOCS_BRANCH}/docs/rules.md#{rule_anchor(code, name)}"
