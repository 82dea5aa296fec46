"""Stage 5, the report: diagnostics in, what the user sees out.

* ``suppressions`` applies ``# wflint: disable=...`` comments and reports stale ones (WF900);
* ``formats`` holds one pure function per output format (full, concise, json, github, sarif);
* ``rule_docs`` renders the rules' docstrings as ``docs/rules.md``.
"""
