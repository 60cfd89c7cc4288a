"""A heartbeat row per periodic job, so an operator (and ``deadmail status``) can see the sweep is alive."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..db import Database
from ..models import Heartbeat, utcnow


def now() -> datetime:
    return utcnow()


def beat(db: Database, name: str, info: dict[str, Any]) -> None:
    with db.session() as session:
        row = session.get(Heartbeat, name)
        if row is None:
            session.add(Heartbeat(name=name, beat_at=utcnow(), info=info))
        else:
            row.beat_at = utcnow()
            row.info = info
