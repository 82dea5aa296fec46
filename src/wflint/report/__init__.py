"""Stage 5, the report: diagnostics in, what the user sees out.

* ``suppressions`` applies ``# wflint: disable=...`` comments and reports stale ones (WF900);
* ``formats`` holds one pure function per output format (full, concise, json, github, sarif,
  junit, gitlab);
* ``rule_docs`` renders the rules' docstrings as ``docs/rules.md``;
* what the CLI does around a report, each a small module: ``color`` (``--color``, NO_COLOR,
  FORCE_COLOR), ``progress`` (the progress line on a terminal), ``statistics`` (summary lines
  and ``--statistics``), ``output_file`` (``--output-file``), ``links`` (the repository and rule
  documentation addresses reports link to), ``safe_text`` (text every consumer can read).
"""
