"""``wflint graph``'s command line: options parsed here, pictures made by the package."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..core.exit_status import EXIT_FINDINGS, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE


def _diff_pictures(paths, revisions, config, parameters):
    from ..diff import from_files, from_git
    from . import GraphUsageError
    from .changes import diff_pictures

    if revisions is not None:
        drawn = diff_pictures(from_git(revisions, list(paths)), config, parameters=parameters)
        if not drawn:
            raise FileNotFoundError(f"no workflow changed in {revisions}")
        return drawn
    if len(paths) != 2:
        raise GraphUsageError("--diff draws one change: give two files, OLD NEW (or --git REV[..REV])")
    return diff_pictures([from_files(paths[0], paths[1])], config, parameters=parameters)


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=str))
@click.option("--format", "fmt", type=click.Choice(["mermaid", "dot", "svg", "markdown"]), default="mermaid", show_default=True, help="Picture syntax (svg needs Graphviz's dot).")
@click.option("--out", "-o", type=click.Path(path_type=str), default=None, help="File to write, or a directory for one file per workflow (created if missing; end it with / to say so) [default: standard output].")
@click.option("--parameters", is_flag=True, help="Also draw the parameters, with an edge to every block that reads one.")
@click.option("--coverage", "show_coverage", is_flag=True, help="Run each workflow's test file (NAME.test.yaml) and draw in pink what no case exercised.")
@click.option("--diff", "show_diff", is_flag=True, help="PATHS are OLD NEW: draw NEW with what changed since OLD marked (added, removed, changed).")
@click.option("--git", "revisions", default=None, metavar="REV[..REV]", help="With --diff: draw every workflow changed between two git revisions (REV alone: against the working tree); PATHS limit them.")
def graph(paths, fmt, out, parameters, show_coverage, show_diff, revisions) -> None:
    """Draw the routing of workflows, with their problems marked on the picture."""
    from ..diff import VersionError
    from ..project.config import ConfigError, discover
    from ..report.console import write_all
    from . import GraphUsageError, GraphvizMissing, outputs, pictures, write_picture

    try:
        if not paths and revisions is None:
            raise GraphUsageError("give the workflow files (or directories) to draw")
        if revisions is not None and not show_diff:
            raise GraphUsageError("--git draws changes: give --diff with it")
        if show_diff:
            drawn = _diff_pictures(paths, revisions, discover(Path.cwd()), parameters)
        else:
            drawn = pictures(paths, discover(Path.cwd()), parameters=parameters)
        if not drawn:
            raise FileNotFoundError(f"no workflow definition found in {', '.join(paths)}")
        if show_coverage:
            from .coverage import mark

            mark(drawn)
        results = outputs(drawn, fmt, out)
        for dest, text in results:
            if dest is None:
                write_all(text, sys.stdout)
            else:
                write_picture(dest, text)
    except (ConfigError, FileNotFoundError, GraphUsageError, GraphvizMissing, OSError, VersionError) as exc:
        click.echo(f"wflint: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    except Exception as exc:  # noqa: BLE001 - the last line of defence
        click.echo(f"wflint: internal error: {type(exc).__name__}: {exc}", err=True)
        sys.exit(EXIT_INTERNAL)
    for p in drawn:
        if p.drawing is None:
            click.echo(f"wflint: {p.path}: cannot draw: {p.problem}", err=True)
    sys.exit(EXIT_FINDINGS if any(p.drawing is None for p in drawn) else EXIT_OK)
