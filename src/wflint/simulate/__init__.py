"""``wflint simulate``, ``wflint test`` and ``wflint record``: run workflows offline through the
engine simulator (``wflint.engine``) with stub cases, read the traces, and test workflows like code.

``loading`` finds workflows and case files, ``testfile`` reads test and case files strictly (the
document stage's limits, the test-file schema of ``model.test_file``, the workflow's names),
``runs`` runs one case, ``timeline`` prints a trace for a person, ``expect`` judges a run against
a case's expectations, ``suite`` finds and runs the test files (``--changed`` for the hook),
``coverage`` and ``untested`` measure what the cases exercised, ``reports`` writes the results in
each format, and ``record`` writes a case from a real run read through the run API.
"""
