// A plain node:http proxy the tests put between the agent and a real core, to take
// the core "down", lose answers after the core acted, or rewrite config answers.
import { createHash } from 'node:crypto';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

export type ProxyMode = 'pass' | 'down' | 'lose-answer';
/** `answerBytes`: the answer body's bytes as the core sent them (compressed when it was). */
export type SeenRequest = { method: string; path: string; body: any; answered: number | undefined; answerBytes?: number };

export class CoreProxy {
  mode: ProxyMode = 'pass';
  /** Rewrites the (decompressed) body of config answers that carry a snapshot; spoils those that carry a delta. */
  rewriteConfig: ((body: Buffer) => Buffer) | undefined;
  /** Answers a request itself instead of the core, when it returns an answer. */
  answer: ((seen: SeenRequest) => { status: number; body: unknown } | undefined) | undefined;
  readonly seen: SeenRequest[] = [];

  private constructor(
    private readonly server: Server,
    private readonly target: URL,
  ) {}

  static async start(target: string): Promise<CoreProxy> {
    const server = createServer();
    const proxy = new CoreProxy(server, new URL(target));
    server.on('request', (req, res) => void proxy.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Requests to `path` (without query) seen so far. */
  to(path: string): SeenRequest[] {
    return this.seen.filter((seen) => seen.path.split('?')[0] === path);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readAll(req);
    if (this.mode === 'down') {
      req.socket.destroy();
      return;
    }
    const seen: SeenRequest = { method: req.method!, path: req.url!, body: body.length ? JSON.parse(body.toString()) : undefined, answered: undefined };
    this.seen.push(seen);
    const canned = this.answer?.(seen);
    if (canned) {
      seen.answered = canned.status;
      res.writeHead(canned.status, { 'content-type': 'application/json' }).end(JSON.stringify(canned.body));
      return;
    }
    const upstream = await forward(this.target, req, body);
    if (this.mode === 'lose-answer') {
      req.socket.destroy();
      return;
    }
    seen.answered = upstream.status;
    seen.answerBytes = upstream.body.length;
    let answerBody = upstream.body;
    const headers = { ...upstream.headers };
    if (this.rewriteConfig && seen.path.startsWith('/api/v1/edge/config')) {
      if (headers['content-encoding'] === 'gzip') answerBody = gunzipSync(answerBody);
      delete headers['content-encoding'];
      if (answerBody.includes('"snapshot":')) answerBody = this.rewriteConfig(answerBody);
      // A delta is made not to apply, so the edge downloads the full snapshot, which is rewritten.
      else if (answerBody.includes('"delta":')) answerBody = Buffer.from(answerBody.toString().replace(/"since_checksum":"[0-9a-f]{64}"/, `"since_checksum":"${'0'.repeat(64)}"`));
    }
    delete headers['transfer-encoding'];
    headers['content-length'] = String(answerBody.length);
    res.writeHead(upstream.status, headers).end(answerBody);
  }
}

function readAll(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

function forward(target: URL, req: IncomingMessage, body: Buffer): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const headers = { ...req.headers, host: target.host };
    const sent = request({ hostname: target.hostname, port: target.port, path: req.url, method: req.method, headers }, async (response) => {
      resolve({ status: response.statusCode!, headers: response.headers, body: await readAll(response) });
    });
    sent.on('error', reject);
    sent.end(body);
  });
}

/** A config answer whose snapshot text went through `change`, with the checksum recomputed so only the change is wrong. */
export function rewriteSnapshot(body: Buffer, change: (snapshot: string) => string): Buffer {
  const start = body.indexOf('"snapshot":') + '"snapshot":'.length;
  const snapshot = Buffer.from(change(body.subarray(start, body.length - 2).toString()));
  const checksum = createHash('sha256').update(snapshot).digest('hex');
  const head = body.subarray(0, start).toString().replace(/"checksum":"[0-9a-f]{64}"/, `"checksum":"${checksum}"`);
  return Buffer.concat([Buffer.from(head), snapshot, Buffer.from('}}')]);
}
