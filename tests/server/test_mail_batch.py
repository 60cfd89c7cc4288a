"""Mail in batches: ``send.send_batch`` claims due rows in one statement and sends them over one SMTP
connection, marking each row sent right after the server accepted it. A recipient the server refuses costs only that
row a retry with back-off; a connection lost between mails leaves the mails before it sent and the rest pending:
never lost, never sent twice."""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Callable, Iterator
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from itsdangerous import TimestampSigner
from sqlalchemy import event, select

from server.config import Settings
from server.db import Database
from server.mail.compose import Mail, compose, compose_batch
from server.mail.headers import POLICY
from server.mail.send import send_batch, send_rows
from server.mail.transports import Sender, SMTPTransport
from server.models import Outbox, OutboxStatus, Player, Seat
from server.services import claims
from server.services.mailflow import outbox
from tests.conftest import Stack
from tests.support import T0, create, free_port, mail_settings, outbox_ids, recording, rows_of

HOST = "127.0.0.1"
REFUSED = "p1@example.org"


class CountingHandler:
    """Accepts every mail but those to ``refused``; counts connections (one EHLO each)."""

    def __init__(self) -> None:
        self.connections = 0
        self.refused: set[str] = set()
        self.accepted: list[bytes] = []

    async def handle_EHLO(
        self, server: Any, session: Any, envelope: Any, hostname: str, responses: list[str]
    ) -> list[str]:
        self.connections += 1
        session.host_name = hostname
        return responses

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, options: list[str]) -> str:
        if address in self.refused:
            return "550 5.1.1 no such user"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.accepted.append(envelope.content)
        return "250 2.0.0 queued"

    def message_ids(self) -> list[str]:
        return [str(message_from_bytes(raw, policy=policy.default)["Message-ID"]) for raw in self.accepted]


@pytest.fixture
def smtp() -> Iterator[tuple[CountingHandler, SMTPTransport]]:
    handler = CountingHandler()
    controller = Controller(handler, hostname=HOST, port=free_port())
    controller.start()
    try:
        yield handler, SMTPTransport.from_url(f"smtp://{HOST}:{controller.port}?timeout=5")
    finally:
        controller.stop()


class CutAfter:
    """The SMTP transport, its connection lost (``ConnectionResetError``) when the session is given mail ``k + 1``."""

    def __init__(self, inner: SMTPTransport, k: int) -> None:
        self.inner, self.k, self.sent = inner, k, 0

    def send(self, message: EmailMessage, accepted: Callable[[], None]) -> None:
        with self.session() as sender:
            sender.send(message, accepted)

    @contextlib.contextmanager
    def session(self) -> Iterator[Sender]:
        with self.inner.session() as real:
            transport = self

            class Cutting:
                connected = True

                def send(self, message: EmailMessage, accepted: Callable[[], None]) -> None:
                    if transport.sent == transport.k:
                        raise ConnectionResetError("connection lost")
                    transport.sent += 1
                    real.send(message, accepted)

            yield Cutting()


def games(db: Database, count: int) -> list[int]:
    """``count`` 5-player games at T0: their turn notices, due at T0, in order."""
    for seed in range(count):
        create(db, 5, seed=70 + seed)
    return outbox_ids(db)


def states(db: Database, ids: list[int]) -> dict[int, tuple[str, int]]:
    return {row.id: (row.status, row.attempts) for row in rows_of(db, ids)}


def test_a_batch_goes_over_one_connection_and_marks_each_row_sent_once(
    stack: Stack, smtp: tuple[CountingHandler, SMTPTransport]
) -> None:
    handler, transport = smtp
    settings = mail_settings(stack.settings)
    ids = games(stack.db, 3)
    assert len(ids) == 15

    assert len(send_batch(stack.db, transport, settings, T0, limit=10)) == 10  # the first ten, in order
    assert handler.connections == 1
    assert states(stack.db, ids) == {i: ("sent", 1) if i in ids[:10] else ("pending", 0) for i in ids}
    assert len(send_batch(stack.db, transport, settings, T0, limit=10)) == 5
    assert len(send_batch(stack.db, transport, settings, T0, limit=10)) == 0
    assert handler.connections == 2
    assert states(stack.db, ids) == {i: ("sent", 1) for i in ids}
    assert len(handler.accepted) == 15 and len(set(handler.message_ids())) == 15


