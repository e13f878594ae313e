/** Why the edge could not get a response from an origin. */
export type OriginErrorKind = 'connect' | 'tls' | 'timeout' | 'invalid_response' | 'breaker_open' | 'no_origin' | 'too_large' | 'overloaded';

/**
 * A connection failure on a reused keep-alive connection before any response
 * byte: the origin most likely closed it as idle while the request was on its
 * way (the keep-alive race of RFC 9112 §9.3.1). `unsent` when no request byte
 * reached the connection either.
 */
export type StaleConnection = 'sent' | 'unsent';

/**
 * A failure the edge itself answers with a CDN error page (an origin's own 5xx
 * is a response, never an OriginError). `message` may name internal addresses
 * and is for logs only; the error page says only what `kind` means.
 */
export class OriginError extends Error {
  constructor(
    readonly kind: OriginErrorKind,
    message: string = kind,
    /** The origin the failed attempt went to, when there was one. */
    readonly originId?: string,
    /** Set when the failure is the keep-alive race on a reused connection rather than the origin's. */
    readonly stale?: StaleConnection,
    /** Set when the origin's answer was valid HTTP the edge's client cannot take (an unsolicited 100 Continue): not held against it. */
    readonly clientLimit = false,
  ) {
    super(message);
    this.name = 'OriginError';
  }
}

/** The status and the visitor-facing sentence of the CDN error page for `kind`. */
export function errorPageFor(kind: OriginErrorKind): { status: number; detail: string } {
  switch (kind) {
    case 'connect':
      return { status: 502, detail: 'The edge could not connect to the site\'s server.' };
    case 'tls':
      return { status: 502, detail: 'The edge could not establish a secure connection to the site\'s server.' };
    case 'timeout':
      return { status: 504, detail: 'The site\'s server did not answer in time.' };
    case 'invalid_response':
      return { status: 502, detail: 'The site\'s server sent a response the edge cannot pass on.' };
    case 'breaker_open':
      return { status: 503, detail: 'The site\'s servers are failing; the edge is giving them a moment to recover.' };
    case 'no_origin':
      return { status: 503, detail: 'The site has no server available to answer.' };
    case 'overloaded':
      return { status: 503, detail: 'The site\'s server is at its connection limit; try again shortly.' };
    case 'too_large':
      return { status: 413, detail: 'The request body is larger than the edge accepts.' };
  }
}

/**
 * The kind of a socket or parser error of an origin request: invalid_response
 * when the HTTP parser refused what came back (Node's HPE_* codes, undici's
 * HTTPParserError: not an HTTP response), tls during the handshake, else
 * connect (refused, reset, lost).
 */
export function failureKindOf(error: Error & { code?: string }, handshaking: boolean): 'connect' | 'tls' | 'invalid_response' {
  if (error.code?.startsWith('HPE_') || error.name === 'HTTPParserError') return 'invalid_response';
  return handshaking ? 'tls' : 'connect';
}

/**
 * True for a status the edge passes on from an origin: any three-digit code from
 * 100 (Node's parser reads no other). RFC 9110 §15 calls 600-999 invalid but
 * nginx and Varnish pass them on, and clients treat them as 5xx; below 100 there
 * is no status class at all, and Node could not write it: 502 (invalid_response).
 */
export function isPassableStatus(status: number): boolean {
  return status >= 100 && status <= 999;
}

/** The client went away while the edge waited for the origin: no verdict on the origin, nothing to answer. */
export class ClientClosedError extends Error {
  constructor() {
    super('the client closed the connection before the origin answered');
    this.name = 'ClientClosedError';
  }
}
