"""Stage 3, the checks: analyses several rules share, each computed from a workflow view.

* ``schema_findings`` validates the request against the generated JSON Schemas and maps each
  error to a finding (code, path, message, suggestion); ``fast_validation`` answers "valid?"
  with a compiled validator first, so only a refused object pays for the error tree;
* ``service_checks`` holds the service's own save-time checks, each returning the exact
  message the service sends;
* ``webhook_url`` is the service's webhook URL validation;
* ``template_analysis`` parses Jinja with Jinja2's own parser (syntax, names read, tags), and
  ``template_sites`` finds every templated string of a workflow and maps offsets to the file;
* ``yaml11`` says how YAML 1.1 reads a plain scalar when that is not what its text says.

Checks produce facts, not diagnostics: the rules above decide what to report.
"""
