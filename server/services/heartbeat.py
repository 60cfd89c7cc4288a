"""A heartbeat row per periodic job, so an operator (and ``deadmail status``) can see the sweep is alive."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy.exc import IntegrityError

from ..db import Database
from ..models import Heartbeat, utcnow


def now() -> datetime:
    return utcnow()


def beat(db: Database, name: str, info: dict[str, Any]) -> None:
    """Write the job's heartbeat; two beats at once (two beat tasks) both succeed, the later one wins."""
    try:
        _write(db, name, info)
    except IntegrityError:  # the row was inserted meanwhile: now it is found
        _write(db, name, info)


def _write(db: Database, name: str, info: dict[str, Any]) -> None:
    with db.session() as session:
        row = session.get(Heartbeat, name)
        if row is None:
            session.add(Heartbeat(name=name, beat_at=utcnow(), info=info))
        else:
            row.beat_at = utcnow()
            row.info = info
