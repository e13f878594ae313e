// Response heads written straight to a socket, where no ServerResponse checks them: an
// Upgrade's answers and the answers to requests Node's parser refused.
import { Buffer } from 'node:buffer';
import { STATUS_CODES } from 'node:http';
import type { ResponseHeaders } from './response.js';

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** A character Node's own writer refuses in a value (its checkInvalidHeaderChar): anything but tab, visible ASCII, space and latin1, so CR, LF and NUL. */
export const REFUSED_VALUE_CHAR = /[^\t\x20-\x7e\x80-\xff]/;

/**
 * The status line and header lines of a response, as latin1 bytes (one byte a character, as
 * Node writes heads), ending with the empty line. A header whose name is not a token or
 * whose value holds a character Node would refuse is left out, and a reason phrase that
 * does not fit is replaced by the standard one: nothing can split the head.
 */
export function rawResponseHead(status: number, headers: ResponseHeaders, reason?: string): Buffer {
  const phrase = reason !== undefined && !REFUSED_VALUE_CHAR.test(reason) ? reason : (STATUS_CODES[status] ?? '');
  let head = `HTTP/1.1 ${status} ${phrase}\r\n`;
  for (const name in headers) {
    if (!TOKEN.test(name)) continue;
    const value = headers[name];
    for (const item of Array.isArray(value) ? value : [value]) if (!REFUSED_VALUE_CHAR.test(item)) head += `${name}: ${item}\r\n`;
  }
  return Buffer.from(`${head}\r\n`, 'latin1');
}
