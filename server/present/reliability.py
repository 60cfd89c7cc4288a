"""How a person's reliability (``services.play.reliability``) is shown: "94% answered on time, usually within 3
hours", or "new: fewer than 20 decisions so far" (unknown, never unreliable), in the reader's language."""

from __future__ import annotations

from datetime import timedelta

from babel.dates import format_timedelta
from babel.numbers import format_percent

from ..services.play.reliability import LAST, NEW_BELOW, Reliability
from ..text.i18n import DATE_LOCALES, language, translations


def duration(lang: str, seconds: float) -> str:
    """A duration for a reader, rounded to its largest unit: "40 seconds", "3 hours", "2 days"."""
    return format_timedelta(timedelta(seconds=seconds), locale=DATE_LOCALES[language(lang)])


def figure_text(lang: str, figures: Reliability) -> str:
    """One line about a person's figures (the same wording for the person and for an organiser)."""
    t = translations(lang)
    if figures.new or figures.on_time is None:
        return t.gettext("new: fewer than %(count)d decisions so far") % {"count": NEW_BELOW}
    share = format_percent(figures.on_time, locale=DATE_LOCALES[language(lang)])
    if figures.median_seconds is None:
        return t.gettext("%(share)s answered on time") % {"share": share}
    return t.gettext("%(share)s answered on time, usually within %(time)s") % {
        "share": share,
        "time": duration(lang, figures.median_seconds),
    }


def shown(lang: str, figures: Reliability) -> dict[str, object]:
    """A template's view of the figures: the line, whether the person is new, and how many decisions count."""
    return {"text": figure_text(lang, figures), "new": figures.new, "requests": figures.requests}


def about(lang: str) -> str:
    """What the figures are, for a page showing them."""
    return translations(lang).gettext(
        "Counted over each player's last %(count)d decisions, recent ones weighing more. Not counted: decisions "
        "made by standing answers or by the autopilot, votes decided without the player, and decisions that would "
        "tell who holds a card."
    ) % {"count": LAST}