def test_a_refused_recipient_retries_only_its_rows_with_back_off(
    stack: Stack, smtp: tuple[CountingHandler, SMTPTransport]
) -> None:
    handler, transport = smtp
    handler.refused = {REFUSED}
    settings = mail_settings(stack.settings)
    ids = games(stack.db, 2)
    with stack.db.session() as session:
        player = session.execute(select(Player.id).where(Player.email == REFUSED)).scalar_one()
    refused = [row.id for row in rows_of(stack.db, ids) if row.player_id == player]
    assert len(refused) == 2

    assert len(send_batch(stack.db, transport, settings, T0)) == 10
    assert handler.connections == 1  # the refusal is the mail's: the connection goes on
    assert states(stack.db, ids) == {i: ("pending", 1) if i in refused else ("sent", 1) for i in ids}
    for row in rows_of(stack.db, refused):
        assert row.next_attempt_at == T0 + claims.backoff(1)
        assert row.last_error is not None and "550" in row.last_error
    assert len(send_batch(stack.db, transport, settings, T0 + claims.backoff(1) - dt.timedelta(seconds=1))) == 0

    handler.refused = set()
    assert len(send_batch(stack.db, transport, settings, T0 + claims.backoff(1))) == 2
    assert states(stack.db, ids) == {i: ("sent", 2) if i in refused else ("sent", 1) for i in ids}
    assert len(handler.accepted) == 10 and len(set(handler.message_ids())) == 10


def test_a_connection_lost_between_mails_leaves_the_first_sent_and_the_rest_pending(
    stack: Stack, smtp: tuple[CountingHandler, SMTPTransport]
) -> None:
    handler, transport = smtp
    settings = mail_settings(stack.settings)
    ids = games(stack.db, 2)
    k = 4

    assert len(send_batch(stack.db, CutAfter(transport, k), settings, T0)) == 10
    assert len(handler.accepted) == k
    cut, rest = ids[k], ids[k + 1 :]
    expected = {i: ("sent", 1) for i in ids[:k]} | {cut: ("pending", 1)} | {i: ("pending", 0) for i in rest}
    assert states(stack.db, ids) == expected  # the untried rows: released, their claim not counted
    (lost,) = rows_of(stack.db, [cut])
    assert lost.next_attempt_at == T0 + claims.backoff(1)
    assert lost.last_error == "ConnectionResetError: connection lost"

    assert len(send_batch(stack.db, transport, settings, T0)) == len(rest)  # due at once
    assert len(send_batch(stack.db, transport, settings, T0 + claims.backoff(1))) == 1
    assert states(stack.db, ids) == {i: ("sent", 2) if i == cut else ("sent", 1) for i in ids}
    assert len(handler.accepted) == 10 and len(set(handler.message_ids())) == 10  # none lost, none twice


class Died(BaseException):
    """The worker's process ends here (killed), with nothing run after it."""


def test_a_worker_dying_mid_batch_has_recorded_every_mail_that_went_so_none_goes_twice(
    stack: Stack, smtp: tuple[CountingHandler, SMTPTransport]
) -> None:
    """Each mail is marked sent the moment the SMTP server took it, before the next one: a worker killed after the
    k-th mail of a batch leaves those k rows sent (never sent again) and the rest claimed, sent once later."""
    handler, transport = smtp
    settings = mail_settings(stack.settings)
    ids = games(stack.db, 2)
    k = 4

    class DiesAfter(CutAfter):
        @contextlib.contextmanager
        def session(self) -> Iterator[Sender]:
            with self.inner.session() as real:
                transport = self

                class Dying:
                    connected = True

                    def send(self, message: EmailMessage, accepted: Callable[[], None]) -> None:
                        real.send(message, accepted)
                        transport.sent += 1
                        if transport.sent == transport.k:
                            raise Died

                yield Dying()

    with pytest.raises(Died):
        send_batch(stack.db, DiesAfter(transport, k), settings, T0)
    assert states(stack.db, ids) == {i: ("sent", 1) for i in ids[:k]} | {i: ("sending", 1) for i in ids[k:]}
    later = T0 + outbox.STUCK_AFTER + dt.timedelta(minutes=1)  # the stuck claims are released, and sent
    while send_batch(stack.db, transport, settings, later):
        pass
    assert {state for state, _ in states(stack.db, ids).values()} == {"sent"}
    assert len(handler.accepted) == 10 and len(set(handler.message_ids())) == 10  # none twice


