"""The live server: open seat pages listen here for changes (Server-Sent Events), so that a new decision, a closed
window or a moved deadline appears on them within a second or two, without a reload.

One asyncio process (aiohttp) holds every open page's connection: an idle connection costs no CPU but a comment
every ``HEARTBEAT`` seconds, unlike a thread of the WSGI server (gunicorn's sync workers and waitress would each
hold one per page). ``GET /live/<seat link>`` checks the link as the pages do (a forged, expired or revoked one gets
403), then sends ``event: stamp`` with the game's current stamp (``services.play.live.stamps``) and ``event:
change`` whenever it changes. One watcher reads the stamps of every game with an open page in one query every
``EVERY`` seconds, whatever the number of pages; the page (``static/deadmail.js``) asks the web for its new live part
when the stamp differs from the one it was drawn with. The seats with an open page are recorded as on their page
every ``seats.PRESENT_EVERY`` seconds (one statement for all), which the pages show. Nothing else goes over the
stream: every seat of a game gets
the same stamps, so a page learns nothing but that it should look again.

``deadmail up`` runs it on its port + 1 (``DEADMAIL_LIVE_URL`` says where pages reach it); in production ``deadmail
live`` runs it, behind the same proxy as the web or on its own origin (docs/OPERATIONS.md)."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections import Counter, defaultdict
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from functools import partial
from urllib.parse import urlsplit

from aiohttp import web

from ..config import Settings
from ..db import Database
from ..models import utcnow
from ..services.links import LinkError
from ..services.play import live, seats

log = logging.getLogger("deadmail.live")

#: how often the watcher reads the stamps of the games with open pages (seconds).
EVERY = 0.5
#: a comment on every idle stream this often (seconds): proxies keep it open, a dead one is noticed.
HEARTBEAT = 25.0


#: the app's watcher (the benchmark reads its figures).
WATCH: web.AppKey[Watch]


@dataclass
class Watch:
    """The games with open pages, their last stamps, and each page's queue."""

    db: Database
    every: float = EVERY
    pages: dict[int, set[asyncio.Queue[str]]] = field(default_factory=lambda: defaultdict(set))
    stamps: dict[int, str] = field(default_factory=dict)
    #: the seats with an open page, and how many (the same seat in two tabs): on their page now.
    open_seats: Counter[int] = field(default_factory=Counter)
    #: how many reads the watcher made (the benchmark's figure).
    reads: int = 0

    def join(self, game_id: int, seat_id: int) -> asyncio.Queue[str]:
        queue: asyncio.Queue[str] = asyncio.Queue()
        self.pages[game_id].add(queue)
        self.open_seats[seat_id] += 1
        return queue

    def leave(self, game_id: int, seat_id: int, queue: asyncio.Queue[str]) -> None:
        self.open_seats[seat_id] -= 1
        if self.open_seats[seat_id] <= 0:
            del self.open_seats[seat_id]
        waiting = self.pages.get(game_id)
        if waiting is not None:
            waiting.discard(queue)
            if not waiting:
                del self.pages[game_id]
                self.stamps.pop(game_id, None)

    async def read(self, game_ids: list[int]) -> dict[int, str]:
        self.reads += 1
        return await asyncio.get_running_loop().run_in_executor(None, live.stamps, self.db, game_ids)

    async def present(self, every: float = seats.PRESENT_EVERY) -> None:
        """Every ``every`` seconds, the seats with an open page are on their page now (``seats.seen``)."""
        loop = asyncio.get_running_loop()
        while True:
            if self.open_seats:
                try:
                    await loop.run_in_executor(None, seats.seen, self.db, sorted(self.open_seats), utcnow())
                except Exception:  # the database is away: the next beat tries again
                    log.warning("live: could not record who is on their page", exc_info=True)
            await asyncio.sleep(every)

    async def run(self) -> None:
        while True:
            await asyncio.sleep(self.every)
            if not self.pages:
                continue
            try:
                found = await self.read(list(self.pages))
            except Exception:  # the database is away: the pages keep waiting, the next read tries again
                log.warning("live: could not read the games' stamps", exc_info=True)
                continue
            for game_id, stamp in found.items():
                if self.stamps.get(game_id) != stamp:
                    self.stamps[game_id] = stamp
                    for queue in self.pages.get(game_id, ()):
                        queue.put_nowait(stamp)


