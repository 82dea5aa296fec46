"""``wflint simulate`` and ``wflint test``: run workflows offline through the engine simulator
(``wflint.engine``) with stub cases, read the traces, and test workflows like code.

``loading`` finds workflows and cases, ``timeline`` prints a trace for a person, ``testfile``
reads the ``*.test.yaml`` files, ``expect`` judges a trace against a case's expectations,
``suite`` runs them and measures coverage, ``reports`` writes the results in each format.
"""
