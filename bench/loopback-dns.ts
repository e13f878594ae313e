// The resolver pebble asks in `npm run bench:tls`: every name is 127.0.0.1 (A); other types answer
// no records. So pebble validates HTTP-01 on the edge's plain port without a PowerDNS of its own.
import dgram from 'node:dgram';
import type { AddressInfo } from 'node:net';

const TYPE_A = 1;

/** The end of the question section (after QNAME, QTYPE, QCLASS) and its type. */
function question(message: Buffer): { type: number; end: number } {
  let offset = 12;
  while (message[offset] !== 0) offset += message[offset] + 1;
  return { type: message.readUInt16BE(offset + 1), end: offset + 5 };
}

function answer(query: Buffer): Buffer {
  const { type, end } = question(query);
  const header = Buffer.alloc(12);
  header.writeUInt16BE(query.readUInt16BE(0), 0);
  header.writeUInt16BE(0x8000 | (query.readUInt16BE(2) & 0x0100) | 0x0400 | 0x0080, 2);
  header.writeUInt16BE(1, 4);
  if (type !== TYPE_A) return Buffer.concat([header, query.subarray(12, end)]);
  header.writeUInt16BE(1, 6);
  const record = Buffer.from([0xc0, 0x0c, 0, TYPE_A, 0, 1, 0, 0, 0, 60, 0, 4, 127, 0, 0, 1]);
  return Buffer.concat([header, query.subarray(12, end), record]);
}

/** Starts the resolver on a free UDP port of 127.0.0.1: its address (`127.0.0.1:port`) and a stop function. */
export async function startLoopbackDns(): Promise<{ address: string; stop: () => void }> {
  const socket = dgram.createSocket('udp4');
  socket.on('message', (message, peer) => socket.send(answer(message), peer.port, peer.address));
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return { address: `127.0.0.1:${(socket.address() as AddressInfo).port}`, stop: () => socket.close() };
}
