// The head of a response with a whole body, serialised by the edge in one string and handed to
// Node's writer as writeHead would have left it. writeHead validates, serialises and matches each
// field on its own (about 1,300 instructions a field, a tenth of a cached HIT's cost); here the
// fields are joined and checked by one pattern, and the bytes on the wire are the same. Node's writer
// does the rest: the body, keep-alive, pipelined responses in order. docs/runtime.md, "The
// response head of a whole body".
import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { ResponseHeaders } from './response.js';

/**
 * What of Node's ServerResponse this reads and sets beyond its public API (Node 20): the stored head
 * (`_header`, which writeHead sets and the first body write sends) and the keep-alive settings writeHead
 * reads (set by the server for each request). The byte-for-byte test against writeHead checks them
 * on the runtime the tests run on.
 */
type ResponseInternals = ServerResponse & {
  _header: string | null;
  _keepAliveTimeout: number;
  _maxRequestsPerSocket: number | null | undefined;
  _defaultKeepAlive: boolean;
  maxRequestsOnConnectionReached: boolean;
};

// A field line as Node's writer would write it unchanged: a lower-case token for a name, none of the
// names it treats specially (its connection, framing and trailer handling, its latin1 recoding of
// Content-Disposition), and a value of the characters it accepts (tab, visible ASCII, space, latin1):
// never CR or LF, so a line ends only where the edge ended it, and NUL never.
const PLAIN_FIELD_LINE = /(?!(?:connection|content-disposition|expect|keep-alive|trailer|transfer-encoding):)[!#$%&'*+\-.^_`|~0-9a-z]+: [\t\x20-\x7e\x80-\xff]*\r\n/.source;
/** Heads with more fields are left to writeHead. */
const MOST_FIELDS = 64;
// Exactly n such lines from where it is told to start, by n: the n lines of n fields must end where
// the fields end, which they cannot where a value holds CR LF (one more line).
const linesPatterns: RegExp[] = [];

function plainFieldLines(count: number): RegExp | undefined {
  if (count > MOST_FIELDS) return undefined;
  return (linesPatterns[count] ??= new RegExp(`(?:${PLAIN_FIELD_LINE}){${count}}`, 'y'));
}

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
 * for a keep-alive connection whose head needs none of Node's special handling: a status with a body
 * and its standard reason, every value a string, Content-Length and Date among the fields, no field
 * outside PLAIN_FIELD_LINE, at most MOST_FIELDS fields, no Expect on the request. Answers false,
 * having changed nothing, in every other case: the caller uses writeHead.
 */
export function storeSerialisedHead(res: ServerResponse, status: number, headers: ResponseHeaders, requestExpects: boolean): boolean {
  const node = res as ResponseInternals;
  if (!node.shouldKeepAlive || node.maxRequestsOnConnectionReached || requestExpects || node._header || node.statusMessage) return false;
  if (status < 200 || status > 999 || status === 204 || status === 304) return false;
  if (headers['content-length'] === undefined || headers.date === undefined) return false;
  let fields = '';
  let count = 0;
  for (const name in headers) {
    const value = headers[name];
    if (typeof value !== 'string') return false;
    fields += name + ': ' + value + '\r\n';
    count++;
  }
  const pattern = plainFieldLines(count);
  if (pattern === undefined) return false;
  const line = statusLine(status);
  // Checked in the whole head, which the socket write then takes as it is (one copy of it made flat, not two).
  const head = line + fields + keepAliveLines(node) + '\r\n';
  pattern.lastIndex = line.length;
  if (!pattern.test(head) || pattern.lastIndex !== line.length + fields.length) return false;
  res.statusCode = status;
  res.statusMessage = reasonOf(status);
  node._header = head;
  return true;
}

let keepAliveTimeoutMs = -1;
let maxRequests: number | null | undefined;
let keepAlive = '';

// What writeHead adds on a keep-alive connection, for the server's keep-alive timeout and request limit (remembered: one server's).
function keepAliveLines(res: ResponseInternals): string {
  if (!res._defaultKeepAlive || !res._keepAliveTimeout) return 'Connection: keep-alive\r\n';
  if (res._keepAliveTimeout !== keepAliveTimeoutMs || res._maxRequestsPerSocket !== maxRequests) {
    keepAliveTimeoutMs = res._keepAliveTimeout;
    maxRequests = res._maxRequestsPerSocket;
    const max = ~~(maxRequests ?? 0) > 0 ? `, max=${maxRequests}` : '';
    keepAlive = `Connection: keep-alive\r\nKeep-Alive: timeout=${Math.floor(keepAliveTimeoutMs / 1000)}${max}\r\n`;
  }
  return keepAlive;
}
