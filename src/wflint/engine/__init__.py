"""The engine stage: what the service's engine does when a workflow runs (``service-runs.md``).

One place for run-time knowledge, used by the run-time rules (static: what the engine will
certainly do with any input), by ``wflint simulate`` / ``wflint test`` and by the mock's runs.
It works on the typed view (``wflint.workflow``) and on stub tables, and knows nothing of the
command line, the server or the output formats.

``semantics`` holds the engine's facts as small pure functions and constants (truthy strings,
the lone-``{{ }}`` test, loop limits, error-code syntax); the simulator builds on them, so a
correction the real engine forces lands once.
"""
