"""What ``--show-files`` and ``--verbose`` print, and the warning of a run that checked no file."""

from __future__ import annotations


def file_list(checked: list[str], reasons: dict[str, str], skipped: list[tuple[str, str]]) -> str:
    """One line per file: ``checked  path  (why it is a workflow)`` or ``skipped  path  (why not)``."""
    lines = [f"checked  {path}  ({reasons.get(path, 'a workflow')})" for path in sorted(checked)]
    lines += [f"skipped  {path}  ({reason})" for path, reason in sorted(skipped)]
    return "".join(line + "\n" for line in lines)


def no_files_warning(skipped: list[tuple[str, str]]) -> str:
    """Said on standard error, whatever the format, when a run checked no file."""
    if not skipped:
        return "wflint: warning: no workflow files found under the given paths (0 files checked)"
    return (f"wflint: warning: no workflow files found: 0 files checked, {len(skipped)} skipped "
            "(run with --show-files to see why)")
