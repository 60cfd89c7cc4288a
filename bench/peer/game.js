// The secret simultaneous decision of bench/peer.py as a boardgame.io 0.50 game: every player is active at once
// (ActivePlayers.ALL), each picks one of six rooms (Mall of Horror's first decision), kept in G.players[id] that
// PlayerView.STRIP_SECRETS hides from the others; the move's arguments are redacted from the others' log. A player may
// change the pick again and again (each move overwrites it) while the turn stays open: nothing ends it.
'use strict';
const { ActivePlayers, INVALID_MOVE, PlayerView } = require('boardgame.io/core');

const ROOMS = [1, 2, 3, 4, 5, 6];

const SecretDecision = {
  name: 'secret-decision',
  minPlayers: 3,
  maxPlayers: 6,
  setup: ({ ctx }) => ({
    players: Object.fromEntries(ctx.playOrder.map((id) => [id, { room: null }])),
    answered: Object.fromEntries(ctx.playOrder.map((id) => [id, false])),
  }),
  turn: { activePlayers: ActivePlayers.ALL },
  moves: {
    place: {
      move: ({ G, playerID }, room) => {
        if (!ROOMS.includes(room)) return INVALID_MOVE;
        G.players[playerID].room = room;
        G.answered[playerID] = true;
      },
      redact: true, // the others' log shows that a player moved, not where
      client: false, // decided by the server only, as deadmail's answers
      ignoreStaleStateID: true, // the others' moves in between do not make a player's pick stale
    },
  },
  playerView: PlayerView.STRIP_SECRETS,
};

module.exports = { SecretDecision, ROOMS };
