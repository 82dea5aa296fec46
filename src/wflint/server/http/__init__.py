"""The mock's HTTP layer: the Starlette application and its routes (``app``), the OpenAPI
document (``openapi``) and the connection limits (``connections``). It turns requests into
calls on the workflows and runs stages and their answers into replies; it knows no SQL (an
import-linter contract keeps the store out of it)."""
