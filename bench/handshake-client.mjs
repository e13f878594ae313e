// The load of `npm run bench:tls`'s handshake part, one process of it: `concurrency` loops, each
// opening a TLS connection to 127.0.0.1:<port> with a random SNI among www.benchN.example and
// benchN.example (N in 1..domains), no session to resume (every handshake is a full one), checking
// that the certificate names the SNI, then closing it; for `seconds`. Prints one JSON line:
// handshakes, failed (errors and wrong certificates), and the p50/p99 of the handshake time in ms.
import tls from 'node:tls';

const [port, domains, seconds, concurrency] = process.argv.slice(2).map(Number);
const latencies = [];
let failed = 0;
const deadline = Date.now() + seconds * 1000;

function randomName() {
  const apex = `bench${1 + Math.floor(Math.random() * domains)}.example`;
  return Math.random() < 0.5 ? apex : `www.${apex}`;
}

function handshake() {
  return new Promise((resolve) => {
    const servername = randomName();
    const started = process.hrtime.bigint();
    const socket = tls.connect({ host: '127.0.0.1', port, servername, rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] });
    let settled = false;
    socket.once('secureConnect', () => {
      settled = true;
      const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
      if (socket.getPeerCertificate().subjectaltname?.split(', ').includes(`DNS:${servername}`)) latencies.push(elapsed);
      else failed++;
      socket.end();
      resolve();
    });
    // An error after the handshake (the server closing first) is not a failed handshake.
    socket.on('error', () => {
      socket.destroy();
      if (settled) return;
      settled = true;
      failed++;
      resolve();
    });
  });
}

async function loop() {
  while (Date.now() < deadline) await handshake();
}

await Promise.all(Array.from({ length: concurrency }, loop));
const sorted = Float64Array.from(latencies).sort();
const at = (share) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))] ?? 0;
console.log(JSON.stringify({ handshakes: latencies.length, failed, p50: at(0.5), p99: at(0.99) }));
