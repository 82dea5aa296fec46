"""What a tool is given, read as wflint reads a file: a workflow as text or as a path, within
the ``file-bytes`` limit, as text, and (where asked) recognised as a workflow. What cannot be
used becomes a ``BadInput``: the server answers it as a structured error, never a crash."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..project.config import Config, ConfigError, discover
from ..project.discovery import TooLarge, read_limited, unreadable_reason
from ..document.parse import parse
from ..document.source import SourceFile, decode
from ..model.releases import UnknownRelease, check_release
from ..workflow.recognize import recognize


class BadInput(Exception):
    """Input a tool cannot use. ``kind`` names the case for a program (``not_text``,
    ``too_large``, ``not_a_workflow``, ``unreadable``, ``bad_argument``, ``config``), the
    message says what is wrong in words, ``hint`` what to do instead."""

    def __init__(self, kind: str, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.kind, self.message, self.hint = kind, message, hint


@dataclass
class Workflow:
    """A workflow to work on: its text, the name findings carry, and the configuration."""

    source: SourceFile
    shown: str
    config: Config

    @property
    def text(self) -> str:
        return self.source.text


def configuration(target_version: str | None) -> Config:
    """The project's configuration (``.wflint.toml`` or ``pyproject.toml`` found from the
    server's working directory, as ``wflint check`` finds it), with the release asked for."""
    try:
        config = discover(Path.cwd())
    except ConfigError as exc:
        raise BadInput("config", f"the project's wflint configuration is invalid: {exc}",
                       "fix the configuration file, or start the server in another directory") from None
    if target_version:
        try:
            config.target_version = check_release(target_version)
        except UnknownRelease as exc:
            raise BadInput("bad_argument", str(exc), "leave target_version out for the newest") from None
    return config


def read_workflow(text: str | None, path: str | None, target_version: str | None = None, *,
                  name: str | None = None, require_workflow: bool = True) -> Workflow:
    """The workflow given as ``text`` (named ``name``, whose suffix picks YAML or JSON) or
    read from ``path`` (relative to the server's working directory)."""
    config = configuration(target_version)
    limit = config.limits.file_bytes
    text, path = text or None, path or None  # an empty argument is one not given
    if (text is None) == (path is None):
        raise BadInput("bad_argument", "give the workflow either as 'text' or as 'path', not both or neither")
    if path is not None:
        shown = path
        try:
            data = read_limited(Path(os.path.expanduser(path)), limit)
        except TooLarge as exc:
            raise BadInput("too_large", f"{path}: {exc}", _SIZE_HINT) from None
        except OSError as exc:
            raise BadInput("unreadable", unreadable_reason(Path(path), path, exc),
                           "give an existing file (relative paths start at the server's working directory)") from None
    else:
        assert text is not None
        shown = name or ("workflow.json" if text.lstrip().startswith("{") else "workflow.yaml")
        if len(text) > limit or len(text.encode("utf-8", "surrogatepass")) > limit:
            raise BadInput("too_large", f"the text is over the 'file-bytes' limit of {limit} bytes: too large to be "
                                        "a workflow definition", _SIZE_HINT)
        data = text.encode("utf-8", "surrogatepass")
    source, problems = decode(data, shown)
    if source is None:
        why = problems[0].message if problems else "it cannot be read as text"
        raise BadInput("not_text", f"{shown}: not a text file: {why}",
                       "a workflow is a YAML or JSON text file (UTF-8)")
    if require_workflow:
        recognition = recognize(parse(source, None, config.limits).root, source.text)
        if not recognition.is_workflow:
            raise BadInput("not_a_workflow", f"{shown}: {recognition.reason}",
                           "a workflow request has 'title' and 'workflow_definition' (with 'parameters' and "
                           "'blocks'); read the resource wflint://schemas/<release>/workflow-file.schema.json")
    return Workflow(source, shown, config)


_SIZE_HINT = ("a workflow definition is far smaller; raise the limit with [limits] file-bytes in .wflint.toml if "
              "this one really is a workflow")
