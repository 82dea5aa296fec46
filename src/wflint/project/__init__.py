"""What to check and how: the configuration (``.wflint.toml`` / ``[tool.wflint]``, ``config``),
the files a walk finds (``discovery``, which honours ``.gitignore``) and the gitignore-style globs
both match with (``globs``)."""
