"""Signed per-seat links (itsdangerous) with a server-side generation number, so links can be revoked."""

from __future__ import annotations

from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer

from .errors import N_, ShownError

SALT = "deadmail.seat"


class LinkError(ShownError):
    """A link that does not open a seat; the message is shown to the person who followed it (pages translate it)."""


def serializer(secret_key: str) -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(secret_key, salt=SALT)


def seat_token(secret_key: str, seat_id: int, generation: int) -> str:
    return serializer(secret_key).dumps([seat_id, generation])


def read_token(secret_key: str, token: str, max_age: int) -> tuple[int, int]:
    """``(seat id, generation)`` of a well-signed, unexpired token; LinkError otherwise."""
    if len(token) > 512:
        raise LinkError(N_("This link is not valid."))
    try:
        data = serializer(secret_key).loads(token, max_age=max_age)
    except SignatureExpired:
        raise LinkError(N_("This link has expired: ask the organiser to send you a new one.")) from None
    except BadSignature:
        raise LinkError(N_("This link is not valid: check that you copied all of it.")) from None
    if not (isinstance(data, list) and len(data) == 2 and all(isinstance(x, int) for x in data)):
        raise LinkError(N_("This link is not valid."))
    return data[0], data[1]


PLAYER_SALT = "deadmail.player"


def player_token(secret_key: str, player_id: int) -> str:
    """The link to a player's preferences page (language, time zone, quiet hours, mail mode, standing orders)."""
    return URLSafeTimedSerializer(secret_key, salt=PLAYER_SALT).dumps(player_id)


def read_player_token(secret_key: str, token: str, max_age: int) -> int:
    """The player id of a preferences link; LinkError for a forged or expired one."""
    if len(token) > 512:
        raise LinkError(N_("This link is not valid."))
    try:
        data = URLSafeTimedSerializer(secret_key, salt=PLAYER_SALT).loads(token, max_age=max_age)
    except SignatureExpired:
        raise LinkError(N_("This link has expired: use the link in your latest e-mail.")) from None
    except BadSignature:
        raise LinkError(N_("This link is not valid: check that you copied all of it.")) from None
    if not isinstance(data, int) or isinstance(data, bool):
        raise LinkError(N_("This link is not valid."))
    return data


ORGANISER_SALT = "deadmail.organiser"


def organiser_token(secret_key: str, game_id: int) -> str:
    """The link that opens one game's organiser pages without logging in (shown when the game is created)."""
    return URLSafeTimedSerializer(secret_key, salt=ORGANISER_SALT).dumps(game_id)


def read_organiser_token(secret_key: str, token: str, max_age: int) -> int:
    """The game id of an organiser link; LinkError for a forged or expired one."""
    if len(token) > 512:
        raise LinkError(N_("This link is not valid."))
    try:
        data = URLSafeTimedSerializer(secret_key, salt=ORGANISER_SALT).loads(token, max_age=max_age)
    except SignatureExpired:
        raise LinkError(N_("This organiser link has expired: log in with the organiser token instead.")) from None
    except BadSignature:
        raise LinkError(N_("This link is not valid: check that you copied all of it.")) from None
    if not isinstance(data, int) or isinstance(data, bool):
        raise LinkError(N_("This link is not valid."))
    return data