def test_a_batch_costs_a_bounded_number_of_sql_statements_per_mail(
    stack: Stack, smtp: tuple[CountingHandler, SMTPTransport]
) -> None:
    _handler, transport = smtp
    settings: Settings = mail_settings(stack.settings)
    ids = games(stack.db, 4)
    statements: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        statements.append(statement)

    event.listen(stack.db.engine, "before_cursor_execute", count)
    try:
        assert len(send_batch(stack.db, transport, settings, T0)) == len(ids) == 20
    finally:
        event.remove(stack.db.engine, "before_cursor_execute", count)
    assert states(stack.db, ids) == {i: ("sent", 1) for i in ids}
    assert len(statements) <= STATEMENTS_PER_MAIL * len(ids) + CLAIM
    assert sum(s.lstrip().upper().startswith("UPDATE OUTBOX") and "attempts" in s for s in statements) == 1  # one claim


#: SQL statements a turn notice of a batch costs at most: 12 on SQLite (its two BEGIN IMMEDIATE counted), 10 on
#: PostgreSQL, against 21 to 24 for a mail sent alone before batches; and the batch's claim (stuck rows released first).
STATEMENTS_PER_MAIL = 12
CLAIM = 4


def test_a_transaction_asks_for_one_send_task_carrying_all_its_rows(
    embedded: Stack, smtp: tuple[CountingHandler, SMTPTransport]
) -> None:
    handler, transport = smtp
    db, recorder = recording(embedded.db)
    create(db, 5, seed=90)
    ids = outbox_ids(embedded.db)
    assert recorder.mail_tasks == [ids]

    results = send_rows(embedded.db, ids, transport, mail_settings(embedded.settings), T0)
    assert results == {i: "sent" for i in ids}
    assert handler.connections == 1
    assert send_rows(embedded.db, ids, transport, mail_settings(embedded.settings), T0) == {}  # none due twice
    assert all(row.status == OutboxStatus.SENT for row in rows_of(embedded.db, ids))


def _shown(mail: Mail | None) -> tuple[list[tuple[str, str]], str, str, dict[int, int]]:
    """A composed mail as its reader gets it (its Date, the second it was composed, left out) and what it tells."""
    assert mail is not None
    message = mail.message
    headers = [(key, str(value)) for key, value in message.items() if key != "Date"]
    text, html = (message.get_body((kind,)) for kind in ("plain", "html"))
    assert text is not None and html is not None
    return headers, text.get_content(), html.get_content(), mail.told


