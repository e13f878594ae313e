// Stored record content (docs/api.md, "DNS records": hostnames without a trailing
// dot, TXT as plain text) in the zone-file presentation format PowerDNS takes and
// gives back: absolute hostnames, TXT as quoted strings of at most 255 bytes.

const TXT_CHUNK_BYTES = 255;

/** The absolute form of a name (one trailing dot). */
export function absolute(name: string): string {
  return name.endsWith('.') ? name : `${name}.`;
}

/** The absolute name of a record named relative to `zone` ("@" is the apex). */
export function recordOwner(name: string, zone: string): string {
  return absolute(name === '@' ? zone : `${name}.${zone}`);
}

// Inside a quoted string: " and \ are escaped, bytes outside printable ASCII written as \DDD.
function quotedChunk(bytes: Buffer): string {
  let text = '"';
  for (const byte of bytes) {
    if (byte === 0x22 || byte === 0x5c) text += `\\${String.fromCharCode(byte)}`;
    else if (byte < 0x20 || byte > 0x7e) text += `\\${String(byte).padStart(3, '0')}`;
    else text += String.fromCharCode(byte);
  }
  return `${text}"`;
}

// UTF-8 bytes cut into chunks of at most 255 bytes, never inside a character.
function txtChunks(text: string): Buffer[] {
  const chunks: Buffer[] = [];
  let current: Buffer[] = [];
  let size = 0;
  for (const character of text) {
    const bytes = Buffer.from(character, 'utf8');
    if (size + bytes.length > TXT_CHUNK_BYTES) {
      chunks.push(Buffer.concat(current));
      current = [];
      size = 0;
    }
    current.push(bytes);
    size += bytes.length;
  }
  chunks.push(Buffer.concat(current));
  return chunks;
}

/** TXT text as PowerDNS content: one or more quoted strings separated by spaces. */
export function txtContent(text: string): string {
  return txtChunks(text).map(quotedChunk).join(' ');
}

/** The presentation form of a stored record's content for its type. */
export function presentationContent(type: string, content: string): string {
  switch (type) {
    case 'CNAME':
    case 'NS':
    case 'PTR':
      return absolute(content);
    case 'MX': {
      const [priority, host] = content.split(' ');
      return `${priority} ${absolute(host)}`;
    }
    case 'SRV': {
      const [priority, weight, port, target] = content.split(' ');
      return `${priority} ${weight} ${port} ${target === '.' ? '.' : absolute(target)}`;
    }
    case 'TXT':
      return txtContent(content);
    default:
      return content;
  }
}
