"""WSGI entry point for production servers: ``gunicorn 'server.wsgi:app'``."""

from __future__ import annotations

from .app import create_app

app = create_app()
