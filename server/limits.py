"""Rate limits (Flask-Limiter), one limiter per app: counted in memory in the embedded default, in Redis when the
broker is Redis (so every web process shares the counts)."""

from __future__ import annotations

from flask import Blueprint, Flask
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address

from .config import Settings


def init_app(app: Flask, settings: Settings, limited: dict[Blueprint, object]) -> Limiter:
    """A limiter for ``app``; ``limited`` maps blueprints to their limit (a string or a callable giving one)."""
    redis = settings.broker_url.startswith(("redis://", "rediss://"))
    app.config.setdefault("RATELIMIT_STORAGE_URI", settings.broker_url if redis else "memory://")
    app.config.setdefault("RATELIMIT_KEY_PREFIX", settings.queue)  # installations sharing a Redis never meet
    app.config.setdefault("RATELIMIT_HEADERS_ENABLED", True)
    limiter = Limiter(get_remote_address, app=app)
    for blueprint, limit in limited.items():
        limiter.limit(limit)(blueprint)  # type: ignore[arg-type]
    return limiter
