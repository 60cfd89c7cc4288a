"""The time zones a form offers: UTC, then the tz database's canonical zones of the world's places (its
``zone.tab``: one per region of a country, "Europe/Rome", "America/Argentina/Buenos_Aires"), grouped by region and
labelled by city, without the legacy aliases ("W-SU", "Asia/Calcutta"), the "Etc/" offsets, "Factory", "localtime"
and "posixrules". One list for every form: ``templates/_zones.html``'s ``zone_select`` macro shows it (the region
names are msgids, translated there). The server still accepts any zone it knows (``services.tempo.timezones``), and a
stored one that is not in the list is shown selected above it."""

from __future__ import annotations

import importlib.resources
import zoneinfo
from functools import cache
from pathlib import Path

from ..services.errors import N_
from ..services.tempo import timezones

__all__ = ["REGIONS", "ZoneGroup", "zone_groups", "zone_names"]

#: the regions of the tz database's names, as a select's groups show them (msgids), in the order shown.
REGIONS: dict[str, str] = {
    "Europe": N_("Europe"),
    "America": N_("Americas"),
    "Asia": N_("Asia"),
    "Africa": N_("Africa"),
    "Australia": N_("Australia"),
    "Pacific": N_("Pacific Ocean"),
    "Atlantic": N_("Atlantic Ocean"),
    "Indian": N_("Indian Ocean"),
    "Arctic": N_("Arctic"),
    "Antarctica": N_("Antarctica"),
}

#: one group of the select: the region's msgid and its zones as (IANA name, city label), sorted by label.
ZoneGroup = tuple[str, tuple[tuple[str, str], ...]]


def _zone_tab() -> str:
    """The tz database's zone.tab: where ``zoneinfo`` finds its zones (the system's), else the tzdata package's."""
    for folder in zoneinfo.TZPATH:
        path = Path(folder) / "zone.tab"
        if path.is_file():
            return path.read_text(encoding="utf-8")
    try:
        return importlib.resources.files("tzdata").joinpath("zoneinfo/zone.tab").read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError):
        return ""


def _canonical() -> set[str]:
    """The zones of zone.tab that this system knows; without a zone.tab, every known zone of a region."""
    known = timezones()
    listed = {line.split("\t")[2] for line in _zone_tab().splitlines() if line and not line.startswith("#")}
    return (listed & known) or {z for z in known if z.split("/", 1)[0] in REGIONS}


def city(name: str) -> str:
    """The label of a zone: its city, with the place between the region and the city after it ("America/Argentina/
    Buenos_Aires" -> "Buenos Aires (Argentina)", "Europe/Rome" -> "Rome")."""
    parts = [part.replace("_", " ") for part in name.split("/")[1:]]
    return parts[-1] + (f" ({', '.join(parts[:-1])})" if len(parts) > 1 else "")


@cache
def zone_groups() -> tuple[ZoneGroup, ...]:
    """The regions with their zones, labelled by city (cached: callers only read)."""
    by_region: dict[str, list[tuple[str, str]]] = {region: [] for region in REGIONS}
    for name in _canonical():
        region = name.split("/", 1)[0]
        if region in by_region and "/" in name:
            by_region[region].append((name, city(name)))
    return tuple(
        (REGIONS[region], tuple(sorted(zones, key=lambda zone: (zone[1].casefold(), zone[0]))))
        for region, zones in by_region.items()
        if zones
    )


@cache
def zone_names() -> frozenset[str]:
    """Every zone the select offers, UTC included."""
    return frozenset({"UTC"} | {name for _region, zones in zone_groups() for name, _city in zones})
