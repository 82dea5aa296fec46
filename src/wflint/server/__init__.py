"""A mock of the Skyvern workflow service API (``wflint serve``).

``create_app`` builds the Starlette application for in-process use::

    from wflint.server import create_app, ServerConfig
    app = create_app(ServerConfig(keys=ApiKeys.from_specs(["key=o_1"])))
"""

from .http.app import create_app
from .protocol.auth import ApiKeys
from .state import ServerConfig, ServerState

__all__ = ["ApiKeys", "ServerConfig", "ServerState", "create_app"]
