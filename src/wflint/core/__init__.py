"""The vocabulary every stage shares, below all of them: a place in a file and a finding at it
(``diagnostics``), the record base the declaration types are made of (``records``), regular
expressions compiled on first use (``patterns``) and the exit statuses (``exit_status``)."""
