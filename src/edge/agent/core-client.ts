// The edge's HTTP client to the core: every request signed (docs/edge-protocol.md),
// answers read with a size bound and decompressed, failures turned into one-line errors.
// node:http rather than fetch so the answer size is bounded before it is buffered.
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { signedHeaders } from '../../shared/signing.js';

const EDGE_ID = /^[A-Za-z0-9._-]{1,128}$/;
const TOKEN = /^[\x21-\x7e]{1,512}$/;
const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_ANSWER_BYTES = 8 * 1024 * 1024;
const HEAD_BYTES = 4096;
const DECODERS: Record<string, () => Transform> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/** An answer of the core, whatever its status; `body` is decompressed. */
export type CoreAnswer = { status: number; body: Buffer; requestId: string | undefined; json<T = unknown>(): T };

/** Why a request got no answer: the core unreachable, too slow, or an answer too large to read. */
export class CoreRequestError extends Error {
  constructor(
    message: string,
    readonly kind: 'unreachable' | 'timeout' | 'too_large' | 'bad_answer',
    /** For too_large: the first decoded bytes, enough to read what the answer was about. */
    readonly head?: Buffer,
  ) {
    super(message);
  }
}

/** `timeoutMs` replaces the client's timeout for this request (a long-poll is held longer); `signal` abandons it. */
export type SendOptions = { maxAnswerBytes?: number; timeoutMs?: number; signal?: AbortSignal };

export type CoreClient = {
  readonly edgeId: string;
  /** Sends one signed request with `body` as JSON; resolves with any HTTP answer, rejects with CoreRequestError when none came. */
  send(method: string, pathWithQuery: string, body?: unknown, options?: SendOptions): Promise<CoreAnswer>;
  /** Closes idle keep-alive connections. */
  close(): void;
};

export type CoreClientOptions = { coreUrl: string; edgeId: string; token: string; timeoutMs?: number };

/** A client signing every request with the edge token; throws at once on a bad URL, edge id or token. */
export function createCoreClient(options: CoreClientOptions): CoreClient {
  const base = parseCoreUrl(options.coreUrl);
  if (!EDGE_ID.test(options.edgeId)) throw new Error(`edge id ${JSON.stringify(options.edgeId.slice(0, 140))} must be 1-128 of A-Z a-z 0-9 . _ -`);
  if (!TOKEN.test(options.token)) throw new Error('the edge token must be 1-512 printable ASCII characters without spaces');
  const secure = base.protocol === 'https:';
  const agent = secure ? new HttpsAgent({ keepAlive: true, maxSockets: 8 }) : new HttpAgent({ keepAlive: true, maxSockets: 8 });
  const prefix = base.pathname.replace(/\/+$/, '');
  const defaultTimeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;

  const send = (method: string, pathWithQuery: string, body?: unknown, sendOptions: SendOptions = {}): Promise<CoreAnswer> => {
    const target = `${prefix}${pathWithQuery}`;
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers: Record<string, string> = {
      ...signedHeaders({ token: options.token, edgeId: options.edgeId, method, pathWithQuery: target, body: payload }),
      accept: 'application/json',
      'accept-encoding': 'gzip',
    };
    if (payload) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(payload.length);
    }
    const request = secure ? httpsRequest : httpRequest;
    const limit = sendOptions.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES;
    const timeoutMs = sendOptions.timeoutMs ?? defaultTimeoutMs;
    return new Promise<CoreAnswer>((resolve, reject) => {
      let settled = false;
      const finish = (error: CoreRequestError | undefined, answer?: CoreAnswer) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (error) reject(error);
        else resolve(answer!);
      };
      const sent = request({ protocol: base.protocol, hostname: base.hostname, port: base.port, path: target, method, headers, agent, signal: sendOptions.signal }, (response) => {
        readAnswer(response, limit).then(
          (answer) => finish(undefined, answer),
          (error: CoreRequestError) => {
            sent.destroy();
            finish(error);
          },
        );
      });
      const timer = setTimeout(() => {
        finish(new CoreRequestError(`core request ${method} ${pathWithQuery.split('?')[0]} timed out after ${timeoutMs} ms`, 'timeout'));
        sent.destroy();
      }, timeoutMs);
      sent.on('error', (error) => finish(new CoreRequestError(`core unreachable: ${oneLine(error.message)}`, 'unreachable')));
      sent.end(payload);
    });
  };

  return { edgeId: options.edgeId, send, close: () => agent.destroy() };
}

function parseCoreUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`CDN_EDGE_CORE_URL=${JSON.stringify(text.slice(0, 200))} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`CDN_EDGE_CORE_URL must be http or https, not ${url.protocol}`);
  if (url.search || url.hash || url.username || url.password) throw new Error('CDN_EDGE_CORE_URL must not carry a query, fragment or credentials');
  return url;
}

/** Reads the body, decoding it as it arrives, up to `limit` bytes on the wire and once decoded. */
function readAnswer(response: IncomingMessage, limit: number): Promise<CoreAnswer> {
  const encoding = String(response.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  const decoder = encoding === 'identity' ? undefined : DECODERS[encoding]?.();
  if (encoding !== 'identity' && !decoder) {
    response.destroy();
    return Promise.reject(new CoreRequestError(`core answered an unknown content-encoding ${JSON.stringify(encoding.slice(0, 40))}`, 'bad_answer'));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let wireBytes = 0;
    let size = 0;
    const fail = (error: CoreRequestError) => {
      response.destroy();
      decoder?.destroy();
      reject(error);
    };
    const output = decoder ?? response;
    response.on('data', (chunk: Buffer) => {
      wireBytes += chunk.length;
      if (wireBytes > limit) fail(tooLarge(limit, Buffer.concat(chunks)));
    });
    output.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) fail(tooLarge(limit, Buffer.concat([...chunks, chunk])));
      else chunks.push(chunk);
    });
    output.on('end', () => {
      const body = Buffer.concat(chunks);
      const requestId = typeof response.headers['x-request-id'] === 'string' ? response.headers['x-request-id'].slice(0, 128) : undefined;
      resolve({ status: response.statusCode ?? 0, body, requestId, json: <T>() => JSON.parse(body.toString('utf8')) as T });
    });
    response.on('error', (error) => fail(new CoreRequestError(`core answer cut off: ${oneLine(error.message)}`, 'unreachable')));
    decoder?.on('error', (error) => fail(new CoreRequestError(`core answer is not valid ${encoding}: ${oneLine(error.message)}`, 'bad_answer')));
    if (decoder) response.pipe(decoder);
  });
}

function tooLarge(limit: number, received: Buffer): CoreRequestError {
  return new CoreRequestError(`core answer exceeds ${limit} bytes`, 'too_large', received.subarray(0, HEAD_BYTES));
}

/** `text` on one line, bounded: for messages that end up in logs and /ready. */
export function oneLine(text: string, max = 300): string {
  // Control characters and line breaks become spaces: the text comes from the network.
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** The `error` and `detail` of a core error answer, as one line (`422 validation failed: events`). */
export function describeAnswer(answer: CoreAnswer): string {
  let text = '';
  try {
    const parsed = answer.json<{ error?: unknown; detail?: unknown; field?: unknown }>();
    text = [parsed.error, parsed.field, parsed.detail].filter((part) => typeof part === 'string' && part).join(': ');
  } catch {
    text = answer.body.subarray(0, 200).toString('utf8');
  }
  return oneLine(`${answer.status} ${text}`.trim());
}
