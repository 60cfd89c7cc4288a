"""What an open seat page waits for: a stamp per game that changes whenever what its seat pages show changes (a new
window, a closed one, a moved deadline, an answer in, the game's end), read for many games in one query by the live
server (``server/run/live.py``) and written into each page (``seat_live.html``'s ``data-stamp``). It reveals
nothing: every seat of a game has the same stamp, and a page only learns that it should look again."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import and_, func, select

from ...db import Database
from ...models import Game, RequestRow, Window, WindowStatus


def stamps(db: Database, game_ids: Iterable[int]) -> dict[int, str]:
    """Each game's stamp (games that do not exist are left out)."""
    ids = sorted(set(game_ids))
    if not ids:
        return {}
    answered = (
        select(func.count())
        .where(RequestRow.window_id == Window.id, RequestRow.answered_at.is_not(None))
        .scalar_subquery()
    )
    query = (
        select(Game.id, Game.status, Game.version, Window.id, Window.deadline, Window.completed_at, answered)
        .outerjoin(Window, and_(Window.game_id == Game.id, Window.status != WindowStatus.CLOSED))
        .where(Game.id.in_(ids))
    )
    with db.session() as session:
        rows = session.execute(query).all()
    found: dict[int, str] = {}
    for game_id, status, version, window, deadline, completed, count in rows:
        parts = (status, version, window, deadline and int(deadline.timestamp()), completed is not None, count)
        found[game_id] = ".".join(str(part) for part in parts)
    return found
