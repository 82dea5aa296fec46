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
    from .runs import run_case
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
        results = [({"name": case.get("name"), **refusal}, [], []) if refusal
                   else run_case(loaded.request, case, network=network, url_validation=url_validation)
                   for case in cases]
    except Exception as exc:  # noqa: BLE001 - the last line of defence
        echo(f"wflint: internal error: {type(exc).__name__}: {exc}", err=True)
        return EXIT_INTERNAL
    if fmt == "json":
        echo(json_values.dumps([result for result, _, _ in results], indent=2, default=str, ensure_ascii=False))
    else:
        echo("\n".join(render_trace(result, inputs, notes) for result, inputs, notes in results), nl=False)
    return EXIT_OK


def test_command(paths: tuple[str, ...], fmt: str, keyword: str | None, coverage: bool, network: bool,
                 output_file: Path | None, echo: Callable[..., Any]) -> int:
    from . import reports
    from .suite import KeywordError, run_suite

    try:
        suite = run_suite(list(paths), keyword=keyword, network=network)
    except (LoadError, KeywordError) as exc:
        echo(f"wflint: {exc}", err=True)
        return EXIT_USAGE
    except Exception as exc:  # noqa: BLE001 - the last line of defence
        echo(f"wflint: internal error: {type(exc).__name__}: {exc}", err=True)
        return EXIT_INTERNAL
    if not suite.cases and not suite.deselected:
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
    if any(c.failures for c in suite.cases):
        return EXIT_FINDINGS
    if any(c.error and c.name == "<file>" for c in suite.cases):
        return EXIT_USAGE
    return EXIT_INTERNAL if any(c.error for c in suite.cases) else EXIT_OK
