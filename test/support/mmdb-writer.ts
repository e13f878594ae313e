import ipaddr from 'ipaddr.js';

// A minimal MaxMind DB writer for tests (format: maxmind.github.io/MaxMind-DB):
// an IPv6 search tree (IPv4 under ::/96) of 24-bit records, a data section of
// maps of strings, and the metadata map. Enough to make small country files.

function control(type: number, size: number): Buffer {
  if (size >= 29) throw new Error('test mmdb writer: fields of 29 bytes or more are not supported');
  return type <= 7 ? Buffer.from([(type << 5) | size]) : Buffer.from([size, type - 7]);
}

function unsigned(type: number, value: number | bigint): Buffer {
  let hex = BigInt(value).toString(16);
  if (hex === '0') return control(type, 0);
  if (hex.length % 2) hex = `0${hex}`;
  const bytes = Buffer.from(hex, 'hex');
  return Buffer.concat([control(type, bytes.length), bytes]);
}

type Value = string | number | bigint | Value[] | { [key: string]: Value };

function encode(value: Value): Buffer {
  if (typeof value === 'string') {
    const bytes = Buffer.from(value);
    return Buffer.concat([control(2, bytes.length), bytes]);
  }
  if (typeof value === 'bigint') return unsigned(9, value);
  if (typeof value === 'number') return unsigned(value > 0xffff ? 6 : 5, value);
  if (Array.isArray(value)) return Buffer.concat([control(11, value.length), ...value.map(encode)]);
  const entries = Object.entries(value);
  return Buffer.concat([control(7, entries.length), ...entries.flatMap(([key, item]) => [encode(key), encode(item)])]);
}

type Node = { children: [Node | number | undefined, Node | number | undefined] };

function bitsOf(cidr: string): boolean[] {
  const [address, prefix] = ipaddr.parseCIDR(cidr);
  const bytes = address.kind() === 'ipv4' ? [...new Array(12).fill(0), ...address.toByteArray()] : address.toByteArray();
  const length = address.kind() === 'ipv4' ? prefix + 96 : prefix;
  return Array.from({ length }, (_, index) => ((bytes[index >> 3] >> (7 - (index & 7))) & 1) === 1);
}

/** A MaxMind DB file mapping each CIDR to its record (e.g. `{country_code: 'DE'}`). */
export function writeMmdb(entries: Record<string, Record<string, Value>>, databaseType = 'test-country'): Buffer {
  const root: Node = { children: [undefined, undefined] };
  const data: Buffer[] = [];
  let dataLength = 0;
  for (const [cidr, record] of Object.entries(entries)) {
    const offset = dataLength;
    const encoded = encode(record);
    data.push(encoded);
    dataLength += encoded.length;
    const bits = bitsOf(cidr);
    let node = root;
    bits.forEach((bit, index) => {
      const side = bit ? 1 : 0;
      if (index === bits.length - 1) node.children[side] = offset;
      else {
        const next = node.children[side];
        if (typeof next === 'object') node = next;
        else node = node.children[side] = { children: [undefined, undefined] };
      }
    });
  }
  const nodes: Node[] = [];
  const number = (node: Node) => {
    nodes.push(node);
    for (const child of node.children) if (typeof child === 'object') number(child);
  };
  number(root);
  const count = nodes.length;
  const index = new Map(nodes.map((node, position) => [node, position]));
  const tree = Buffer.alloc(count * 6);
  nodes.forEach((node, position) => {
    node.children.forEach((child, side) => {
      const record = child === undefined ? count : typeof child === 'number' ? count + 16 + child : index.get(child)!;
      tree.writeUIntBE(record, position * 6 + side * 3, 3);
    });
  });
  // libmaxminddb (PowerDNS's reader) insists on each metadata key's exact type: node_count a uint32, the others uint16.
  const fields: [string, Buffer][] = [
    ['node_count', unsigned(6, count)],
    ['record_size', unsigned(5, 24)],
    ['ip_version', unsigned(5, 6)],
    ['database_type', encode(databaseType)],
    ['languages', encode(['en'])],
    ['binary_format_major_version', unsigned(5, 2)],
    ['binary_format_minor_version', unsigned(5, 0)],
    ['build_epoch', unsigned(9, BigInt(Math.floor(Date.now() / 1000)))],
    ['description', encode({ en: 'test database' })],
  ];
  const metadata = Buffer.concat([control(7, fields.length), ...fields.flatMap(([key, value]) => [encode(key), value])]);
  return Buffer.concat([tree, Buffer.alloc(16), ...data, Buffer.from('\xab\xcd\xefMaxMind.com', 'latin1'), metadata]);
}
