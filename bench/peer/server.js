// boardgame.io 0.50's stock server (Koa, the lobby API, socket.io) for bench/peer.py:
//   node server.js --port P --storage inmemory|flatfile [--dir D]
'use strict';
const { Server, FlatFile } = require('boardgame.io/server');
const { SecretDecision } = require('./game');

const opt = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const port = Number(opt('port', '8000'));
const storage = opt('storage', 'inmemory');
let db; // undefined: the server's default, InMemory
if (storage === 'flatfile') db = new FlatFile({ dir: opt('dir') });
else if (storage !== 'inmemory') throw new Error(`unknown storage ${storage}`);

const server = Server({ games: [SecretDecision], db, origins: ['http://127.0.0.1'] });
const listen = server.app.listen; // koa-socket-2's, on the server socket.io shares: 127.0.0.1 only
server.app.listen = (p, callback) => listen.call(server.app, p, '127.0.0.1', callback);
server.run({ port, callback: () => process.stderr.write(`boardgame.io ${storage} on port ${port}\n`) });
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => process.exit(0));
