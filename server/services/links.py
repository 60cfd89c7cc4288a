"""Signed links (itsdangerous): per seat with a server-side generation number, so they can be revoked; per player
(preferences); per game (organiser); and the embedded mailbox's."""

from __future__ import annotations

from functools import lru_cache
from typing import Protocol

from itsdangerous import BadSignature, SignatureExpired, TimestampSigner, URLSafeSerializer, URLSafeTimedSerializer

from .errors import N_, ShownError

SALT = "deadmail.seat"


class LinkError(ShownError):
    """A link that does not open a seat; the message is shown to the person who followed it (pages translate it)."""


#: signs the calendar addresses (``calendar_token``).
CALENDAR_SALT = "deadmail.calendar"


@lru_cache(maxsize=32)
def serializer(secret_key: str, salt: str = SALT) -> URLSafeTimedSerializer:
    """The serializer of ``salt``'s links (made once: it keeps no state between calls, and links are read on every
    answer)."""
    return URLSafeTimedSerializer(secret_key, salt=salt)


def _load(secret_key: str, salt: str, token: str, max_age: int, expired: str) -> object:
    """The data a well-signed, unexpired token of ``salt`` carries; LinkError (``expired`` when too old). A
    ``max_age`` of 0: the token does not expire."""
    if len(token) > 512:
        raise LinkError(N_("This link is not valid."))
    try:
        return serializer(secret_key, salt).loads(token, max_age=max_age or None)
    except SignatureExpired:
        raise LinkError(expired) from None
    except BadSignature:
        raise LinkError(N_("This link is not valid: check that you copied all of it.")) from None


def _one_id(data: object) -> int:
    if not isinstance(data, int) or isinstance(data, bool):
        raise LinkError(N_("This link is not valid."))
    return data


def seat_token(secret_key: str, seat_id: int, generation: int) -> str:
    return serializer(secret_key).dumps([seat_id, generation])


def read_token(secret_key: str, token: str, max_age: int) -> tuple[int, int]:
    """``(seat id, generation)`` of a well-signed, unexpired token; LinkError otherwise."""
    data = _load(
        secret_key, SALT, token, max_age, N_("This link has expired: ask the organiser to send you a new one.")
    )
    if not (isinstance(data, list) and len(data) == 2 and all(isinstance(x, int) for x in data)):
        raise LinkError(N_("This link is not valid."))
    return data[0], data[1]


PLAYER_SALT = "deadmail.player"


def player_token(secret_key: str, player_id: int, generation: int) -> str:
    """The link to a player's preferences page (language, time zone, quiet hours, mail mode, standing orders), of the
    player's current link generation (``Player.link_generation``)."""
    return serializer(secret_key, PLAYER_SALT).dumps([player_id, generation])


def read_player_token(secret_key: str, token: str, max_age: int) -> tuple[int, int]:
    """``(player id, generation)`` of a preferences link; LinkError for a forged or expired one. A link made before
    players had generations (a bare id) is of generation 1."""
    expired = N_("This link has expired: use the link in your latest e-mail.")
    data = _load(secret_key, PLAYER_SALT, token, max_age, expired)
    if isinstance(data, list) and len(data) == 2:
        return _one_id(data[0]), _one_id(data[1])
    return _one_id(data), 1


ORGANISER_SALT = "deadmail.organiser"


def organiser_token(secret_key: str, game_id: int) -> str:
    """The link that opens one game's organiser pages without logging in (shown when the game is created)."""
    return serializer(secret_key, ORGANISER_SALT).dumps(game_id)


def read_organiser_token(secret_key: str, token: str, max_age: int) -> int:
    """The game id of an organiser link; LinkError for a forged or expired one."""
    expired = N_("This organiser link has expired: log in with the organiser token instead.")
    return _one_id(_load(secret_key, ORGANISER_SALT, token, max_age, expired))


SIGNIN_SALT = "deadmail.signin"


def signin_token(secret_key: str, link_id: int) -> str:
    """The mailed sign-in link's token: the ``SigninLink`` row it opens (once, while young: ``services.signin``)."""
    return serializer(secret_key, SIGNIN_SALT).dumps(link_id)


def read_signin_token(secret_key: str, token: str, max_age: int) -> int:
    """The ``SigninLink`` id of a sign-in link; LinkError for a forged or expired one."""
    expired = N_("This sign-in link has expired: ask for a new one.")
    return _one_id(_load(secret_key, SIGNIN_SALT, token, max_age, expired))


UNSUBSCRIBE_SALT = "deadmail.unsubscribe"


def unsubscribe_token(secret_key: str, player_id: int, generation: int) -> str:
    """A mail's one-click unsubscribe address (RFC 8058): the player, of their link generation (revoked with their
    other links)."""
    return serializer(secret_key, UNSUBSCRIBE_SALT).dumps([player_id, generation])


def read_unsubscribe_token(secret_key: str, token: str, max_age: int) -> tuple[int, int]:
    """``(player id, generation)`` of a one-click unsubscribe address; LinkError for a forged or too old one."""
    expired = N_("This link has expired: use the link in your latest e-mail.")
    return _two_ids(_load(secret_key, UNSUBSCRIBE_SALT, token, max_age, expired))


GAME_INVITE_SALT = "deadmail.game-invite"
GAME_LINK_SALT = "deadmail.game-link"


