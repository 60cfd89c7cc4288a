"""Events packed for storage (issue 15): an ``event_batches`` row holds its list of engine events as compact JSON
compressed by deflate with a preset dictionary, about a fifth of the JSON's bytes (PostgreSQL compresses only values
over 2 KB, and without a dictionary). The first byte names the dictionary: a dictionary, once used, never changes
(stored rows need it); a better one gets the next number and ``unpack_events`` reads both."""

from __future__ import annotations

import json
import zlib
from typing import Any

#: dictionary 1: typical events of bot games, the most frequent last (deflate finds near matches cheaper).
_EVENTS_1 = (
    '{"type":"chief_passed","chief":"red"}',
    '{"type":"gift_received","player":"blue","card":"sprint","giver":"yellow","to":["blue","yellow"]}',
    '{"type":"attack_no_target","location":1}',
    '{"type":"attack_held","location":3,"zombies":1,"threshold":2}',
    '{"type":"gift_received","player":"yellow","card":"threat","giver":"green","to":["yellow","green"]}',
    '{"type":"votes_revealed","location":4,"revote":false,"votes":{"green":"yellow","yellow":"yellow"},"weights":{"green":1,"yellow":2},"totals":{"yellow":3}}',
    '{"type":"attack_held","location":6,"zombies":2,"threshold":3}',
    '{"type":"chief_passed","chief":"green"}',
    '{"type":"moved","player":"yellow","character":"pinup","origin":3,"target":1,"location":1}',
    '{"type":"moved","player":"red","character":"pinup","origin":3,"target":6,"location":6}',
    '{"type":"card_dealt","player":"yellow","card":"hardware","to":["yellow"]}',
    '{"type":"placement_dice","player":"yellow","dice":[6,5]}',
    '{"type":"destination_announced","player":"red","location":1}',
    '{"type":"card_kept","player":"blue","card":"sprint","reason":"destination_has_room","to":["blue"]}',
    '{"type":"destination_announced","player":"yellow","location":3}',
    '{"type":"first_chief","chief":"red","drawn":true}',
    '{"type":"card_dealt","player":"red","card":"threat","to":["red"]}',
    '{"type":"placement_dice","player":"green","dice":[1,5]}',
    '{"type":"first_chief","chief":"yellow","drawn":true}',
    '{"type":"eaten","player":"blue","character":"pinup","location":4}',
    '{"type":"card_kept","player":"green","card":"sprint","reason":"destination_has_room","to":["green"]}',
    '{"type":"placed","player":"blue","character":"gunman","location":1}',
    '{"type":"placed","player":"red","character":"pinup","location":3}',
    '{"type":"card_played","player":"green","card":"camera"}',
    '{"type":"card_played","player":"red","card":"camera"}',
    '{"type":"no_election","chief":"yellow"}',
    '{"type":"truck_searched","player":"green","drew":3,"gave_to":"yellow"}',
    '{"type":"truck_searched","player":"green","drew":3,"gave_to":"red"}',
    '{"type":"eliminated","player":"blue"}',
    '{"type":"eliminated","player":"green"}',
    '{"type":"eaten","player":"green","character":"tough","location":4}',
    '{"type":"no_election","chief":"blue"}',
    '{"type":"zombies_left","location":5,"zombies":3}',
    '{"type":"extra_zombies","most_characters":4,"most_pinups":4}',
    '{"type":"zombies_left","location":4,"zombies":1}',
    '{"type":"vote_uncontested","location":4,"colour":"blue"}',
    '{"type":"answer_auto","player":"red","kind":"move","answer":{"character":"tough"},"to":["red"]}',
    '{"type":"vote_uncontested","location":4,"colour":"green"}',
    '{"type":"chief_elected","chief":"yellow"}',
    '{"type":"chief_elected","chief":"red"}',
    '{"type":"truck_skipped","reason":"parking_empty"}',
    '{"type":"answer_auto","player":"blue","kind":"move","answer":{"character":"tough"},"to":["blue"]}',
    '{"type":"round_started","round":2,"phase":"truck"}',
    '{"type":"round_started","round":1,"phase":"truck"}',
    '{"type":"extra_zombies","most_characters":null,"most_pinups":null}',
    '{"type":"attack","location":4,"zombies":2,"strength":0}',
    '{"type":"attack","location":4,"zombies":1,"strength":0}',
)
DICTIONARIES = {1: "".join(_EVENTS_1).encode()}
#: the dictionary new rows are packed with.
CURRENT = 1


def pack_events(events: list[dict[str, Any]]) -> bytes:
    """``events`` as an ``event_batches.events`` value: the dictionary's number, then raw deflate of compact JSON."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -15, 9, zlib.Z_DEFAULT_STRATEGY, DICTIONARIES[CURRENT])
    text = json.dumps(events, separators=(",", ":")).encode()
    return bytes([CURRENT]) + packer.compress(text) + packer.flush()


def unpack_events(packed: bytes) -> list[dict[str, Any]]:
    """The events ``pack_events`` packed."""
    unpacker = zlib.decompressobj(-15, DICTIONARIES[packed[0]])
    events: list[dict[str, Any]] = json.loads(unpacker.decompress(packed[1:]) + unpacker.flush())
    return events
