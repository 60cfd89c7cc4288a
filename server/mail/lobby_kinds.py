"""The mails of games players start themselves (``services.lobby``): an invitation to an address (the only mail it
gets before it accepts) and a game cancelled before it started. Each fills a ``Draft`` for one outbox row, or
returns None when nothing is left to tell."""

from __future__ import annotations

from ..models import Outbox, ProposalStatus
from ..present.league import estimate_text, tempo_text
from ..present.seat import cap
from ..services.inputs import one_line
from ..services.links import game_invite_token
from ..services.mailflow import mail_rows
from ..services.presets import tempo_for
from ..text import i18n
from .drafts import MAX_USER_TEXT, Draft
from .kinds import Composer


def _label(composer: Composer, proposed: mail_rows.Proposed) -> str:
    title = cap(one_line(proposed.proposal.title), MAX_USER_TEXT)
    count = proposed.proposal.seats
    return title or composer.t.ngettext("a game of %(num)d player", "a game of %(num)d players", count) % {"num": count}


def game_invite(composer: Composer, row: Outbox) -> Draft | None:
    """An address invited to a forming game: what the game is, and its link to accept, decline or never be invited
    again; skipped once answered or once the game no longer takes players."""
    found = mail_rows.game_invite(composer.session, row.payload.get("invitation"))
    if found is None:
        return None
    invitation, proposed = found
    proposal = proposed.proposal
    if invitation.answer is not None or proposal.status != ProposalStatus.FORMING:
        return None
    t, settings, lang = composer.t, composer.settings, composer.lang
    creator = cap(one_line(proposed.creator), MAX_USER_TEXT)
    draft = Draft("game_invite", {"creator": creator, "label": _label(composer, proposed), "seats": proposal.seats})
    draft.notes.append(tempo_text(lang, tempo_for(proposal.preset, proposal.timezone)))
    if proposal.estimate:
        draft.notes.append(estimate_text(lang, proposal.estimate))
    when, relative = i18n.format_when(proposal.fill_by, composer.now, composer.player.timezone, lang)
    draft.notes.append(
        t.gettext("The game starts when its seats are taken; if they are not by %(when)s (%(relative)s), it is off.")
        % {"when": when, "relative": relative}
    )
    draft.notes.append(
        t.gettext(
            "If you do not want to play, ignore this mail: you get no other mail about this game. On the link's "
            "page you may also ask never to be invited again."
        )
    )
    url = f"{settings.base_url}/invited/{game_invite_token(settings.secret_key, invitation.id)}"
    draft.actions.append({"text": t.gettext("See the game, accept or decline"), "url": url})
    return draft


def game_cancelled(composer: Composer, row: Outbox) -> Draft | None:
    """A forming game the reader joined is off: not full by its date, or cancelled by its creator."""
    proposed = mail_rows.proposal(composer.session, row.payload.get("proposal"))
    if proposed is None or proposed.proposal.status != ProposalStatus.CANCELLED:
        return None
    reason = str(row.payload.get("reason") or "")
    variant = "game_unfilled" if reason == "unfilled" else "game_cancelled"
    creator = cap(one_line(proposed.creator), MAX_USER_TEXT)
    draft = Draft(variant, {"label": _label(composer, proposed), "creator": creator})
    draft.actions.append(
        {"text": composer.t.gettext("See the open games"), "url": f"{composer.settings.base_url}/lobby"}
    )
    return draft