def game_invite_token(secret_key: str, invitation_id: int) -> str:
    """An invitation mail's link: the ``ProposalInvitation`` it answers (once: ``services.lobby``)."""
    return serializer(secret_key, GAME_INVITE_SALT).dumps(invitation_id)


def read_game_invite_token(secret_key: str, token: str) -> int:
    """The ``ProposalInvitation`` id of an invitation link; LinkError for a forged one (it does not expire: the
    game it invites to stops taking players)."""
    return _one_id(_load(secret_key, GAME_INVITE_SALT, token, 0, N_("This link is not valid.")))


def game_link_token(secret_key: str, proposal_id: int, generation: int) -> str:
    """A forming game's shareable invitation link (revoked by its creator's new one: the proposal's generation)."""
    return serializer(secret_key, GAME_LINK_SALT).dumps([proposal_id, generation])


def read_game_link_token(secret_key: str, token: str) -> tuple[int, int]:
    """``(proposal id, generation)`` of a shareable invitation link; LinkError for a forged one."""
    return _two_ids(_load(secret_key, GAME_LINK_SALT, token, 0, N_("This link is not valid.")))


MAILBOX_SALT = "deadmail.mailbox"


def mailbox_token(secret_key: str) -> str:
    """The organiser's link token to the embedded mailbox page (mail written to files)."""
    return URLSafeSerializer(secret_key, salt=MAILBOX_SALT).dumps("mailbox")


def read_mailbox_token(secret_key: str, token: str) -> bool:
    """True for a token made by ``mailbox_token`` with this secret."""
    if len(token) > 200:
        return False
    try:
        return bool(URLSafeSerializer(secret_key, salt=MAILBOX_SALT).loads(token) == "mailbox")
    except BadSignature:
        return False


class Linked(Protocol):
    """A seat as a link is checked against: a ``Seat``, or a plain row of its columns (an answer reads no ORM
    objects)."""

    @property
    def player_id(self) -> int | None: ...
    @property
    def link_generation(self) -> int: ...


def check_generation(seat: Linked, generation: int) -> None:
    """LinkError unless the link is the seat's current one (and the seat is a person's)."""
    if seat.player_id is None:
        raise LinkError(N_("This link is not valid."))
    check_current(seat.link_generation, generation)


def check_current(current: int, generation: int) -> None:
    """LinkError unless a link of ``generation`` is the current one (older ones are revoked: ``seats.revoke_links``)."""
    if current != generation:
        raise LinkError(N_("This link has been replaced by a newer one: use the link in your latest e-mail."))


# --- leagues ---------------------------------------------------------------------------------------------------------

#: a league's links, by kind: each carries ``[league id, generation]`` (``League.<kind>_generation``).
LEAGUE_SALTS = {
    "invite": "deadmail.league.invite",
    "organiser": "deadmail.league.organiser",
    "public": "deadmail.league.public",
}
CONFIRM_SALT = "deadmail.league.confirm"


def _two_ids(data: object) -> tuple[int, int]:
    if not (isinstance(data, list) and len(data) == 2):
        raise LinkError(N_("This link is not valid."))
    return _one_id(data[0]), _one_id(data[1])


def league_token(secret_key: str, which: str, league_id: int, generation: int) -> str:
    """A league's invitation, organiser or public link (``which``); they do not expire, they are revoked."""
    return serializer(secret_key, LEAGUE_SALTS[which]).dumps([league_id, generation])


def read_league_token(secret_key: str, which: str, token: str) -> tuple[int, int]:
    """``(league id, generation)`` of a well-signed league link of kind ``which``; LinkError otherwise."""
    return _two_ids(_load(secret_key, LEAGUE_SALTS[which], token, 0, N_("This link is not valid.")))


class _UndatedSigner(TimestampSigner):
    """Signs with a fixed time: a token that never expires is then the same string each time it is made."""

    def get_timestamp(self) -> int:
        return 1


def calendar_token(secret_key: str, player_id: int, generation: int) -> str:
    """A player's calendar address: it does not expire (a calendar service fetches it for months), it is revoked by
    the player's ``calendar_generation``, and it is the same string on every page and mail of one generation (an
    address dated when shown would change from one second to the next). Read like the other timed tokens, so the
    dated addresses handed out before stay valid."""
    return URLSafeTimedSerializer(secret_key, salt=CALENDAR_SALT, signer=_UndatedSigner).dumps([player_id, generation])


def read_calendar_token(secret_key: str, token: str) -> tuple[int, int]:
    """``(player id, calendar generation)`` of a well-signed calendar address (at most 200 characters); LinkError
    otherwise."""
    if len(token) > 200:
        raise LinkError(N_("This link is not valid."))
    return _two_ids(_load(secret_key, CALENDAR_SALT, token, 0, N_("This link is not valid.")))


def confirm_token(secret_key: str, season_player_id: int, generation: int) -> str:
    """The link that confirms a sign-up to a season (mailed to the address signed up)."""
    return serializer(secret_key, CONFIRM_SALT).dumps([season_player_id, generation])


def read_confirm_token(secret_key: str, token: str, max_age: int) -> tuple[int, int]:
    """``(season player id, confirm generation)`` of a confirmation link; LinkError for a forged or expired one."""
    expired = N_("This confirmation link has expired: sign up again from the league's invitation link.")
    return _two_ids(_load(secret_key, CONFIRM_SALT, token, max_age, expired))
