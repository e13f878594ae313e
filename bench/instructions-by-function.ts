// A callgrind dump's instructions by function, JavaScript included (BENCH_EDGE_BY_FUNCTION=1 npm run
// bench:edge, docs/runtime.md "What a HIT costs in instructions"). Callgrind names V8's builtins and
// Node's C++, but not the code V8 compiles at run time; a process started with --perf-basic-prof
// writes /tmp/perf-<pid>.map, a line per compiled function (start, size, name). A dump taken with
// --dump-instr=yes gives each cost line's instruction address, matched here to the newest map entry
// covering it (V8 reuses the addresses of code it dropped).
import { readFile } from 'node:fs/promises';

type MapEntry = { start: number; end: number; name: string; order: number };

/** The compiled functions of V8's perf map at `path`, sorted by start. */
async function perfMap(path: string): Promise<MapEntry[]> {
  const entries: MapEntry[] = [];
  for (const line of (await readFile(path, 'utf8')).split('\n')) {
    const [start, size, ...name] = line.split(' ');
    if (!start || !size || name.length === 0) continue;
    entries.push({ start: parseInt(start, 16), end: parseInt(start, 16) + parseInt(size, 16), name: name.join(' '), order: entries.length });
  }
  return entries.sort((a, b) => a.start - b.start);
}

/** The map's function holding `address`: of the entries covering it, the one written last. */
function functionAt(entries: MapEntry[], address: number): string | undefined {
  let low = 0;
  let high = entries.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (entries[middle].start <= address) low = middle + 1;
    else high = middle;
  }
  let found: MapEntry | undefined;
  // Entries start in order; one covering the address starts at or before it (a compiled function is a few KiB at most).
  for (let index = low - 1; index >= 0 && index >= low - 400; index--) {
    const entry = entries[index];
    if (address < entry.end && (found === undefined || entry.order > found.order)) found = entry;
  }
  return found?.name;
}

// `(12) name` names function 12 and defines it; `(12)` refers to it.
function nameOf(spec: string, names: Map<string, string>): string {
  const match = /^\((\d+)\)(?: (.*))?$/.exec(spec);
  if (!match) return spec;
  if (match[2] !== undefined) names.set(match[1], match[2]);
  return names.get(match[1]) ?? '?';
}

/**
 * Each function's own instructions per request in the dump at `dumpPath` (taken with
 * --dump-instr=yes over `requests` requests), compiled JavaScript named from `perfMapPath`.
 */
export async function instructionsByFunction(dumpPath: string, perfMapPath: string, requests: number): Promise<Map<string, number>> {
  const entries = await perfMap(perfMapPath);
  const names = new Map<string, string>();
  const costs = new Map<string, number>();
  let current = '?';
  let address = 0;
  let callCost = false;
  for (const line of (await readFile(dumpPath, 'utf8')).split('\n')) {
    if (line.startsWith('fn=')) current = nameOf(line.slice(3), names);
    else if (line.startsWith('cfn=')) nameOf(line.slice(4), names);
    else if (line.startsWith('calls=')) callCost = true;
    else if (/^(?:0x[0-9a-f]+|[+-](?:0x[0-9a-f]+|\d+)|\*)\s/.test(line)) {
      const [position, ...rest] = line.split(/\s+/);
      if (position.startsWith('0x')) address = parseInt(position, 16);
      else if (position !== '*') address += (position[0] === '-' ? -1 : 1) * Number(position.slice(1));
      // The line after calls= is the call's inclusive cost: the callee's, not this function's.
      if (callCost) {
        callCost = false;
        continue;
      }
      const name = current.startsWith('0x') ? (functionAt(entries, address) ?? `unnamed code ${current}`) : current;
      costs.set(name, (costs.get(name) ?? 0) + Number(rest[rest.length - 1]) / requests);
    }
  }
  return costs;
}

/** The `count` functions whose instructions per request differ most between `of` and `against`, as printable lines. */
export function largestDifferences(of: Map<string, number>, against: Map<string, number>, count: number): string[] {
  const names = [...new Set([...of.keys(), ...against.keys()])];
  const difference = (name: string) => (of.get(name) ?? 0) - (against.get(name) ?? 0);
  return names
    .sort((a, b) => Math.abs(difference(b)) - Math.abs(difference(a)))
    .slice(0, count)
    .map((name) => `${(of.get(name) ?? 0).toFixed(0).padStart(7)} ${(against.get(name) ?? 0).toFixed(0).padStart(7)} ${difference(name).toFixed(0).padStart(7)}  ${name.slice(0, 110)}`);
}
