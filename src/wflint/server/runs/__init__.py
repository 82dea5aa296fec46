"""The mock's runs: the run endpoints (``endpoints``), a run's parameters (``params``), the
stub tables (``stubs``), the background worker (``worker``) that executes a run through
``wflint.engine`` (``engine``), the replies a stored run is shown as (``replies``) and the
signed webhooks (``webhooks``). Uses the engine and the store."""
