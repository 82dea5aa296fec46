"""A file or directory met by the run cannot be read.

**What it checks.** While walking a directory (or reading a file named on the command line),
wflint meets an entry it cannot read: a symbolic link whose target does not exist (an
editor's ``.#flow.yaml`` lock file, a link left behind by a move), a file or directory without
read permission, an entry that vanished between listing and reading, or a file larger than
the size limit (20 MB; a definition is a few KB).

**Why.** A run that silently skips a file it was meant to check passes when it should not.
wflint reports the entry as an error of its own and goes on with the others, so the exit
status says that something was not checked. Other entries that are not files at all (FIFOs,
devices, sockets, links that lead out of the directory being walked) are skipped without a
finding; ``--show-files`` lists them with the reason.

**Bad**::

    workflows/.#orders.yaml -> user@host.1234:1700000000   (a dangling link)

**Good**: remove the stale link, or add it to ``exclude`` in ``.wflint.toml``.
"""

CODE = "WF006"
NAME = "unreadable-file"
SEVERITY = "error"
PRODUCED_BY = "file discovery"
check = None
