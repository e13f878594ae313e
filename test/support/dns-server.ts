import dgram from 'node:dgram';
import type { AddressInfo } from 'node:net';

const TYPE_NS = 2;
const RCODE = { noError: 0, serverFailure: 2, nameError: 3 } as const;

function encodeName(name: string): Buffer {
  const parts = name.replace(/\.$/, '').split('.').filter(Boolean).map((label) => Buffer.concat([Buffer.from([label.length]), Buffer.from(label)]));
  return Buffer.concat([...parts, Buffer.from([0])]);
}

function readQuestion(message: Buffer): { name: string; type: number; end: number } {
  const labels: string[] = [];
  let offset = 12;
  while (message[offset] !== 0) {
    const length = message[offset];
    labels.push(message.subarray(offset + 1, offset + 1 + length).toString());
    offset += length + 1;
  }
  return { name: labels.join('.').toLowerCase(), type: message.readUInt16BE(offset + 1), end: offset + 5 };
}

/**
 * A tiny authoritative DNS server on 127.0.0.1 answering NS queries from a
 * mutable table, so delegation checks run through the real resolver path.
 * Names listed in `failing` answer SERVFAIL; unknown names answer NXDOMAIN.
 */
export class FakeDnsServer {
  readonly delegations = new Map<string, string[]>();
  readonly failing = new Set<string>();
  private constructor(private readonly socket: dgram.Socket) {}

  static async start(): Promise<FakeDnsServer> {
    const socket = dgram.createSocket('udp4');
    const server = new FakeDnsServer(socket);
    socket.on('message', (message, peer) => socket.send(server.answer(message), peer.port, peer.address));
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    return server;
  }

  get address(): string {
    return `127.0.0.1:${(this.socket.address() as AddressInfo).port}`;
  }

  private answer(query: Buffer): Buffer {
    const question = readQuestion(query);
    const nameservers = this.delegations.get(question.name);
    const rcode = this.failing.has(question.name) ? RCODE.serverFailure : nameservers ? RCODE.noError : RCODE.nameError;
    const answers = rcode === RCODE.noError && question.type === TYPE_NS ? nameservers! : [];
    const header = Buffer.alloc(12);
    header.writeUInt16BE(query.readUInt16BE(0), 0);
    header.writeUInt16BE(0x8000 | (query.readUInt16BE(2) & 0x0100) | 0x0400 | 0x0080 | rcode, 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    const records = answers.map((host) => {
      const data = encodeName(host);
      const fixed = Buffer.alloc(12);
      fixed.writeUInt16BE(0xc00c, 0);
      fixed.writeUInt16BE(TYPE_NS, 2);
      fixed.writeUInt16BE(1, 4);
      fixed.writeUInt32BE(300, 6);
      fixed.writeUInt16BE(data.length, 10);
      return Buffer.concat([fixed, data]);
    });
    return Buffer.concat([header, query.subarray(12, question.end), ...records]);
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.socket.close(() => resolve()));
  }
}
