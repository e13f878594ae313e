import type { IncomingMessage } from 'node:http';
import { promisify } from 'node:util';
import { brotliDecompress, gunzip, inflate, type ZlibOptions } from 'node:zlib';
import type { RequestHandler } from 'express';
import { BadRequestError, bodyTooLarge, unreadableBody, unsupportedBodyEncoding } from './errors.js';
import type { Route } from './route.js';

// Signed edge requests hash the body bytes exactly as they travel (compressed when
// the edge compresses, whatever the content type), so an edge in any language signs
// what it sends. express.json only shows the decompressed JSON, so edge routes read
// their body here instead: the wire bytes become `rawBody`, and a JSON body is
// decoded and parsed as express.json would have.

type Decoder = (input: Buffer, options: ZlibOptions) => Promise<Buffer>;

const DECODERS: Record<string, Decoder> = {
  gzip: promisify(gunzip),
  'x-gzip': promisify(gunzip),
  deflate: promisify(inflate),
  br: promisify(brotliDecompress) as Decoder,
};
const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json$/;

function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');
}

// The body as received, refused once it passes `limit` (the rest is not read).
function readWire(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    if (Number(req.headers['content-length']) > limit) return reject(bodyTooLarge(limit));
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      req.off('data', onData);
      req.pause();
      reject(bodyTooLarge(limit));
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

async function decode(wire: Buffer, contentEncoding: string | undefined, limit: number): Promise<Buffer> {
  const coding = (contentEncoding ?? 'identity').trim().toLowerCase();
  if (coding === 'identity') return wire;
  const decoder = DECODERS[coding];
  if (!decoder) throw unsupportedBodyEncoding(`Content-Encoding ${coding} is not supported (use gzip, deflate or br)`);
  try {
    return await decoder(wire, { maxOutputLength: limit });
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw bodyTooLarge(limit);
    throw unreadableBody(`it is not valid ${coding}`);
  }
}

function jsonBody(decoded: Buffer, contentType: string): unknown {
  const [type, ...parameters] = contentType.split(';').map((part) => part.trim().toLowerCase());
  if (!JSON_TYPE.test(type)) return undefined;
  // An empty JSON body reads as {}, as express.json reads it, so validation names the missing fields.
  if (decoded.length === 0) return {};
  const charset = parameters.find((parameter) => parameter.startsWith('charset='))?.slice('charset='.length).replaceAll('"', '');
  if (charset && charset !== 'utf-8' && charset !== 'utf8') throw unsupportedBodyEncoding(`charset ${charset} is not supported (use utf-8)`);
  try {
    return JSON.parse(decoded.toString('utf8'));
  } catch (error) {
    throw new BadRequestError('malformed JSON body', (error as Error).message);
  }
}

/**
 * Reads the body of a request to a signed edge route: `rawBody` is the bytes on
 * the wire (what the signature covers), and when the route takes a body, a JSON
 * one is decoded (identity, gzip, deflate, br) and parsed into `body`.
 */
export function edgeBodyReader(route: Route, limit: number): RequestHandler {
  const parse = Boolean(route.body);
  return (req, _res, next) => {
    if (!hasBody(req)) return next();
    void (async () => {
      const wire = await readWire(req, limit);
      (req as typeof req & { rawBody: Buffer }).rawBody = wire;
      if (parse && req.headers['content-type']) req.body = jsonBody(await decode(wire, req.headers['content-encoding'], limit), req.headers['content-type']);
    })().then(() => next(), next);
  };
}
