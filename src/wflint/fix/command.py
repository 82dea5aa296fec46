"""The ``wflint fix`` command: fix workflow files in place, or show or check what would change.

Each file is read with its encoding (and byte order mark) kept, fixed by ``fix_text`` and
written back the same way; with ``--diff`` a unified diff is printed instead and with
``--check`` nothing is written. Files found in a directory are only fixed when they contain
``workflow_definition``, ``json_definition`` or ``yaml_definition``. Changes go to standard output (standard error with ``--diff``), notes,
errors and the summary to standard error.

Exit status: 0 done (or nothing to do), 1 with --check when a file would change, 2 an
unreadable path or a file that does not parse, 3 an internal error (nothing written).

Files are replaced atomically (``atomic.replace_file``): a full disk, a file-size limit or an
edit made while ``fix`` ran leaves the original byte for byte, reported, exit 2.
"""

from __future__ import annotations

import difflib
import sys
from pathlib import Path

import click

from ..document.source import decode
from .atomic import replace_file
from .results import FixError, FixInternalError

EXIT_OK, EXIT_CHANGES, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3


def _targets(paths: tuple[str, ...], errors: list[str]) -> list[tuple[Path, bool]]:
    """The files to fix: the same walk as ``wflint check`` (regular files, .gitignore,
    hidden directories skipped); entries that cannot be read are errors."""
    from ..project.config import Config
    from ..project.discovery import discover

    out: list[tuple[Path, bool]] = []
    for p in paths:
        try:
            found = discover([p], Config())
        except FileNotFoundError as exc:
            errors.append(str(exc))
            continue
        out.extend((c.path, c.explicit) for c in found.candidates)
        errors.extend(problem.message for problem in found.problems)
    return out


def _encode(text: str, source) -> bytes:
    """The fixed text in the file's own encoding, with its byte order mark if it had one."""
    import codecs

    encoded = text.encode(source.encoding)
    if source.bom:
        encoded = {"utf-8": codecs.BOM_UTF8, "utf-16-le": codecs.BOM_UTF16_LE,
                   "utf-16-be": codecs.BOM_UTF16_BE, "utf-32-le": codecs.BOM_UTF32_LE,
                   "utf-32-be": codecs.BOM_UTF32_BE}.get(source.encoding, b"") + encoded
    return encoded


def unified_diff(old: str, new: str, path: str) -> str:
    """What ``--diff`` prints for one file (and the MCP server's ``fix`` returns)."""
    lines = []
    a, b = (path, path) if Path(path).is_absolute() else (f"a/{path}", f"b/{path}")
    for line in difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                     fromfile=a, tofile=b):
        if not line.endswith(("\n", "\r")):
            line += "\n\\ No newline at end of file\n"
        lines.append(line)
    return "".join(lines)


@click.command("fix")
@click.argument("paths", nargs=-1, type=click.Path(path_type=str))
@click.option("--diff", "show_diff", is_flag=True, help="Print a unified diff instead of writing the files.")
@click.option("--check", "check_only", is_flag=True, help="Write nothing; exit 1 when a file would change.")
@click.option("--unsafe-fixes", "unsafe", is_flag=True,
              help="Also rename misspelt keys, label references, parameter keys and template variables to "
                   "their one near match (changes what the service stores; review with --diff).")
def fix(paths: tuple[str, ...], show_diff: bool, check_only: bool, unsafe: bool) -> None:
    """Apply safe fixes (WF013 wrapping, WF012 stored form to request, WF106 renames, WF004
    quoting) to workflow files, keeping comments and formatting (no path means '.').

    Exit status: 0 done (or nothing to do), 1 with --check when a file would change, 2 an
    unreadable path or a file that does not parse, 3 an internal error (nothing written).
    """
    from ..api import MAX_FILE_BYTES

    from . import fix_text  # the package's entry point (its __init__ imports this module)

    paths = paths or (".",)  # as `wflint check`: no path means the current directory
    errors: list[str] = []
    internal = False
    would_change = 0
    total = 0
    for file, explicit in _targets(paths, errors):
        shown = str(file)
        try:
            if file.stat().st_size > MAX_FILE_BYTES:
                errors.append(f"{shown}: file is too large to be a workflow definition")
                continue
            data = file.read_bytes()
        except OSError as exc:
            errors.append(f"cannot read {shown}: {exc.strerror or exc}")
            continue
        if not explicit and not any(k in data for k in (b"workflow_definition", b"json_definition", b"yaml_definition")):
            continue
        source, diags = decode(data, shown)
        if source is None:
            errors.append(f"{shown}: {diags[0].message if diags else 'cannot be read as text'}")
            continue
        try:
            result = fix_text(source.text, shown, unsafe)
        except FixError as exc:
            errors.append(f"{shown}: {exc}")
            continue
        except FixInternalError as exc:
            click.echo(f"wflint: internal error while fixing {shown}: {exc}; the file was left unchanged", err=True)
            internal = True
            continue
        for note in result.notes:
            click.echo(f"{shown}: note: {note}", err=True)
        if not result.changed:
            continue
        if not show_diff and not check_only:
            try:
                replace_file(file, _encode(result.text, source), data)
            except OSError as exc:
                # The original is intact (atomic replace), so the file is not counted as changed.
                errors.append(f"cannot write {shown}: {exc.strerror or exc}; the file was left unchanged")
                continue
        would_change += 1
        total += len(result.changes)
        if show_diff:
            click.echo(unified_diff(source.text, result.text, shown), nl=False)
            for change in result.changes:
                click.echo(f"{shown}: {change}", err=True)
        else:
            for change in result.changes:
                click.echo(f"{shown}: {'would fix ' if check_only else ''}{change}")
    for message in errors:
        click.echo(f"wflint: {message}", err=True)
    if would_change:
        verb = "would be changed" if (check_only or show_diff) else "changed"
        click.echo(f"{total} fix{'es' if total != 1 else ''} in {would_change} file{'s' if would_change != 1 else ''} "
                   f"({verb}).", err=True)
    elif not errors and not internal:
        click.echo("Nothing to fix.", err=True)
    if internal:
        sys.exit(EXIT_INTERNAL)
    if errors:
        sys.exit(EXIT_USAGE)
    if check_only and would_change:
        sys.exit(EXIT_CHANGES)
    sys.exit(EXIT_OK)
