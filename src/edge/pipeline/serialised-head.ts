// The head of a response with a whole body, serialised by the edge in one string and handed to
// Node's writer as writeHead would have left it. writeHead validates, serialises and matches each
// field on its own (about 1,300 instructions a field, a tenth of a cached HIT's cost); here each
// distinct name is checked once and remembered, each value by the pattern Node checks it with, and
// the bytes on the wire are the same. Node's writer does the rest: the body, keep-alive, pipelined
// responses in order. docs/runtime.md, "The response head of a whole body".
import { STATUS_CODES, type ServerResponse } from 'node:http';
import { REFUSED_VALUE_CHAR } from './raw-head.js';
import type { ResponseHeaders } from './response.js';

/**
 * What of Node's ServerResponse this reads and sets beyond its public API (Node 20 and 24): the stored head
 * (`_header`, which writeHead sets and the first body write sends) and the keep-alive settings writeHead
 * reads (set by the server for each request). The byte-for-byte test against writeHead checks them
 * on the runtime the tests run on; where they are not there, nothing is stored (internalsAsExpected).
 */
type ResponseInternals = ServerResponse & {
  _header: string | null;
  _keepAliveTimeout: number;
  _maxRequestsPerSocket: number | null | undefined;
  _defaultKeepAlive: boolean;
  maxRequestsOnConnectionReached: boolean;
};

// A name Node's writer would write unchanged: a lower-case token, none of the names it treats
// specially (its connection, framing and trailer handling, its latin1 recoding of Content-Disposition).
const PLAIN_NAME = /^(?!(?:connection|content-disposition|expect|keep-alive|trailer|transfer-encoding)$)[!#$%&'*+\-.^_`|~0-9a-z]+$/;
/** How many plain names are remembered; past it, a name not remembered is checked each time. */
const MOST_NAMES_REMEMBERED = 1024;
// The same few dozen names come back on every response: a lookup costs less than the pattern.
const plainNames = new Set<string>();

function isPlainName(name: string): boolean {
  if (plainNames.has(name)) return true;
  if (!PLAIN_NAME.test(name)) return false;
  if (plainNames.size < MOST_NAMES_REMEMBERED) plainNames.add(name);
  return true;
}

/** Heads with more fields are left to writeHead. */
const MOST_FIELDS = 64;

const statusLines: (string | undefined)[] = new Array(1000);

// writeHead's reason phrase: the standard one, 'unknown' for a status without one.
function reasonOf(status: number): string {
  return STATUS_CODES[status] ?? 'unknown';
}

function statusLine(status: number): string {
  return (statusLines[status] ??= `HTTP/1.1 ${status} ${reasonOf(status)}\r\n`);
}

/**
 * Stores the head of a response with `status` and `headers` and a body on `res`, as writeHead would,
 * for a keep-alive connection whose head needs none of Node's special handling: a whole-number status
 * with a body and its standard reason, plain names (PLAIN_NAME) and string values Node accepts,
 * Content-Length and Date among them, at most MOST_FIELDS fields, no Expect on the request. The
 * fields are the object's own enumerable ones, as writeHead takes them, of a plain object or one
 * without a prototype (another prototype is left to writeHead). Answers false, having
 * changed nothing, in every other case: the caller uses writeHead. `requestId` is the request's id,
 * which the edge made of hex digits, a dash and base-36 digits: a value equal to it is not checked
 * again (built by concatenation, the id is the one value V8 would first copy flat).
 */
export function storeSerialisedHead(res: ServerResponse, status: number, headers: ResponseHeaders, requestExpects: boolean, requestId: string): boolean {
  const node = res as ResponseInternals;
  if (!node.shouldKeepAlive || node.maxRequestsOnConnectionReached || requestExpects || node.statusMessage || !internalsAsExpected(node)) return false;
  if ((status | 0) !== status || status < 200 || status > 999 || status === 204 || status === 304) return false;
  if (!ownFieldsOnly(headers)) return false;
  let fields = '';
  let count = 0;
  let hasLength = false;
  let hasDate = false;
  // for-in reads each value through V8's enum cache; Object.keys and a load by each name went
  // megamorphic (some 120 instructions a field, under callgrind). ownFieldsOnly makes it list
  // the own fields only, as Object.keys did.
  for (const name in headers) {
    if (++count > MOST_FIELDS) return false;
    const value = headers[name];
    // Each value by the pattern Node's writer checks it with (no CR or LF, so a line ends only where
    // the edge ends it). A flat string is read in place; one built by concatenation (the head, the
    // request id) would first be copied flat in a call into V8's runtime, which costs more than the check.
    if (typeof value !== 'string' || !isPlainName(name) || (value !== requestId && REFUSED_VALUE_CHAR.test(value))) return false;
    if (name === 'content-length') hasLength = true;
    else if (name === 'date') hasDate = true;
    fields += name + ': ' + value + '\r\n';
  }
  if (!hasLength || !hasDate) return false;
  res.statusCode = status;
  res.statusMessage = reasonOf(status);
  node._header = statusLine(status) + fields + keepAliveLines(node) + '\r\n';
  return true;
}

// True when for-in lists exactly the object's own enumerable fields: a plain object (or one
// without a prototype), and nothing enumerable added to Object.prototype.
function ownFieldsOnly(headers: ResponseHeaders): boolean {
  const prototype: unknown = Object.getPrototypeOf(headers);
  return prototype === null || (prototype === Object.prototype && !prototypeExtended());
}

function prototypeExtended(): boolean {
  for (const _name in Object.prototype) return true;
  return false;
}

// Nothing stored yet, and the keep-alive settings of the Node this was written for: a Node that
// renamed or dropped them gets writeHead rather than a response without a head.
function internalsAsExpected(res: ResponseInternals): boolean {
  return res._header === null && typeof res._keepAliveTimeout === 'number' && typeof res._defaultKeepAlive === 'boolean';
}

let keepAliveTimeoutMs: number | undefined;
let maxRequests: number | null | undefined;
let keepAlive: string | undefined;

// What writeHead adds on a keep-alive connection, for the server's keep-alive timeout and request limit (remembered: one server's).
function keepAliveLines(res: ResponseInternals): string {
  if (!res._defaultKeepAlive || !res._keepAliveTimeout) return 'Connection: keep-alive\r\n';
  if (keepAlive === undefined || res._keepAliveTimeout !== keepAliveTimeoutMs || res._maxRequestsPerSocket !== maxRequests) {
    keepAliveTimeoutMs = res._keepAliveTimeout;
    maxRequests = res._maxRequestsPerSocket;
    const max = ~~(maxRequests ?? 0) > 0 ? `, max=${maxRequests}` : '';
    keepAlive = `Connection: keep-alive\r\nKeep-Alive: timeout=${Math.floor(keepAliveTimeoutMs / 1000)}${max}\r\n`;
  }
  return keepAlive;
}
