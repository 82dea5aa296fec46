"""``wflint graph``: a picture of a workflow's routing, with its problems drawn on it.

The steps: ``pictures`` reads files through the library API (workflow views and their
diagnostics), ``build.drawing`` turns each workflow into a drawing description, and one pure
renderer per syntax writes it (``mermaid``, ``dot``; ``svg`` runs Graphviz's ``dot`` on the DOT
text; ``markdown`` wraps Mermaid for a pull-request comment, with the problems listed below).
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from ..api import Inspection, inspect_file, iter_files
from ..project.config import Config
from ..core.diagnostics import Diagnostic
from ..report.safe_text import escape_surrogates, printable
from . import dot, mermaid
from .build import drawing as build_drawing
from .drawing import Drawing
from .svg import GraphvizMissing, to_svg

FORMATS = ("mermaid", "dot", "svg", "markdown")
SUFFIX = {"mermaid": ".mmd", "dot": ".dot", "svg": ".svg", "markdown": ".md"}

__all__ = ["FORMATS", "SUFFIX", "GraphUsageError", "GraphvizMissing", "Picture", "markdown", "outputs", "pictures", "pictures_of", "render",
           "write_picture"]


@dataclass
class Picture:
    """One workflow of one file: its drawing, or why there is none."""

    path: str
    #: the workflow's position in its file (an update body can hold two)
    index: int
    drawing: Drawing | None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    problem: str | None = None


def pictures(paths: Iterable[str], config: Config | None = None, *, parameters: bool = False) -> list[Picture]:
    """A picture per workflow in the files and directories given (directories are walked as
    ``wflint check`` walks them). Raises FileNotFoundError for a path that does not exist."""
    config = config or Config()
    out: list[Picture] = []
    for path, explicit in iter_files(paths, config):
        inspection = inspect_file(path, config, explicit=explicit)
        if inspection is not None:
            out.extend(pictures_of(inspection, parameters=parameters))
    return out


def pictures_of(inspection: Inspection, *, parameters: bool = False) -> list[Picture]:
    """A picture per workflow of one inspected file (``api.inspect_file`` or ``inspect_bytes``)."""
    if not inspection.workflows:
        errors = [x for x in inspection.diagnostics if x.severity == "error"] or inspection.diagnostics
        why = (f"{errors[0].path}:{errors[0].line}:{errors[0].column}: {errors[0].code} {errors[0].message}"
               if errors else "the file holds no workflow")
        return [Picture(inspection.path, 0, None, inspection.diagnostics, why)]
    spans = [_span(wf) for wf in inspection.workflows]
    owned: list[list[Diagnostic]] = [[] for _ in spans]
    for diag in inspection.diagnostics:
        at = (diag.line, diag.column)
        i = next((i for i, (a, b) in enumerate(spans) if a <= at < b), 0)
        owned[i].append(diag)
    out = []
    for i, (wf, diags) in enumerate(zip(inspection.workflows, owned)):
        if wf.schema_only:
            continue  # an ignored json_definition next to the yaml_definition the service uses
        out.append(Picture(inspection.path, i, build_drawing(wf, diags, parameters=parameters), diags))
    return out


def _span(wf) -> tuple[tuple[int, int], tuple[int, int]]:
    if wf.root is None:
        return (0, 0), (0, 0)
    return (wf.root.start.line, wf.root.start.col), (wf.root.end.line, wf.root.end.col)


def render(picture: Picture, fmt: str) -> str:
    """One picture in ``fmt`` (``svg`` needs Graphviz: GraphvizMissing without it)."""
    if fmt == "markdown":
        return markdown([picture])
    if picture.drawing is None:
        raise ValueError(f"{picture.path}: cannot draw: {picture.problem}")
    if fmt == "mermaid":
        return _surrogates_escaped(mermaid.render(picture.drawing))
    if fmt == "dot":
        return _surrogates_escaped(dot.render(picture.drawing))
    if fmt == "svg":
        return to_svg(_surrogates_escaped(dot.render(picture.drawing)))
    raise ValueError(f"unknown graph format {fmt!r}")


def _surrogates_escaped(text: str) -> str:
    """A lone surrogate (a ``\\ud800`` escape in a label, an undecodable file-name byte) written
    as ``check`` writes it (``\\ud800``, ``\\xff``): UTF-8 cannot hold it raw."""
    return escape_surrogates(text)


def markdown(items: list[Picture]) -> str:
    """Mermaid in fenced blocks, a heading per workflow and its problems listed below: the
    body of a pull-request comment."""
    mark = {"error": "✖", "warning": "⚠"}
    out: list[str] = []
    for p in items:
        title = p.drawing.title if p.drawing is not None else "not drawn"
        out.append(f"### {_md_code(p.path)}: {_md_text(title)}\n")
        if p.drawing is None:
            out.append(f"Cannot draw this file: {_md_text(p.problem or '')}\n")
            continue
        out.append("```mermaid\n" + mermaid.render(p.drawing) + "```\n")
        for x in p.diagnostics:
            out.append(f"- {mark.get(x.severity, 'ℹ')} {_md_code(f'{x.path}:{x.line}:{x.column}')} **{x.code}** "
                       f"{_md_text(x.message)}")
        if p.diagnostics:
            out.append("")
    return _surrogates_escaped("\n".join(out))


def _md_text(text: str) -> str:
    """Plain text for Markdown: characters that would start markup are escaped, and an
    ``@name`` gets a zero-width space after the ``@`` so it mentions nobody."""
    text = "".join("\\" + ch if ch in "\\`*_[]<>#|~" else ch for ch in " ".join(text.split()))
    return text.replace("@", "@\u200b")


def _md_code(text: str) -> str:
    """``text`` as a Markdown code span, fenced with more backticks than its longest run (a
    backtick in a file name cannot close the span and let HTML through); one line."""
    text = " ".join(printable(text).split())
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def write_picture(dest: Path, text: str) -> None:
    """Write one output file through a new file renamed into place: a symbolic link planted
    at ``dest`` is replaced, never followed (writing through it would write where it points)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    if dest.is_dir() and not dest.is_symlink():
        raise GraphUsageError(f"cannot write {dest}: it is a directory")
    umask = os.umask(0)
    os.umask(umask)
    fd, temp = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent)
    try:
        os.fchmod(fd, 0o666 & ~umask)  # as a newly created file would be
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(temp, dest)
    except BaseException:
        try:
            os.unlink(temp)
        except FileNotFoundError:
            pass
        raise


