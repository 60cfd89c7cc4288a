"""The floor of the stack (``bench/peer.py``): the least an answer can cost with Flask, SQLAlchemy, psycopg, Redis and
PostgreSQL behind gunicorn, whatever the game.

``POST /api/seat/<token>/answer`` with a JSON object: the seat's count incremented in Redis (as deadmail's rate limit
does), the seat's row locked, its answer overwritten and committed (fsynced by PostgreSQL), ``{"ok": true,
"changed": …}`` sent back after the commit. Nothing else: no signed link, no game, no window, no rules, no security
headers. What deadmail's answer costs above this is what it does for its players; what this one costs is the stack's.
``FLOOR_DATABASE_URL`` (its table ``floor_answers`` made by ``bench/peer.py``) and ``FLOOR_REDIS_URL`` say where.
"""

from __future__ import annotations

import json
import os
from typing import Any

import redis
import sqlalchemy as sa
from flask import Flask, request

app = Flask(__name__)
database = sa.create_engine(os.environ["FLOOR_DATABASE_URL"], pool_size=10)
counts = redis.Redis.from_url(os.environ["FLOOR_REDIS_URL"])
READ = sa.text("SELECT answer FROM floor_answers WHERE token = :token FOR UPDATE")
WRITE = sa.text("UPDATE floor_answers SET answer = :answer WHERE token = :token")


@app.post("/api/seat/<token>/answer")
def answer(token: str) -> Any:
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        return {"ok": False, "error": "a JSON object, please"}, 400
    counts.incr(f"floor:{token}")
    given = json.dumps(body, sort_keys=True)
    with database.begin() as conn:
        before = conn.execute(READ, {"token": token}).scalar_one_or_none()
        conn.execute(WRITE, {"answer": given, "token": token})
    return {"ok": True, "changed": before != given}