def test_mails_composed_in_a_batch_are_the_mails_composed_one_by_one(
    stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(TimestampSigner, "get_timestamp", lambda _self: 1_900_000_000)  # links signed the same second
    settings = mail_settings(stack.settings)
    ids = games(stack.db, 3)
    with stack.db.session() as session:  # readers in every language, each mail in its reader's own
        for n, player in enumerate(session.execute(select(Player).order_by(Player.id)).scalars()):
            player.language = ("en", "it", "pl")[n % 3]

    batch = compose_batch(stack.db, ids, settings, T0)
    assert [row_id for row_id, _mail in batch] == ids  # one seat each: composed together
    alone = [_shown(compose(stack.db, row_id, settings, T0)) for row_id in ids]
    together = [_shown(mail) for _row_id, mail in batch if not isinstance(mail, Exception)]
    assert together == alone
    languages = {dict(headers)["Content-Language"] for headers, *_ in together}
    assert languages == {"en", "it", "pl"}
    message_ids = [dict(headers)["Message-ID"] for headers, *_ in together]
    assert len(set(message_ids)) == len(ids)
    assert all("seat-" in mid for mid in message_ids)  # each seat's first mail: its thread's root


def test_a_batch_costs_the_same_sql_statements_whatever_its_number_of_mails(
    stack: Stack, smtp: tuple[CountingHandler, SMTPTransport]
) -> None:
    _handler, transport = smtp
    settings = mail_settings(stack.settings)
    ids = games(stack.db, 10)

    def statements(limit: int) -> tuple[int, int]:
        """The batch's reads, and its statements in all."""
        counted: list[str] = []

        def count(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
            counted.append(statement)

        event.listen(stack.db.engine, "before_cursor_execute", count)
        try:
            assert set(send_batch(stack.db, transport, settings, T0, limit=limit).values()) == {"sent"}
        finally:
            event.remove(stack.db.engine, "before_cursor_execute", count)
        return sum(s.lstrip().upper().startswith("SELECT") for s in counted), len(counted)

    (few_reads, few), (many_reads, many) = statements(10), statements(40)
    assert few_reads == many_reads  # 2 games, then 8: rows, seats, windows ... each read once a batch
    assert many - few <= 30 * 3  # each mail only marked sent as soon as it went: (SET LOCAL,) the row, its seat
    assert states(stack.db, ids) == {i: ("sent", 1) for i in ids}


def test_a_batch_reads_the_outbox_through_its_indexed_columns_only(
    stack: Stack, smtp: tuple[CountingHandler, SMTPTransport]
) -> None:
    """Every read of the outbox in a batch is bounded by an indexed column (its ids, games, status): reading the
    seats' thread roots by seat alone would scan the whole outbox (0.7 s a batch at 100,000 games)."""
    _handler, transport = smtp
    games(stack.db, 3)
    reads: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if statement.lstrip().upper().startswith("SELECT") and "FROM outbox" in statement:
            reads.append(" ".join(statement.split()))

    event.listen(stack.db.engine, "before_cursor_execute", record)
    try:
        assert set(send_batch(stack.db, transport, mail_settings(stack.settings), T0).values()) == {"sent"}
    finally:
        event.remove(stack.db.engine, "before_cursor_execute", record)
    indexed = ("outbox.id IN", "outbox.id =", "outbox.game_id IN", "outbox.game_id =", "outbox.status")
    assert reads and [read for read in reads if not any(column in read for column in indexed)] == []


def test_headers_parsed_once_are_kept_and_read_the_same(stack: Stack, monkeypatch: pytest.MonkeyPatch) -> None:
    """The header values every mail sets (From, the MIME headers, a reader's To) are parsed once per process
    (``headers.POLICY``): a mail composed from kept headers is the mail composed from freshly parsed ones."""
    monkeypatch.setattr(TimestampSigner, "get_timestamp", lambda _self: 1_900_000_000)
    settings = mail_settings(stack.settings)
    ids = games(stack.db, 1)[:2]  # two readers of one game, each mailed from the same address
    monkeypatch.setattr(POLICY.header_factory, "_parsed", {})
    fresh = [compose(stack.db, row_id, settings, T0) for row_id in ids]
    kept = [compose(stack.db, row_id, settings, T0) for row_id in ids]
    assert [_shown(mail) for mail in kept] == [_shown(mail) for mail in fresh]

    def folded(mail: Mail | None) -> list[str]:
        assert mail is not None
        return [POLICY.fold(key, value) for key, value in mail.message.items() if key != "Date"]

    assert [folded(mail) for mail in kept] == [folded(mail) for mail in fresh]
    first, second = (mail.message for mail in fresh if mail is not None)
    again = kept[0].message if kept[0] is not None else None
    assert again is not None and first["To"] != second["To"]
    assert second["From"] is first["From"] and again["To"] is first["To"]  # parsed once, kept


def test_a_mail_is_recorded_sent_in_one_statement_and_its_seats_never_move_back(stack: Stack) -> None:
    """``outbox.sent`` right after each mail: on PostgreSQL one statement in its own transaction (the seats' marks
    in its WITH), the seats it told moved on to what it told, never back."""
    first, second, *_ = games(stack.db, 1)
    with stack.db.session() as session:
        (one, two) = (session.get(Outbox, row_id).seat_id for row_id in (first, second))  # type: ignore[union-attr]
        for seat_id, value in ((one, 5), (two, 1)):
            session.get(Seat, seat_id).told_events = value  # type: ignore[union-attr]
    counted: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        counted.append(statement)

    assert one is not None and two is not None
    event.listen(stack.db.engine, "before_cursor_execute", count)
    outbox.sent(stack.db, first, {one: 3, two: 4}, {two: 9})
    event.remove(stack.db.engine, "before_cursor_execute", count)
    with stack.db.session() as session:
        assert session.get(Outbox, first).status == OutboxStatus.SENT  # type: ignore[union-attr]
        assert session.get(Outbox, second).status == OutboxStatus.PENDING  # type: ignore[union-attr]
        marks = {s.id: (s.told_events, s.chat_mailed_id) for s in session.scalars(select(Seat))}
    assert marks[one] == (5, None) and marks[two] == (4, 9)  # 5 is kept: never back
    if not stack.db.is_sqlite:
        assert len([s for s in counted if not s.lower().startswith("select 1")]) == 1
    outbox.sent(stack.db, second, {one: 7}, {})  # no table talk told
    with stack.db.session() as session:
        assert session.get(Seat, one).told_events == 7  # type: ignore[union-attr]
        assert session.get(Outbox, second).status == OutboxStatus.SENT  # type: ignore[union-attr]
