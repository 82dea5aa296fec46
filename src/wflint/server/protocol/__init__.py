"""The service's wire conventions that every part of the mock shares: error bodies (``errors``),
identifiers (``ids``), API keys and organizations (``auth``), reading a request body with
bounded cost (``intake``), the named limits (``limits``) and the time budget with no write
behind an error (``budget``). Imports nothing else of the server."""
