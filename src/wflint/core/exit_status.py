"""The exit statuses of every command, in one place.

0: nothing at or above the failing level (for ``wflint test``: every expectation held);
1: findings (a failed expectation, a picture that could not be drawn);
2: a usage, configuration or unreadable-path error (a missing extra too);
3: an internal error (a wflint bug; ``--debug`` shows the traceback).
"""

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3