class GraphUsageError(Exception):
    """The pictures cannot go where they were asked to (exit 2)."""


def outputs(items: list[Picture], fmt: str, out: Path | str | None) -> list[tuple[Path | None, str]]:
    """(destination, text) for every output: None is standard output. Markdown gathers every
    workflow in one text; the other formats hold one workflow each, so several workflows need
    ``--out`` to name a directory (one file per workflow, named after its file). ``out`` is
    a directory when it is one, when it ends with a slash (as typed: pass the string), or when
    it does not exist yet and several files are to be written (it is then created)."""
    slash = isinstance(out, str) and out.endswith(("/", os.sep))
    out = Path(out) if out is not None else None
    if fmt == "markdown":
        if slash:
            raise GraphUsageError(f"--format markdown writes one file; {out}/ names a directory")
        return [(out, markdown(items))]
    drawn = [p for p in items if p.drawing is not None]
    if not drawn:
        return []
    to_dir = out is not None and (out.is_dir() or slash or (len(drawn) > 1 and not os.path.lexists(out)))
    if len(drawn) > 1 and not to_dir:
        raise GraphUsageError(
            f"{len(drawn)} workflows to draw, and a {fmt} file holds one: give --out DIRECTORY "
            "(one file per workflow) or use --format markdown")
    if not to_dir:
        return [(out, render(drawn[0], fmt))]
    names: set[str] = set()
    result = []
    for p in drawn:
        stem = Path(p.path).stem + (f"-{p.index}" if p.index else "")
        name, n = stem, 1
        while name in names:
            n += 1
            name = f"{stem}-{n}"
        names.add(name)
        result.append((out / (name + SUFFIX[fmt]), render(p, fmt)))
    return result
