// The ceilings of `npm run bench:edge` and `npm run bench:tls`: what node:http itself does on this
// machine, with none of the edge's work, measured in the same run as the edge and nginx.
//   node bench/bare-node.mjs proxy <port> <originPort>  a keep-alive proxy (DESIGN.md's "raw node:http proxy")
//   node bench/bare-node.mjs undici-proxy <port> <originPort>  the same proxy on undici's Pool.dispatch, the client the edge uses
//   node bench/bare-node.mjs cache <port> <originPort>  answers every request from a Map holding the
//                                                       origin's /hit/1 (DESIGN.md's "raw node:http server answering from a Map")
//   node bench/bare-node.mjs tls-cache <port> <originPort> <certificates>  the same over node:https, the
//                                                       certificate picked by SNI from a Map of a context per
//                                                       name of <certificates>/<apex>.pem and .key (apex and www)
// Two workers (cluster) unless BARE_NODE_WORKERS says otherwise. Plain JavaScript, run by node without tsx;
// it takes keepNextTickShape from the compiled lib/ (npm ci and npm test build it).
import cluster from 'node:cluster';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import tls from 'node:tls';
import { Pool } from 'undici';
import { keepNextTickShape } from '../lib/shared/next-tick-shape.js';

const [mode, port, originPort, certificates] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4]), process.argv[5]];
// Two workers, as the edge runs in the bench; BARE_NODE_WORKERS sets another number (one under callgrind).
const WORKERS = Number(process.env.BARE_NODE_WORKERS ?? 2);

function proxy() {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  return (req, res) => {
    const upstream = http.request({ host: '127.0.0.1', port: originPort, path: req.url, method: req.method, headers: req.headers, agent }, (response) => {
      res.writeHead(response.statusCode ?? 502, response.headers);
      response.pipe(res);
    });
    upstream.on('error', () => {
      res.statusCode = 502;
      res.end();
    });
    req.pipe(upstream);
  };
}

// Hop-by-hop headers, which undici refuses to be given (it frames the message itself).
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'expect']);

function endToEnd(headers) {
  const kept = {};
  for (const name in headers) if (!HOP_BY_HOP.has(name)) kept[name] = headers[name];
  return kept;
}

function undiciProxy() {
  const pool = new Pool(`http://127.0.0.1:${originPort}`, { connections: 256 });
  return (req, res) => {
    const body = req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined ? null : req;
    pool.dispatch({ path: req.url, method: req.method, headers: endToEnd(req.headers), body }, {
      onRequestStart() {},
      onResponseStart(controller, status, headers) {
        res.writeHead(status, endToEnd(headers));
        res.on('drain', () => controller.resume());
      },
      onResponseData(controller, chunk) {
        if (!res.write(chunk)) controller.pause();
      },
      onResponseEnd() {
        res.end();
      },
      onResponseError() {
        if (!res.headersSent) res.statusCode = 502;
        res.end();
      },
    });
  };
}

async function cache() {
  const response = await fetch(`http://127.0.0.1:${originPort}/hit/1`);
  const body = Buffer.from(await response.arrayBuffer());
  const stored = new Map([['/hit/1', { body, storedAt: Date.now(), type: response.headers.get('content-type'), cacheControl: response.headers.get('cache-control') }]]);
  return (req, res) => {
    const entry = stored.get(req.url);
    if (!entry) {
      res.writeHead(404, { 'content-length': 0 }).end();
      return;
    }
    const age = String(Math.floor((Date.now() - entry.storedAt) / 1000));
    res.writeHead(200, { 'content-type': entry.type, 'content-length': entry.body.length, 'cache-control': entry.cacheControl, age, 'x-cache': 'HIT' });
    res.end(entry.body);
  };
}

function contextsByName() {
  const contexts = new Map();
  for (const file of readdirSync(certificates)) {
    if (!file.endsWith('.pem') || file === 'ca.pem') continue;
    const apex = file.slice(0, -'.pem'.length);
    const context = tls.createSecureContext({ cert: readFileSync(path.join(certificates, file)), key: readFileSync(path.join(certificates, `${apex}.key`)) });
    contexts.set(apex, context).set(`www.${apex}`, context);
  }
  return contexts;
}

// Each worker its own listening socket (SO_REUSEPORT) where the runtime has it (Node 22.12 and
// later), else the cluster primary's round-robin: as the edge listens.
const address = { port, host: '127.0.0.1', reusePort: true };

function listen(handler) {
  if (mode !== 'tls-cache') return http.createServer(handler).listen(address);
  const contexts = contextsByName();
  const SNICallback = (servername, callback) => callback(null, contexts.get(servername));
  return https.createServer({ SNICallback, minVersion: 'TLSv1.2', ALPNProtocols: ['http/1.1'] }, handler).listen(address);
}

// As `cdn` does (src/shared/next-tick-shape.ts): idle between its turns in the bench, a process would
// otherwise risk V8's slow path for every nextTick, and the ceiling would move.
keepNextTickShape();

if (cluster.isPrimary) {
  let listening = 0;
  for (let i = 0; i < WORKERS; i++) {
    // A worker on its own socket (reusePort) tells no cluster 'listening': each says so itself.
    cluster.fork().on('message', (message) => {
      if (message === 'listening' && ++listening === WORKERS) process.send?.('listening');
    });
  }
  process.on('SIGTERM', () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.kill();
    process.exit(0);
  });
} else {
  const handler = mode === 'proxy' ? proxy() : mode === 'undici-proxy' ? undiciProxy() : await cache();
  listen(handler).on('listening', () => process.send('listening'));
}
