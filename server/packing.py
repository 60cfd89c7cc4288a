"""Values packed for storage: an ``event_batches`` row holds its list of engine events, a game its saved
game and snapshot (``models.Packed``), as compact JSON compressed by deflate with a preset dictionary, about a
fifth of the JSON's bytes, a saved game about a fourteenth (PostgreSQL compresses only values over 2 KB, and without
a dictionary: a third). The first byte names the dictionary: a dictionary, once used, never changes (stored rows
need it); a better one gets the next number and ``unpack`` reads them all."""

from __future__ import annotations

import json
import zlib
from typing import cast

from engine.shapes import JSON, Event

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
#: dictionary 2: a finished bot game's snapshot, then its saved game (``engine.Game.to_json``), compact JSON.
_GAME_2 = (
    '{"format":"deadmail-snapshot/1","log":116,"events":177,"window_no":47,"rng":129,"dice_used":50,"standing":{},"',
    'state":{"round":5,"phase":"attack","chief":"yellow","chief_elected":true,"closed":[],"characters":{"red":{},"y',
    'ellow":{"gunman":3},"blue":{"gunman":4},"green":{"pinup":4,"gunman":3},"black":{"pinup":3}},"zombies":{"1":0,"',
    '2":2,"3":2,"4":0,"5":0,"6":0},"hands":{"red":[],"yellow":[],"blue":[],"green":["sprint"],"black":["hardware"]}',
    ',"deck":["hardware","bat","sprint","shotgun","threat","sprint","camera","hidden"],"eliminated":{"red":4},"dice',
    '":null,"played":["camera","chainsaw","hidden","threat","pistol","axe","camera","grenade","hidden","hardware","',
    'threat"],"hidden":[],"hardware":0,"threats":{},"destinations":{},"moved":{}}}',
    '{"format":"deadmail-engine/1","config":{"players":["red","yellow","blue","green","black"],"seed":101,"options"',
    ':{"turn_order":"batched","sprint_timing":"on_move","attack_tie_pool":"present","zombie_player":"next_round","a',
    'ttack_cards":"present","first_chief":"random","weapons":{"axe":1,"pistol":1,"bat":1,"shotgun":2,"grenade":2,"c',
    'hainsaw":2}},"position":null,"dice":[],"standing_orders":{}},"log":[',
    '{"player":"red","kind":"place","answer":{"character":"gunman","location":4}},',
    '{"player":"yellow","kind":"place","answer":{"character":"tough","location":2,"fallback":4}},',
    '{"player":"blue","kind":"place","answer":{"character":"tough","location":2,"fallback":4}},',
    '{"player":"green","kind":"place","answer":{"character":"tough","location":3}},',
    '{"player":"black","kind":"place","answer":{"character":"gunman","location":2,"fallback":3}},',
    '{"player":"red","kind":"place","answer":{"character":"pinup","location":4}},',
    '{"player":"yellow","kind":"place","answer":{"character":"pinup","location":6}},',
    '{"player":"blue","kind":"place","answer":{"character":"pinup","location":5}},',
    '{"player":"green","kind":"place","answer":{"character":"pinup","location":2}},',
    '{"player":"black","kind":"place","answer":{"character":"pinup","location":3}},',
    '{"player":"yellow","kind":"place","answer":{"character":"gunman","location":5}},',
    '{"player":"black","kind":"place","answer":{"character":"tough","location":3}},',
    '{"player":"red","kind":"truck","answer":{"keep":"hidden","give":"pistol","to":"black"}},',
    '{"player":"yellow","kind":"vote","answer":"blue"},',
    '{"player":"blue","kind":"vote","answer":"blue"},',
    '{"player":"green","kind":"vote","answer":"yellow"},',
    '{"player":"yellow","kind":"cards","answer":[{"card":"camera"}]},',
    '{"player":"blue","kind":"announce","answer":3},',
    '{"player":"green","kind":"destination","answer":4},',
    '{"player":"black","kind":"destination","answer":5},',
    '{"player":"red","kind":"destination","answer":2},',
    '{"player":"yellow","kind":"destination","answer":2},',
    '{"player":"blue","kind":"move","answer":{"character":"tough"}},',
    '{"player":"green","kind":"move","answer":{"character":"pinup"}},',
    '{"player":"black","kind":"move","answer":{"character":"tough"}},',
    '{"player":"red","kind":"move","answer":{"character":"pinup"}},',
    '{"player":"yellow","kind":"move","answer":{"character":"pinup"}},',
    '{"player":"blue","kind":"cards","answer":[{"card":"chainsaw","if_needed":false}]},',
    '{"player":"green","kind":"cards","answer":[]},',
    '{"player":"black","kind":"cards","answer":[]},',
    '{"player":"red","kind":"cards","answer":[]},',
    '{"player":"red","kind":"cards","answer":[{"card":"hidden","character":"tough","if_needed":false}]},',
    '{"player":"black","kind":"cards","answer":[{"card":"threat"}]},',
    '{"player":"blue","kind":"vote","answer":"red"},',
    '{"player":"green","kind":"vote","answer":"black"},',
    '{"player":"black","kind":"vote","answer":"blue"},',
    '{"player":"red","kind":"vote","answer":"black"},',
    '{"player":"black","kind":"truck","answer":{"keep":"camera","give":"hidden","to":"yellow"}},',
    '{"player":"blue","kind":"vote","answer":"green"},',
    '{"player":"green","kind":"vote","answer":"blue"},',
    '{"player":"yellow","kind":"vote","answer":"green"},',
    '{"player":"black","kind":"cards","answer":[]},',
    '{"player":"green","kind":"announce","answer":6},',
    '{"player":"black","kind":"destination","answer":2},',
    '{"player":"red","kind":"destination","answer":3},',
    '{"player":"yellow","kind":"destination","answer":6},',
    '{"player":"blue","kind":"destination","answer":1},',
    '{"player":"green","kind":"move","answer":{"character":"tough"}},',
    '{"player":"black","kind":"move","answer":{"character":"tough"}},',
    '{"player":"red","kind":"move","answer":{"character":"gunman"}},',
    '{"player":"yellow","kind":"move","answer":{"character":"tough"}},',
    '{"player":"blue","kind":"move","answer":{"character":"tough"}},',
    '{"player":"black","kind":"cards","answer":[{"card":"pistol","if_needed":true}]},',
    '{"player":"red","kind":"cards","answer":[{"card":"axe","if_needed":true}]},',
    '{"player":"yellow","kind":"cards","answer":[{"card":"hidden","character":"pinup","if_needed":true}]},',
    '{"player":"green","kind":"cards","answer":[]},',
    '{"player":"green","kind":"vote","answer":"black"},',
    '{"player":"black","kind":"vote","answer":"green"},',
    '{"player":"green","kind":"vote","answer":"black"},',
    '{"player":"black","kind":"vote","answer":"green"},',
    '{"player":"red","kind":"vote","answer":"black"},',
    '{"player":"yellow","kind":"vote","answer":"green"},',
    '{"player":"blue","kind":"vote","answer":"black"},',
    '{"player":"green","kind":"cards","answer":[]},',
    '{"player":"yellow","kind":"cards","answer":[]},',
    '{"player":"green","kind":"vote","answer":"red"},',
    '{"player":"red","kind":"vote","answer":"yellow"},',
    '{"player":"yellow","kind":"vote","answer":"yellow"},',
    '{"player":"green","kind":"truck","answer":{"keep":"sprint","give":"hardware","to":"black"}},',
    '{"player":"green","kind":"vote","answer":"yellow"},',
    '{"player":"yellow","kind":"vote","answer":"yellow"},',
    '{"player":"blue","kind":"vote","answer":"green"},',
    '{"player":"black","kind":"cards","answer":[{"card":"camera"}]},',
    '{"player":"yellow","kind":"announce","answer":4},',
    '{"player":"blue","kind":"destination","answer":4},',
    '{"player":"green","kind":"destination","answer":3},',
    '{"player":"black","kind":"destination","answer":6},',
    '{"player":"red","kind":"destination","answer":1},',
    '{"player":"yellow","kind":"move","answer":{"character":"pinup"}},',
    '{"player":"blue","kind":"move","answer":{"character":"gunman"}},',
    '{"player":"green","kind":"move","answer":{"character":"gunman"}},',
    '{"player":"black","kind":"move","answer":{"character":"gunman"}},',
    '{"player":"red","kind":"move","answer":{"character":"pinup"}},',
    '{"player":"yellow","kind":"cards","answer":[]},',
    '{"player":"green","kind":"cards","answer":[{"card":"grenade","if_needed":true}]},',
    '{"player":"yellow","kind":"cards","answer":[{"card":"hidden","character":"gunman","if_needed":false}]},',
    '{"player":"yellow","kind":"vote","answer":"green"},',
    '{"player":"blue","kind":"vote","answer":"yellow"},',
    '{"player":"green","kind":"vote","answer":"yellow"},',
    '{"player":"yellow","kind":"truck","answer":{"keep":"threat","give":"hardware","to":"red"}},',
    '{"player":"yellow","kind":"announce","answer":3},',
    '{"player":"blue","kind":"destination","answer":4},',
    '{"player":"green","kind":"destination","answer":4},',
    '{"player":"black","kind":"destination","answer":3},',
    '{"player":"red","kind":"destination","answer":5},',
    '{"player":"yellow","kind":"move","answer":{"character":"gunman"}},',
    '{"player":"green","kind":"move","answer":{"character":"tough","sprint":4,"sprint_if_full":true}},',
    '{"player":"red","kind":"move","answer":{"character":"gunman"}},',
    '{"player":"red","kind":"cards","answer":[{"card":"hardware","if_needed":false}]},',
    '{"player":"yellow","kind":"cards","answer":[]},',
    '{"player":"yellow","kind":"vote","answer":"black"},',
    '{"player":"blue","kind":"vote","answer":"black"},',
    '{"player":"green","kind":"vote","answer":"blue"},',
    '{"player":"black","kind":"vote","answer":"black"},',
    '{"player":"yellow","kind":"cards","answer":[{"card":"threat"}]},',
    '{"player":"yellow","kind":"vote","answer":"blue"},',
    '{"player":"blue","kind":"vote","answer":"green"},',
    '{"player":"green","kind":"vote","answer":"yellow"},',
    '{"player":"green","kind":"victim","answer":"tough"},',
    '{"player":"yellow","kind":"vote","answer":"green"},',
    '{"player":"blue","kind":"vote","answer":"blue"},',
    '{"player":"green","kind":"vote","answer":"blue"},',
    '{"player":"blue","kind":"victim","answer":"tough"},',
    '{"player":"yellow","kind":"vote","answer":"green"},',
    '{"player":"blue","kind":"vote","answer":"yellow"},',
    '{"player":"green","kind":"vote","answer":"blue"},',
    '{"player":"blue","kind":"vote","answer":"green"},',
    '{"player":"green","kind":"vote","answer":"blue"},',
    '{"player":"green","kind":"truck","answer":{"keep":"sprint","give":"bat","to":"black"}},',
    '{"player":"yellow","kind":"destination","answer":1},',
    '{"player":"blue","kind":"destination","answer":6},',
    '{"player":"green","kind":"destination","answer":6},',
    '{"player":"black","kind":"destination","answer":1},',
    '{"player":"red","kind":"zombie","answer":2},',
    '{"player":"green","kind":"move","answer":{"character":"gunman","sprint":4}},',
    '{"player":"green","kind":"victim","answer":"pinup"}',
    '],"snapshot":{"state":{"round":5,"phase":"over","chief":"yellow","chief_elected":false,"closed":[],"characters',
    '":{"red":{},"yellow":{"gunman":1},"blue":{"gunman":6},"green":{},"black":{"pinup":1}},"zombies":{"1":0,"2":3,"',
    '3":2,"4":0,"5":2,"6":0},"hands":{"red":[],"yellow":[],"blue":[],"green":["sprint"],"black":["hardware","bat"]}',
    ',"deck":["shotgun","threat","sprint","camera","hidden","hardware"],"eliminated":{"red":4,"green":5},"dice":nul',
    'l},"events":205,"window_no":52}}',
)
DICTIONARIES = {1: "".join(_EVENTS_1).encode(), 2: "".join(_GAME_2).encode()}
#: the dictionaries new rows are packed with: events, and saved games and snapshots.
CURRENT = 1
GAMES = 2


def pack(value: object, dictionary: int) -> bytes:
    """``value`` as compact JSON deflated with the preset ``dictionary``, after a byte naming it."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -15, 9, zlib.Z_DEFAULT_STRATEGY, DICTIONARIES[dictionary])
    text = json.dumps(value, separators=(",", ":")).encode()
    return bytes([dictionary]) + packer.compress(text) + packer.flush()


def unpack(packed: bytes) -> JSON:
    """The value ``pack`` packed, with whichever dictionary it names."""
    unpacker = zlib.decompressobj(-15, DICTIONARIES[packed[0]])
    return json.loads(unpacker.decompress(packed[1:]) + unpacker.flush())


def pack_events(events: list[Event]) -> bytes:
    """``events`` as an ``event_batches.events`` value."""
    return pack(events, CURRENT)


def unpack_events(packed: bytes) -> list[Event]:
    """The events ``pack_events`` packed."""
    return cast(list[Event], unpack(packed))  # what pack_events packed
