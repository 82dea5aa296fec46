"""Saving and reading workflows as the service does: the save-time pipeline (``pipeline``), the
pydantic request models generated from ``wflint.model`` and their validators (``models``,
``validators``), the service's verdict through the library API (``verdict``), the stored form
(``versions``, ``render``), ``yaml_definition`` loading, scripts and the list/get/delete
queries. Runs nothing: the engine is the runs stage's."""
