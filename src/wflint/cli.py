"""Command-line interface: a thin layer over the library API.

Exit codes: 0 no finding at or above ``--fail-level``; 1 findings; 2 usage, configuration or
unreadable-path error; 3 internal error (a short message; ``--debug`` shows the traceback).
"""

from __future__ import annotations

import atexit
import gc
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from . import __version__
from .report import color
from .report.formats import FORMATS, HUMAN_FORMATS

if TYPE_CHECKING:  # the library API (parsers, rules, validators) is imported by the commands that use it
    from .api import Report
    from .project.config import Config
    from .project.discovery import SourceLines

# The rest (configuration, reporting) is imported by the commands that use it: `--version`
# and `rule` pay for click and little else.

from .core.exit_status import EXIT_FINDINGS, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE  # noqa: F401 - the statuses, named here too


def _split(values: tuple[str, ...]) -> list[str]:
    return [part.strip() for v in values for part in v.split(",") if part.strip()]


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    # a callback, not a message built at import: the release list lives in the model package,
    # and importing it cost every command (a single-file check included) about 10 ms
    if not value or ctx.resilient_parsing:
        return
    from .model.releases import NEWEST, RELEASES

    click.echo(f"wflint {__version__} (models service releases {', '.join(RELEASES)}; default target {NEWEST})")
    ctx.exit()


def _skip_final_collections() -> None:
    """Leave the run's objects to the operating system at exit (an ``atexit`` handler of the
    one-shot commands). The interpreter's last garbage collections walk every object the model,
    the rules and the validators made, about 14 ms of a one-file check, only to free memory the
    process is about to give back. Objects outside reference cycles are still finalized as the
    modules are torn down, and the standard streams are still flushed; the command's own files
    are closed before it returns."""
    gc.freeze()


def _at_exit_skip_final_collections() -> None:
    global _EXIT_HANDLER_SET
    if not _EXIT_HANDLER_SET:
        atexit.register(_skip_final_collections)
        _EXIT_HANDLER_SET = True


_EXIT_HANDLER_SET = False


def _is_the_program() -> bool:
    """Whether the command line is the process's program (``wflint``, ``python -m wflint``:
    their ``__main__`` module calls ``wflint.entry.main``, which calls this ``main``), so that
    the process ends with the command; not when a test or a tool calls ``main`` in a process
    that goes on."""
    program = getattr(sys.modules.get("__main__"), "main", None)
    return program is main or getattr(program, "__module__", None) == "wflint.entry"


