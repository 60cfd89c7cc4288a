// The closed-loop load of bench/peer.py against a boardgame.io server:
//   node client.js --port P --matches 60 --seats 5 --clients 8 --warmup W --seconds T --seed S
// Creates the matches and joins every seat through the lobby API, connects one socket.io connection per seat (as
// each player's page would) and syncs it with its credentials, then runs --clients loops: each picks a random seat
// and room and emits the move exactly as boardgame.io's own client does ('update' with the credentialed MAKE_MOVE
// action, the match's last known stateID, the matchID and the playerID), then waits for its acknowledgement -- the
// server's 'update' to that seat carrying the move in its log -- before the next. Prints a line {"event": "start"}
// when the measured part begins, then one JSON line of results.
'use strict';
const { io } = require('socket.io-client');
const { SecretDecision, ROOMS } = require('./game');

const opt = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const port = Number(opt('port'));
const matches = Number(opt('matches', '60'));
const seats = Number(opt('seats', '5'));
const clients = Number(opt('clients', '8'));
const warmup = Number(opt('warmup', '2'));
const seconds = Number(opt('seconds', '20'));
let seed = Number(opt('seed', '1'));
const base = `http://127.0.0.1:${port}`;
const name = SecretDecision.name;
const TIMEOUT_MS = 30000;

const random = () => {
  // mulberry32: the same seats and rooms for the same seed
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

async function post(path, body) {
  const reply = await fetch(base + path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!reply.ok) throw new Error(`POST ${path}: HTTP ${reply.status} ${await reply.text()}`);
  return reply.json();
}

async function inBatches(items, size, fn) {
  const out = [];
  for (let i = 0; i < items.length; i += size) out.push(...(await Promise.all(items.slice(i, i + size).map(fn))));
  return out;
}

function connect(seat) {
  // one player's connection: synced to its match, it receives every update of that match (its own view of it)
  return new Promise((resolve, reject) => {
    const socket = io(`${base}/${name}`, { transports: ['websocket'], reconnection: false, forceNew: true });
    seat.socket = socket;
    seat.waiting = []; // acknowledgements owed to this seat's moves, in the order they were sent
    const timer = setTimeout(() => reject(new Error(`seat ${seat.playerID} of ${seat.match.id}: no sync`)), TIMEOUT_MS);
    socket.on('connect_error', reject);
    socket.on('sync', (matchID, info) => {
      seat.match.stateID = Math.max(seat.match.stateID, info.state._stateID);
      clearTimeout(timer);
      resolve();
    });
    socket.on('update', (matchID, state, deltalog) => {
      const match = seat.match;
      match.stateID = Math.max(match.stateID, state._stateID);
      for (const entry of deltalog || []) {
        if (entry.action.payload.playerID === seat.playerID) seat.waiting.shift()?.(entry);
      }
    });
    socket.on('connect', () => socket.emit('sync', seat.match.id, seat.playerID, seat.credentials, seats));
  });
}

function move(seat, room) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no acknowledgement')), TIMEOUT_MS);
    seat.waiting.push((entry) => {
      clearTimeout(timer);
      resolve(entry);
    });
    const action = {
      type: 'MAKE_MOVE',
      payload: { type: 'place', args: [room], playerID: seat.playerID, credentials: seat.credentials },
    };
    seat.socket.emit('update', action, seat.match.stateID, seat.match.id, seat.playerID);
  });
}

async function run(all, stopAt) {
  const stats = { moves: 0, errors: {}, latencies: [] };
  const loop = async () => {
    while (performance.now() < stopAt) {
      const seat = all[Math.floor(random() * all.length)];
      const room = ROOMS[Math.floor(random() * ROOMS.length)];
      const t0 = performance.now();
      try {
        await move(seat, room);
        stats.moves += 1;
        stats.latencies.push(performance.now() - t0);
      } catch (err) {
        stats.errors[err.message] = (stats.errors[err.message] || 0) + 1;
        if (stats.errors[err.message] > 10) throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: clients }, loop));
  return stats;
}

const percentile = (xs, q) => {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};

async function main() {
  const t0 = performance.now();
  const ids = await inBatches([...Array(matches).keys()], 8, () => post(`/games/${name}/create`, { numPlayers: seats }));
  const all = [];
  for (const { matchID } of ids) {
    const match = { id: matchID, stateID: 0 };
    for (let p = 0; p < seats; p++) all.push({ match, playerID: String(p) });
  }
  // a match's seats one after the other: the lobby's join reads and writes the match's metadata whole, and FlatFile
  // does not serialise two joins of one match (one player's credentials would be lost)
  await inBatches(ids, 8, async ({ matchID }) => {
    for (const seat of all.filter((s) => s.match.id === matchID)) {
      const joined = await post(`/games/${name}/${matchID}/join`, {
        playerID: seat.playerID,
        playerName: `Player ${seat.playerID}`,
      });
      seat.credentials = joined.playerCredentials;
    }
  });
  await inBatches(all, 20, connect);
  process.stderr.write(
    `  ${matches} matches x ${seats} seats created, joined and connected in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
  );

  await run(all, performance.now() + warmup * 1000);
  process.stdout.write(JSON.stringify({ event: 'start' }) + '\n');
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  const stats = await run(all, start + seconds * 1000);
  const elapsed = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const states = [...new Set(all.map((s) => s.match))].map((m) => m.stateID);
  process.stdout.write(
    JSON.stringify({
      moves: stats.moves,
      seconds: Number(elapsed.toFixed(3)),
      moves_per_s: Number((stats.moves / elapsed).toFixed(1)),
      errors: stats.errors,
      p50_ms: Number(percentile(stats.latencies, 0.5).toFixed(2)),
      p99_ms: Number(percentile(stats.latencies, 0.99).toFixed(2)),
      client_cpu_s: Number(((cpu.user + cpu.system) / 1e6).toFixed(2)),
      moves_per_match_at_end: Number((states.reduce((a, b) => a + b, 0) / states.length).toFixed(1)),
    }) + '\n',
  );
  for (const seat of all) seat.socket.close();
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`${err.stack || err}\n`);
    process.exit(1);
  },
);
