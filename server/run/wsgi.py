"""WSGI entry point for production servers: ``gunicorn 'server.run.wsgi:app'``."""

from __future__ import annotations

from .cli import web_app

app = web_app()
