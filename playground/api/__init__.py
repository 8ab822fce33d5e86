"""The HTTP API, /api/v1/...: the page's runs for scripts, editors, notebooks and CI jobs, on the
same server, behind the same front door and fair queue (docs/api.md). Never imports TensorFlow."""

from .routes import PREFIX, routes

__all__ = ["PREFIX", "routes"]
