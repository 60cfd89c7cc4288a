"""DKIM (RFC 6376), optional: with ``DEADMAIL_DKIM_SELECTOR``, ``_DOMAIN`` and ``_KEY_FILE`` every mail is signed
(dkimpy) just before the transport takes it, relaxed/relaxed, over the headers a reader sees and a filter judges.
Without them mail goes unsigned: a relay that signs for the domain is enough (docs/OPERATIONS.md)."""

from __future__ import annotations

from email.message import EmailMessage
from functools import lru_cache
from pathlib import Path

import dkim

from ..config import Settings

#: the headers signed, when present (a header listed but absent is not signed: one added later by a relay or a list
#: does not break the signature).
SIGNED = (
    b"from",
    b"to",
    b"subject",
    b"date",
    b"message-id",
    b"reply-to",
    b"in-reply-to",
    b"references",
    b"list-unsubscribe",
    b"list-unsubscribe-post",
    b"mime-version",
    b"content-type",
)


@lru_cache(maxsize=4)
def _key(path: str) -> bytes:
    return Path(path).read_bytes()


def sign(message: EmailMessage, settings: Settings) -> EmailMessage:
    """``message`` with a DKIM-Signature header (added in place) when DKIM is configured; else as it is."""
    if not settings.dkim_selector:
        return message
    data = message.as_bytes(policy=message.policy.clone(linesep="\r\n"))
    signature = dkim.sign(
        data,
        settings.dkim_selector.encode(),
        settings.dkim_domain.encode(),
        _key(settings.dkim_key_file),
        canonicalize=(b"relaxed", b"relaxed"),
        include_headers=list(SIGNED),
    )
    name, _, value = signature.decode("ascii").partition(":")
    assert name == "DKIM-Signature"
    message[name] = " ".join(value.split())  # unfolded: the transport folds it again, as relaxed allows
    return message
