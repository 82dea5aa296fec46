"""``wflint simulate`` and ``wflint test``'s command lines: options parsed here, the work done
in ``commands``."""

from __future__ import annotations

import sys
from pathlib import Path

import click


@click.command()
@click.argument("workflow", type=click.Path(path_type=Path))
@click.argument("cases", nargs=-1, type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True, help="text: a timeline per case; json: an array of traces (service-runs.md), one per case.")
@click.option("--network/--no-network", default=True, show_default=True, help="Let unstubbed http_request blocks (and code) reach the network; off, they fail clearly.")
@click.option("--target-version", default=None, metavar="RELEASE", help="The service release whose engine to model (run semantics are those observed on 1.0.56).")
@click.option("--url-validation", is_flag=True, help="Refuse http_request hosts as a server with ENABLE_URL_VALIDATION on does (loopback, private, link-local and metadata addresses, internal names); off, as the open-source server's default.")
def simulate(workflow, cases, fmt, network, target_version, url_validation) -> None:
    """Run a workflow offline as the engine would, with CASE files stubbing the browser and LLM."""
    from .commands import simulate_command

    sys.exit(simulate_command(workflow, cases, fmt, network, target_version, click.echo,
                              url_validation=url_validation))


@click.command(name="test")
@click.argument("paths", nargs=-1, type=click.Path(path_type=str))
@click.option("--format", "fmt", type=click.Choice(["text", "json", "junit", "github"]), default="text", show_default=True, help="Output format.")
@click.option("-k", "keyword", default=None, help="Run only the cases whose name (or file) contains this text; 'not X', 'A and B', 'A or B' work as in pytest.")
@click.option("--coverage", "show_coverage", is_flag=True, help="Report which blocks and conditional branches the cases exercised.")
@click.option("--network/--no-network", default=False, show_default=True, help="Let unstubbed http_request blocks reach the network (off: hermetic tests).")
@click.option("--output-file", "-o", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Write the report to this file; print a one-line summary to the terminal.")
def test_command(paths, fmt, keyword, show_coverage, network, output_file) -> None:
    """Run the workflow test files (NAME.test.yaml beside NAME.yaml) and check their expectations."""
    from .commands import test_command as run_tests

    sys.exit(run_tests(paths or (".",), fmt, keyword, show_coverage, network, output_file, click.echo))
