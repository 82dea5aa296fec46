"""``wflint graph``'s command line: options parsed here, pictures made by the package."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..core.exit_status import EXIT_FINDINGS, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=str))
@click.option("--format", "fmt", type=click.Choice(["mermaid", "dot", "svg", "markdown"]), default="mermaid", show_default=True, help="Picture syntax (svg needs Graphviz's dot).")
@click.option("--out", "-o", type=click.Path(path_type=str), default=None, help="File to write, or a directory for one file per workflow (created if missing; end it with / to say so) [default: standard output].")
@click.option("--parameters", is_flag=True, help="Also draw the parameters, with an edge to every block that reads one.")
@click.option("--coverage", "show_coverage", is_flag=True, help="Run each workflow's test file (NAME.test.yaml) and draw in pink what no case exercised.")
def graph(paths, fmt, out, parameters, show_coverage) -> None:
    """Draw the routing of workflows, with their problems marked on the picture."""
    from ..project.config import ConfigError, discover
    from ..report.console import write_all
    from . import GraphUsageError, GraphvizMissing, outputs, pictures, write_picture

    try:
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
    except (ConfigError, FileNotFoundError, GraphUsageError, GraphvizMissing, OSError) as exc:
        click.echo(f"wflint: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    except Exception as exc:  # noqa: BLE001 - the last line of defence
        click.echo(f"wflint: internal error: {type(exc).__name__}: {exc}", err=True)
        sys.exit(EXIT_INTERNAL)
    for p in drawn:
        if p.drawing is None:
            click.echo(f"wflint: {p.path}: cannot draw: {p.problem}", err=True)
    sys.exit(EXIT_FINDINGS if any(p.drawing is None for p in drawn) else EXIT_OK)