WATCH = web.AppKey("watch", Watch)


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def make_app(
    settings: Settings,
    db: Database,
    every: float = EVERY,
    heartbeat: float = HEARTBEAT,
    present: float = seats.PRESENT_EVERY,
) -> web.Application:
    """The live server's app (its watcher starts and stops with it)."""
    watch = Watch(db, every)
    allowed = _origin(settings.base_url)

    async def stream(request: web.Request) -> web.StreamResponse:
        token = request.match_info["token"]
        loop = asyncio.get_running_loop()
        opening: Callable[[], seats.SeatLink] = partial(
            seats.open_seat, db, settings.secret_key, token, settings.link_max_age
        )
        try:
            seat = await loop.run_in_executor(None, opening)
        except LinkError:
            raise web.HTTPForbidden(text="This link is not valid.") from None
        reply = web.StreamResponse(
            headers={
                "Content-Type": "text/event-stream",
                "Cache-Control": "no-store",
                "X-Accel-Buffering": "no",  # nginx: pass each event on at once
                "Access-Control-Allow-Origin": allowed,
            }
        )
        await reply.prepare(request)
        queue = watch.join(seat.game_id, seat.seat_id)
        try:
            stamp = watch.stamps.get(seat.game_id)
            if stamp is None:
                stamp = (await watch.read([seat.game_id])).get(seat.game_id, "")
                watch.stamps.setdefault(seat.game_id, stamp)
            await reply.write(f"event: stamp\ndata: {stamp}\n\n".encode())
            sent = stamp
            while True:
                try:
                    stamp = await asyncio.wait_for(queue.get(), heartbeat)
                except TimeoutError:
                    await reply.write(b": still here\n\n")
                    continue
                if stamp != sent:  # (the watcher's first read of a game may tell the stamp just sent)
                    await reply.write(f"event: change\ndata: {stamp}\n\n".encode())
                    sent = stamp
        except (ConnectionResetError, asyncio.CancelledError):
            pass
        finally:
            watch.leave(seat.game_id, seat.seat_id, queue)
        return reply

    async def healthz(_request: web.Request) -> web.Response:
        return web.json_response({"ok": True, "pages": sum(len(q) for q in watch.pages.values())})

    async def watching(_app: web.Application) -> AsyncIterator[None]:
        tasks = [asyncio.create_task(watch.run()), asyncio.create_task(watch.present(present))]
        yield
        for task in tasks:
            task.cancel()

    app = web.Application()
    app[WATCH] = watch
    app.router.add_get("/live/{token}", stream)
    app.router.add_get("/live-healthz", healthz)
    app.cleanup_ctx.append(watching)
    return app


def serve(settings: Settings, db: Database, host: str, port: int) -> None:
    """Run the live server in this process until interrupted (``deadmail live``)."""
    web.run_app(make_app(settings, db), host=host, port=port, print=None, handle_signals=True, shutdown_timeout=1.0)


class Background:
    """The live server on its own event loop in a thread of this process (``deadmail up``, the tests): bound when
    ``start`` returns (OSError if the port is taken), stopped by ``stop``."""

    def __init__(self, settings: Settings, db: Database, host: str, port: int, **options: float) -> None:
        self.app = make_app(settings, db, **options)
        self.host, self.port = host, port
        self.started = threading.Event()
        self.error: BaseException | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.thread = threading.Thread(target=self._run, name="live-server", daemon=True)

    def start(self) -> Background:
        self.thread.start()
        self.started.wait(30)
        if self.error is not None:
            raise self.error
        return self

    def _run(self) -> None:
        self.loop = asyncio.new_event_loop()
        asyncio.set_event_loop(self.loop)
        runner = web.AppRunner(self.app, handle_signals=False, shutdown_timeout=1.0)  # open streams: cut at once
        try:
            self.loop.run_until_complete(runner.setup())
            site = web.TCPSite(runner, self.host, self.port)
            self.loop.run_until_complete(site.start())
            self.port = int(runner.addresses[0][1])  # the port bound (0 asks for any free one)
        except BaseException as exc:  # the port is taken: everything started is stopped again
            self.error = exc
            self.loop.run_until_complete(runner.cleanup())
            self.loop.close()
            self.started.set()
            return
        self.started.set()
        try:
            self.loop.run_forever()
        finally:  # the streams cut, every task ended, then the loop closed: nothing left pending
            self.loop.run_until_complete(runner.cleanup())
            pending = asyncio.all_tasks(self.loop)
            for task in pending:
                task.cancel()
            self.loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            self.loop.run_until_complete(self.loop.shutdown_default_executor())
            self.loop.close()

    def stop(self) -> None:
        if self.loop is not None and self.thread.is_alive():
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(10)
