import type { IncomingMessage } from 'node:http';

/** The largest challenge solution body accepted, in bytes. */
export const MAX_SUBMISSION_BYTES = 4096;

const SUBMISSION_TIMEOUT_MS = 10_000;

/** A read body, or why there is none. */
export type SubmissionBody = { fields: URLSearchParams } | { status: 400 | 413 | 415; detail: string };

/**
 * Reads a challenge solution posted as a form (application/x-www-form-urlencoded),
 * at most MAX_SUBMISSION_BYTES and 10 s; never throws.
 */
export function readSubmission(req: IncomingMessage): Promise<SubmissionBody> {
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') return Promise.resolve({ status: 415, detail: 'The browser check answer must be a form post.' });
  if (Number(req.headers['content-length'] ?? 0) > MAX_SUBMISSION_BYTES) return Promise.resolve({ status: 413, detail: 'The browser check answer is too large.' });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (result: SubmissionBody): void => {
      clearTimeout(timer);
      req.off('data', onData).off('end', onEnd).off('error', onError).off('aborted', onError);
      if ('status' in result) req.resume();
      resolve(result);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > MAX_SUBMISSION_BYTES) finish({ status: 413, detail: 'The browser check answer is too large.' });
      else chunks.push(chunk);
    };
    const onEnd = (): void => finish({ fields: new URLSearchParams(Buffer.concat(chunks).toString('utf8')) });
    const onError = (): void => finish({ status: 400, detail: 'The browser check answer did not arrive whole.' });
    const timer = setTimeout(() => finish({ status: 400, detail: 'The browser check answer took too long to arrive.' }), SUBMISSION_TIMEOUT_MS);
    req.on('data', onData).on('end', onEnd).on('error', onError).on('aborted', onError);
  });
}

// A path on this host: one leading slash (not `//` or `/\`, which browsers read as another
// host), printable ASCII only (no control characters, nothing Node refuses in a header).
const SAME_HOST_PATH = /^\/(?![/\\])[\x21-\x7e]{0,2047}$/;

/** `target` when it is a same-host relative path safe to put in a Location, else undefined. */
export function sameHostPath(target: string | null | undefined): string | undefined {
  return typeof target === 'string' && SAME_HOST_PATH.test(target) ? target : undefined;
}
