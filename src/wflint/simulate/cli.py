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
@click.option("--fail-under", type=click.FloatRange(0, 100), default=None, metavar="PERCENT", help="Exit 1 when the covered share of blocks and branches (workflows without tests included) is below PERCENT; implies --coverage.")
@click.option("--changed", is_flag=True, help="PATHS are changed files (as the pre-commit hook passes them): run the test files among them and the tests of the workflows among them; other files are ignored, and no test at all passes.")
def test_command(paths, fmt, keyword, show_coverage, network, output_file, fail_under, changed) -> None:
    """Run the workflow test files (NAME.test.yaml beside NAME.yaml) and check their expectations."""
    from .commands import test_command as run_tests

    sys.exit(run_tests(paths or (".",), fmt, keyword, show_coverage or fail_under is not None, network, output_file,
                       click.echo, fail_under=fail_under, changed=changed))


@click.command(name="record")
@click.argument("run_id")
@click.option("--workflow", "workflow", required=True, type=click.Path(path_type=Path), help="The workflow file the run ran (its labels are the case's).")
@click.option("--url", "base_url", required=True, envvar="WFLINT_RUN_API_URL", help="The server speaking the run API: the service (https://api.skyvern.com), a self-hosted one, or `wflint serve`'s address.")
@click.option("--api-key", envvar=["WFLINT_API_KEY", "SKYVERN_API_KEY"], default=None, help="Its API key (default: $WFLINT_API_KEY, else $SKYVERN_API_KEY).")
@click.option("--output", "-o", "output", type=click.Path(dir_okay=False, path_type=Path), default=None, help="The test file to write [default: NAME.test.yaml beside NAME.yaml].")
@click.option("--name", "case_name", default=None, help="The case's name [default: recorded RUN_ID].")
@click.option("--force", is_flag=True, help="Overwrite the test file when it exists.")
def record_command(run_id, workflow, base_url, api_key, output, case_name, force) -> None:
    """Write a test case that reproduces a real run (read through the run API), then replay it."""
    from .commands import record_run

    sys.exit(record_run(run_id, workflow, base_url, api_key, output, case_name, force, click.echo))
