"""The bodies of ``wflint simulate`` and ``wflint test`` (the CLI only parses options).

Exit codes as ``wflint check``'s: 0 clean (every case ran; for ``test``, every expectation
held), 1 findings (a failed expectation), 2 usage errors (a missing or malformed file),
3 internal errors.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..core.exit_status import EXIT_FINDINGS, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE
from ..engine import json_values
from .loading import LoadError, load_cases, load_workflow


def simulate_command(workflow: Path, case_files: tuple[Path, ...], fmt: str, network: bool,
                     target_version: str | None, echo: Callable[..., Any], *, url_validation: bool = False) -> int:
    from .runs import CaseRun, run_case
    from .timeline import render_trace

    try:
        if target_version is not None:
            from ..model.releases import RELEASES, UnknownRelease, check_release

            try:
                target_version = check_release(target_version)
            except UnknownRelease:
                raise LoadError(f"unknown release {target_version!r} (modelled: {', '.join(RELEASES)})") from None
        loaded = load_workflow(workflow)
        cases: list[dict[str, Any]] = []
        for path in case_files:
            cases.extend(load_cases(path))
        if not cases:
            cases = [{"name": "defaults"}]
    except LoadError as exc:
        echo(f"wflint: {exc}", err=True)
        return EXIT_USAGE
    for diag in loaded.errors[:5]:
        echo(f"wflint: warning: {diag.path}:{diag.line}:{diag.column}: {diag.code} {diag.message}", err=True)
    refusal = loaded.refusal()
    try:
        runs = [CaseRun({"name": case.get("name"), **refusal}) if refusal
                else run_case(loaded.request, case, network=network, url_validation=url_validation)
                for case in cases]
    except Exception as exc:  # noqa: BLE001 - the last line of defence
        echo(f"wflint: internal error: {type(exc).__name__}: {exc}", err=True)
        return EXIT_INTERNAL
    if fmt == "json":
        echo(json_values.dumps([run.result for run in runs], indent=2, default=str, ensure_ascii=False))
    else:
        echo("\n".join(render_trace(run.result, run.inputs, run.unstubbed, run.missing_secrets) for run in runs), nl=False)
    return EXIT_OK


def test_command(paths: tuple[str, ...], fmt: str, keyword: str | None, coverage: bool, network: bool,
                 output_file: Path | None, echo: Callable[..., Any], *, fail_under: float | None = None,
                 changed: bool = False) -> int:
    from . import reports
    from .suite import KeywordError, run_suite

    try:
        suite = run_suite(list(paths), keyword=keyword, network=network, find_untested=coverage and not changed,
                          changed=changed)
    except (LoadError, KeywordError) as exc:
        echo(f"wflint: {exc}", err=True)
        return EXIT_USAGE
    except Exception as exc:  # noqa: BLE001 - the last line of defence
        echo(f"wflint: internal error: {type(exc).__name__}: {exc}", err=True)
        return EXIT_INTERNAL
    if not suite.cases and not suite.deselected:
        if changed:  # a commit that touches no tested workflow and no test file
            echo("wflint test: no test file for the changed files")
            return EXIT_OK
        if coverage and suite.untested:  # nothing tested yet: the coverage says how much is not
            echo(reports.text(suite, coverage=True), nl=False)
        echo("wflint: no test files found (name them NAME.test.yaml beside NAME.yaml)", err=True)
        return EXIT_USAGE
    text = reports.FORMATS[fmt](suite, coverage=coverage)
    if output_file is not None:
        try:
            output_file.parent.mkdir(parents=True, exist_ok=True)
            output_file.write_text(text, encoding="utf-8")
        except OSError as exc:
            echo(f"wflint: cannot write {output_file}: {exc.strerror or exc}", err=True)
            return EXIT_USAGE
        echo(reports.summary(suite))
    else:
        echo(text, nl=False)
    under = fail_under is not None and suite.total()["percent"] < fail_under
    if under:
        echo(f"wflint: coverage {suite.total()['percent']:g}% is under --fail-under {fail_under:g}%", err=True)
    if any(c.failures for c in suite.cases):
        return EXIT_FINDINGS
    if any(c.error and c.name == "<file>" for c in suite.cases):
        return EXIT_USAGE
    if any(c.error for c in suite.cases):
        return EXIT_INTERNAL
    return EXIT_FINDINGS if under else EXIT_OK


def record_run(run_id: str, workflow: Path, base_url: str, api_key: str | None, output: Path | None,
               case_name: str | None, force: bool, echo: Callable[..., Any]) -> int:
    """``wflint record``: read the run, write the case, replay it (exit 1 when it does not pass)."""
    import os

    from . import reports
    from .record import RecordError, case_from_run, fetch, test_file_text
    from .suite import TEST_SUFFIXES, run_suite

    try:
        loaded = load_workflow(workflow)
        target = output or workflow.with_name(workflow.name[: -len(workflow.suffix)] + TEST_SUFFIXES[0])
        if target.exists() and not force:
            raise LoadError(f"{target} exists: name another file with -o, or overwrite it with --force")
        run, timeline = fetch(base_url, run_id, api_key)
        case = case_from_run(loaded.request, run, timeline, case_name or f"recorded {run_id}")
    except (LoadError, RecordError) as exc:
        echo(f"wflint: {exc}", err=True)
        return EXIT_USAGE
    beside = target.resolve().parent == workflow.resolve().parent and \
        target.name.startswith(workflow.name[: -len(workflow.suffix)] + ".test.")
    relative = None if beside else os.path.relpath(workflow.resolve(), target.resolve().parent)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(test_file_text(relative, case), encoding="utf-8")
    except OSError as exc:
        echo(f"wflint: cannot write {target}: {exc.strerror or exc}", err=True)
        return EXIT_USAGE
    echo(f"wrote {target}: {len(case['expect'].get('path') or [])} block executions, run {case['expect'].get('status')}")
    suite = run_suite([str(target)])
    if suite.failed:
        echo(reports.text(suite), nl=False)
        echo("wflint: the recorded case does not replay as the run went (see above)", err=True)
        return EXIT_FINDINGS
    echo(f"replayed: {reports.summary(suite)}")
    return EXIT_OK
