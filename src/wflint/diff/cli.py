"""``wflint diff``'s command line: options parsed here, the work done by the package."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..core.exit_status import EXIT_FINDINGS, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=str))
@click.option("--git", "revisions", default=None, metavar="REV[..REV]", help="Compare the workflows changed between two git revisions (REV alone: against the working tree); PATHS limit them.")
@click.option("--format", "fmt", type=click.Choice(["text", "markdown", "json"]), default="text", show_default=True, help="markdown: a pull-request comment within --max-chars.")
@click.option("--max-chars", type=click.IntRange(min=1000), default=65_536, show_default=True, help="The markdown's size limit (GitHub's comment limit; GitLab allows 1000000).")
@click.option("--target-version", default=None, metavar="RELEASE", help="The service release findings are judged by (default: the configuration's, else the newest modelled).")
@click.option("--exit-code", is_flag=True, help="Exit 1 when a test case beside a changed workflow takes another path or ends in another status.")
@click.option("--no-cases", is_flag=True, help="Do not run the test cases (NAME.test.yaml) on the two versions.")
@click.option("--output-file", "-o", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Write the diff to this file instead of standard output.")
def diff(paths, revisions, fmt, max_chars, target_version, exit_code, no_cases, output_file) -> None:
    """Show what changed between two versions of a workflow: OLD NEW, or --git REV[..REV] [PATHS]."""
    from ..project.config import ConfigError, discover
    from ..core.records import replace
    from ..report.console import write_all
    from . import VersionError, diff_files, diff_git, render

    try:
        config = discover(Path.cwd())
        if target_version is not None:
            from ..model.releases import RELEASES

            if target_version not in RELEASES:
                raise click.UsageError(f"unknown --target-version {target_version!r} (modelled: {', '.join(RELEASES)})")
            config = replace(config, target_version=target_version)
        if revisions is not None:
            diffs = diff_git(revisions, list(paths), config, run_cases=not no_cases)
        elif len(paths) == 2:
            diffs = diff_files(paths[0], paths[1], config, run_cases=not no_cases)
        else:
            raise click.UsageError("give two files (OLD NEW), or --git REV[..REV] [PATHS]")
        from ..model.releases import NEWEST

        text = render(diffs, fmt, config.target_version or NEWEST, limit=max_chars)
        if output_file is not None:
            output_file.write_text(text, encoding="utf-8")
        else:
            write_all(text, sys.stdout)
    except click.UsageError as exc:
        click.echo(f"wflint: {exc.format_message()}", err=True)
        sys.exit(EXIT_USAGE)
    except (ConfigError, VersionError, OSError) as exc:
        click.echo(f"wflint: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    except Exception as exc:  # noqa: BLE001 - the last line of defence
        click.echo(f"wflint: internal error: {type(exc).__name__}: {exc}", err=True)
        sys.exit(EXIT_INTERNAL)
    if exit_code and any(d.tested_path_changed for d in diffs):
        sys.exit(EXIT_FINDINGS)
    sys.exit(EXIT_OK)