class _LazyGroup(click.Group):
    """A group whose heavier subcommands are imported on first use."""

    lazy_commands: dict = {}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy_commands})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in self.commands and name in self.lazy_commands:
            self.add_command(self.lazy_commands[name](), name)
        return super().get_command(ctx, name)


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Show the version and the service releases wflint models, and exit.")
def main() -> None:
    """wflint: lint Skyvern workflow definitions offline, and mock the service API."""


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=str))
@click.option("--format", "fmt", type=click.Choice(sorted(FORMATS)), default="full", show_default=True, help="Output format.")
@click.option("--select", multiple=True, help="Rules to run: codes, prefixes (WF2) or names; comma-separated or repeated.")
@click.option("--ignore", multiple=True, help="Rules to skip (same forms as --select).")
@click.option("--fail-level", type=click.Choice(["info", "warning", "error"]), default=None, help="Lowest severity that makes the exit status 1 [default: error].")
@click.option("--mode", type=click.Choice(["auto", "json", "yaml"]), default=None, help="How the files reach the service: as json_definition or yaml_definition (auto: by file suffix).")
@click.option("--config", "config_path", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Config file (default: nearest .wflint.toml or pyproject.toml [tool.wflint]).")
@click.option("--stdin-filename", default=None, help="Name to report for '-' (its suffix picks YAML or JSON).")
@click.option("--limit", "limits", multiple=True, metavar="NAME=N", help="Raise or lower one of the limits for hostile input (e.g. blocks=20000); repeatable. See docs/limits.md.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="Processes to use for large runs [default: one per usable CPU].")
@click.option("--debug", is_flag=True, help="Show tracebacks of internal errors.")
# -- reporting options: what is printed where (the work is done by report/ modules)
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings (2 and 3 still mean usage and internal errors).")
@click.option("--output-file", "-o", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Write the report to this file; print a one-line summary to the terminal.")
@click.option("--statistics", "show_statistics", is_flag=True, help="Print the number of findings per rule instead of the findings (JSON with --format json).")
@click.option("--quiet", "-q", is_flag=True, help="Print the findings only: no summary, no 'All checks passed', no progress.")
@click.option("--color", "color_choice", type=click.Choice(color.CHOICES), default="auto", show_default=True, help="Colour the full and concise formats (auto: on a terminal; honours NO_COLOR and FORCE_COLOR).")
# -- which files: discovery and recognition (the work is done by discovery.py and api.py)
@click.option("--show-files", is_flag=True, help="List the files checked, and why each other file met was not; no findings.")
@click.option("--verbose", "-v", is_flag=True, help="Also list on standard error the files checked and skipped, with reasons.")
@click.option("--show-settings", is_flag=True, help="Print the resolved settings (configuration file and options) and exit.")
@click.option("--respect-gitignore/--no-respect-gitignore", default=None, help="Skip files .gitignore ignores when walking [default: on].")
@click.option("--follow-links", is_flag=True, help="Follow symbolic links that lead out of a walked directory.")
@click.option("--target-version", default=None, metavar="RELEASE", help="The service release to judge by [default: the newest modelled].")
@click.option("--docs-url", default=None, metavar="URL", help="The page documenting the rules, which reports link each rule to (URL#wf104-unknown-field) [default: docs/rules.md in the repository].")
@click.option("--skip-non-workflows", is_flag=True, help="Skip named files and standard input whose content is not a workflow, as a walk does (the pre-commit hook's option).")
@click.option("--show-grouped", is_flag=True, help="Report each finding on its own: an export's output-parameter errors (WF207, WF208) are otherwise grouped under its WF012.")
def check(paths, fmt, select, ignore, fail_level, mode, config_path, stdin_filename, limits, jobs, debug, exit_zero,
          output_file, show_statistics, quiet, color_choice, show_files, verbose, show_settings, respect_gitignore,
          follow_links, target_version, docs_url, skip_non_workflows, show_grouped) -> None:
    """Check workflow files and directories ('-' reads standard input; no path means '.').

    A file named (or standard input) is checked as a workflow whatever it holds; in a walked
    directory only files whose content is a workflow are, and `--show-files` says why the
    others were left alone."""
    program = _is_the_program()
    if program:
        _at_exit_skip_final_collections()
    # the library's modules make long-lived objects, not garbage: the cycle collector, left
    # running while they are imported, rescans them a few dozen times (about 3 ms) and frees
    # nothing. When the process ends with the check of one file, it stays off: its one
    # collection after the check (which also rescans every module imported during it) would
    # free what the exit gives back a moment later.
    collecting = gc.isenabled()
    gc.disable()
    try:
        from .api import InternalError
        from .project.config import ConfigError, discover, load, settings_text, with_limits
        from .core.diagnostics import at_or_above, finalize
        from .report import progress, statistics
        from .report.safe_text import printable
    finally:
        if collecting and not (program and len(paths) == 1 and (paths[0] == "-" or os.path.isfile(paths[0]))):
            gc.enable()

    try:
        cfg = load(config_path) if config_path else discover(Path.cwd())
        given = cfg.origins  # what the command line overrides, for --show-settings
        if select:
            cfg.select, given["select"] = _split(select), "command line (--select)"
        if ignore:
            cfg.ignore = [*cfg.ignore, *_split(ignore)]
            given["ignore"] = f"{given['ignore']} + command line (--ignore)" if "ignore" in given else "command line (--ignore)"
        if fail_level:
            cfg.fail_level, given["fail-level"] = fail_level, "command line (--fail-level)"
        if mode:
            cfg.mode, given["mode"] = mode, "command line (--mode)"
        if limits:
            values = _limit_values(limits)
            cfg.limits = with_limits(cfg.limits, values, "--limit")
            given.update({f"limits.{k.replace('_', '-')}": "command line (--limit)" for k in values})
        if target_version:
            cfg.target_version, given["target-version"] = target_version, "command line (--target-version)"
        if respect_gitignore is not None:
            cfg.respect_gitignore = respect_gitignore
            given["respect-gitignore"] = "command line (--respect-gitignore)" if respect_gitignore else "command line (--no-respect-gitignore)"
        if docs_url:
            cfg.docs_url, given["docs-url"] = docs_url, "command line (--docs-url)"
        cfg.skip_non_workflows = skip_non_workflows
        cfg.validate()
    except ConfigError as exc:
        click.echo(f"wflint: {printable(str(exc))}", err=True)
        sys.exit(EXIT_USAGE)
    if show_settings:
        from .project.discovery import base_dir

        click.echo(settings_text(cfg, str(base_dir(cfg))), nl=False)
        sys.exit(EXIT_OK)
    paths = paths or (".",)
    checked_files: list[str] = []
    bar = progress.Progress(sys.stderr, enabled=progress.should_show(sys.stderr, os.environ, quiet))

    def on_file(path: str, checked: bool, done: int, total: int) -> None:
        if checked:
            checked_files.append(path)
        bar.update(done, total)

    try:
        with bar:
            report, lines = _run(paths, cfg, stdin_filename, jobs, on_file, follow_links)
    except FileNotFoundError as exc:
        click.echo(f"wflint: {printable(str(exc))}", err=True)
        sys.exit(EXIT_USAGE)
    except (InternalError, Exception) as exc:  # noqa: BLE001 - the last line of defence
        if debug:
            import traceback

            traceback.print_exc()
        click.echo(f"wflint: internal error: {printable(str(exc))}" + ("" if debug else " (run with --debug for details)"), err=True)
        sys.exit(EXIT_INTERNAL)
    diags = finalize(report.diagnostics)
    if not show_grouped:
        from .report.grouping import group

        diags = group(diags)
    if show_files or verbose:
        from .report.file_list import file_list

        click.echo(file_list(report.checked, report.reasons, report.skipped), nl=False, err=not show_files)
        if show_files:
            sys.exit(EXIT_OK)
    _emit(diags, lines, report.files_checked, checked_files, fmt, output_file, show_statistics, quiet, color_choice,
          cfg.docs_url)
    hint = None
    if diags and fmt in HUMAN_FORMATS and not (quiet or show_statistics):
        hint = _fixable_hint(diags, cfg, stdin_filename, lines)
        if hint and fmt == "full":  # after the summary line, on the same stream (as ruff's "[*] N fixable with the `--fix` option.")
            click.echo(hint, err=output_file is not None)
    if not report.checked:  # never silently green: said whatever the format (exit status as ruff: see docs/configuration.md)
        from .report.file_list import no_files_warning

        click.echo(no_files_warning(report.skipped), err=True)
    failed = any(at_or_above(d.severity, cfg.fail_level) for d in diags)
    if diags and not (quiet or show_statistics or output_file is not None) and fmt in HUMAN_FORMATS:
        # say which findings failed the run, or that those found did not: pre-commit shows the
        # output of a failing hook, and of a passing one with `verbose: true` (docs/ci.md)
        verdict = statistics.gate_summary(diags, cfg.fail_level) if failed else \
            statistics.passing_summary(diags, cfg.fail_level)
        click.echo(f"wflint: {verdict}", err=True)
        if hint and fmt == "concise":  # `concise` has no summary: the hint follows the verdict (pre-commit's hook)
            click.echo(f"wflint: {hint}", err=True)
    sys.exit(EXIT_FINDINGS if failed and not exit_zero else EXIT_OK)


def _emit(
    diags, lines, files_checked: int, checked_files: list[str],
    fmt: str, output_file: Path | None, show_statistics: bool, quiet: bool, color_choice: str,
    docs_url: str | None = None,
) -> None:
    """Print the report (or write it to ``output_file`` and print a summary line)."""
    from .report import statistics
    from .report.formats import render
    from .report.output_file import OutputFileError, write_report
    from .rules import registry

    if show_statistics:
        rows = statistics.count_by_rule(diags)
        text = statistics.render_json(rows) if fmt == "json" else statistics.render_text(rows, with_total=not quiet)
        colored = False
    else:
        colored = fmt in HUMAN_FORMATS and color.wants_color(color_choice, sys.stdout if output_file is None else None, os.environ)
        text = render(
            fmt, diags, lines, registry(),
            style=color.COLOR if colored else color.PLAIN, with_summary=not quiet,
            files=checked_files, root=os.environ.get("CI_PROJECT_DIR") or os.getcwd(), docs_url=docs_url,
        )
    if output_file is not None:
        try:
            write_report(output_file, text)
        except OutputFileError as exc:
            click.echo(f"wflint: {exc}", err=True)
            sys.exit(EXIT_USAGE)
        if not quiet:
            click.echo(f"{statistics.files_summary(diags, files_checked)} Report written to {output_file}.", err=True)
        return
    if text:
        _print_all(text)
    if fmt == "full" and not diags and not quiet and not show_statistics and files_checked:
        click.echo(statistics.files_summary(diags, files_checked), err=True)


#: the rules some fix answers: `fix.counts.ANSWERED`, spelt here so that a run without such a
#: finding does not import the fixer (tests/test_papercuts.py holds the two equal)
FIX_ANSWERS = frozenset({"WF004", "WF012", "WF013", "WF102", "WF106", "WF109", "WF202", "WF205", "WF402"})


def _fixable_hint(diags, cfg: Config, stdin_filename: str | None, lines: SourceLines) -> str | None:
    """How many findings `wflint fix` (and `--unsafe-fixes`) would fix, when some would."""
    if not any(d.code in FIX_ANSWERS for d in diags):
        return None  # the fixer (and the dataclasses it declares) is not even imported
    from .fix.counts import fixable_counts, summary
    from .project.discovery import read_limited
    from .document.source import decode

    def text_of(path: str) -> str | None:
        stdin_text = lines.text(path)
        if stdin_text is not None:
            return stdin_text
        try:
            source, _ = decode(read_limited(Path(path), cfg.limits.file_bytes), path)
        except OSError:
            return None
        return source.text if source is not None else None

    try:
        return summary(fixable_counts(diags, text_of, cfg))
    except Exception:  # noqa: BLE001 - a hint must never fail the check it follows
        return None


def _print_all(text: str) -> None:
    """The report on standard output, whole (a text stream can drop what its file did not take)."""
    from .report.console import write_all

    write_all(text, sys.stdout)


def _limit_values(specs: tuple[str, ...]) -> dict[str, int]:
    from .project.config import ConfigError

    values: dict[str, int] = {}
    for spec in _split(specs):
        name, sep, number = spec.partition("=")
        if not sep or not number.strip().isdigit():
            raise ConfigError(f"--limit takes NAME=N with N a positive integer, not {spec!r}")
        values[name.strip()] = int(number)
    return values


def _run(
    paths: tuple[str, ...], cfg: Config, stdin_filename: str | None, jobs: int | None, on_file=None,
    follow_links: bool = False,
) -> tuple[Report, SourceLines]:
    from .api import Report, check_paths, check_stdin
    from .project.discovery import SourceLines

    files = [p for p in paths if p != "-"]
    report = check_paths(files, cfg, jobs=jobs, on_file=on_file, follow_links=follow_links) if files else Report()
    lines = SourceLines()
    if "-" in paths:
        # never more than the limit and one byte: a larger input is reported, not read whole
        data = sys.stdin.buffer.read(cfg.limits.file_bytes + 1)
        name = stdin_filename or "<stdin>"
        report.add(name, check_stdin(data, name, cfg))
        if on_file is not None:
            on_file(name, name in report.checked, 1, 1)
        lines = SourceLines(name, data)
    return report, lines


@main.command()
@click.argument("code", required=False)
@click.option("--all", "show_all", is_flag=True, help="List every rule with its summary.")
@click.option("--markdown", is_flag=True, help="Print the documentation of every rule as Markdown (docs/rules.md).")
def rule(code: str | None, show_all: bool, markdown: bool) -> None:
    """Show the documentation of a rule (by code or name), or list all rules."""
    from .rules import lookup, registry

    if markdown:
        from .report.rule_docs import rules_markdown

        click.echo(rules_markdown(), nl=False)
        return
    from .report.rule_docs import plain_text

    if code is None or show_all:
        for r in registry().values():
            click.echo(f"{r.code}  {r.name:<28} {r.severity:<8} {plain_text(r.summary)}")
        return
    found = lookup(code)
    if found is None:
        click.echo(f"wflint: unknown rule {code!r} (see `wflint rule --all`)", err=True)
        sys.exit(EXIT_USAGE)
    click.echo(f"{found.code} {found.name} (default severity: {found.severity})\n")
    click.echo(plain_text(found.doc))


@main.command()
def lsp() -> None:
    """Run the language server over stdio (needs wflint's `lsp` extra)."""
    from .lsp.start import run_language_server

    run_language_server()


@main.command()
@click.option("--transport", type=click.Choice(["stdio", "streamable-http"]), default="stdio", show_default=True,
              help="stdio: the client starts the server; streamable-http: serve clients over HTTP at /mcp.")
@click.option("--host", default="127.0.0.1", show_default=True, help="The address to listen on (streamable-http).")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True, help="The port to listen on (streamable-http).")
def mcp(transport: str, host: str, port: int) -> None:
    """Run the Model Context Protocol server for AI agents (needs wflint's `mcp` extra)."""
    from .mcp.start import run_mcp_server

    run_mcp_server(transport, host, port)


@main.command()
@click.option("--output", "-o", type=click.Path(file_okay=False, path_type=Path), default=Path("schemas"), show_default=True, help="Directory to write to.")
@click.option("--check", "check_only", is_flag=True, help="Exit 1 when the files in the directory differ from what would be generated.")
@click.option("--target-version", default=None, metavar="RELEASE", help="The service release whose schemas to write [default: the configuration's target-version, else the repository's skyvern pin, else the newest modelled].")
def schema(output: Path, check_only: bool, target_version: str | None) -> None:
    """Generate the JSON Schemas from the request model."""
    from .project.config import ConfigError, discover
    from .model import schema as schema_mod
    from .model.releases import UnknownRelease, check_release

    try:
        if target_version is not None:
            target_version = check_release(target_version)
        else:  # the release `wflint check` judges by here: the configuration's, or the pinned one
            target_version = discover(Path.cwd()).validate().target_version
    except (UnknownRelease, ConfigError) as exc:
        click.echo(f"wflint: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    if check_only:
        stale = schema_mod.stale(output, target_version)
        if stale:
            click.echo(f"wflint: stale or missing schemas in {output}: {', '.join(stale)} (run `wflint schema`)", err=True)
            sys.exit(EXIT_FINDINGS)
        click.echo(f"schemas in {output} are up to date")
        return
    for path in schema_mod.write(output, target_version):
        click.echo(f"wrote {path}")


def _serve_missing(message: str) -> click.Command:
    @click.command(name="serve", context_settings={"ignore_unknown_options": True})
    @click.argument("args", nargs=-1, type=click.UNPROCESSED)
    def serve_missing(args) -> None:  # noqa: ARG001
        """Run the mock service API (needs wflint's `serve` extra)."""
        click.echo(f"wflint: the server needs extra packages ({message}); install wflint with its serve extra, "
                   "e.g. pip install './wflint[serve]' from a clone", err=True)
        sys.exit(EXIT_USAGE)

    return serve_missing


def _load_fix() -> click.Command:
    from .fix import fix

    return fix


def _load_diff() -> click.Command:
    from .diff.cli import diff

    return diff


def _load_graph() -> click.Command:
    from .graph.cli import graph

    return graph


def _load_simulate() -> click.Command:
    from .simulate.cli import simulate

    return simulate


def _load_test() -> click.Command:
    from .simulate.cli import test_command

    return test_command


def _load_record() -> click.Command:
    from .simulate.cli import record_command

    return record_command


def _load_serve() -> click.Command:
    try:
        from .server.cli import serve
    except ImportError as exc:  # the server's extra is not installed
        return _serve_missing(str(exc))
    return serve


# these commands are imported only when they run (or when help lists them): the server stack
# alone cost more than a whole single-file check, and declaring every command's options is
# work a check does not need
main.lazy_commands = {"diff": _load_diff, "fix": _load_fix, "graph": _load_graph, "serve": _load_serve, "simulate": _load_simulate,
                      "test": _load_test, "record": _load_record}
