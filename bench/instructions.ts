// Instructions per request under `valgrind --tool=callgrind` (Debian package `valgrind`): the part
// of `npm run bench:edge` a busy machine cannot move. A server runs with one worker under callgrind,
// instrumentation off (valgrind's fast mode) until it is measured; each window switches it on,
// zeroes the counters, sends exactly `requests` keep-alive requests, dumps and switches it off;
// the worker's instructions (every thread: V8's compiler and garbage collector included) divided
// by the requests. The first window after a warm-up is dropped (valgrind translates the code
// again once instrumented), then the median of the rest. User-space instructions only: the kernel's
// share of a request (socket reads and writes, alike for every server here) is not counted, and
// work done per unit of time (the edge's telemetry flush every 100 ms) weighs more per request
// than at full speed, since callgrind runs some 50 times slower.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { childPids, waitFor } from './edge-setup.js';
import { median } from './median.js';

const WARM_UP_REQUESTS = 5000;
const CONNECTIONS = 8;

/** True when valgrind's callgrind and callgrind_control are installed. */
export function haveCallgrind(): boolean {
  return !spawnSync('valgrind', ['--version']).error && !spawnSync('callgrind_control', ['--version']).error;
}

/**
 * `command` with `args` under callgrind, its children too, writing its dumps into `dir`. `byInstruction`:
 * each cost line with its instruction's address (--dump-instr=yes), for instructionsByFunction.
 */
export function spawnUnderCallgrind(command: string, args: string[], dir: string, env: NodeJS.ProcessEnv, byInstruction = false): ChildProcess {
  const valgrind = ['--quiet', '--tool=callgrind', '--trace-children=yes', '--instr-atstart=no', ...(byInstruction ? ['--dump-instr=yes'] : []), `--callgrind-out-file=${path.join(dir, 'callgrind.%p')}`];
  return spawn('valgrind', [...valgrind, command, ...args], { env, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
}

/** Exactly `count` GETs of `pathname` for `host` over `CONNECTIONS` keep-alive connections, each answered 200 before the next. */
export async function sendRequests(port: number, host: string, pathname: string, count: number): Promise<void> {
  const request = Buffer.from(`GET ${pathname} HTTP/1.1\r\nHost: ${host}\r\nUser-Agent: bench-instructions\r\nAccept: */*\r\n\r\n`);
  let sent = 0;
  await Promise.all(Array.from({ length: CONNECTIONS }, () => new Promise<void>((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let buffered = '';
    const next = () => {
      if (sent >= count) return void socket.end(resolve);
      sent++;
      socket.write(request);
    };
    socket.once('connect', next).on('error', reject).on('data', (chunk: Buffer) => {
      buffered += chunk.toString('latin1');
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end === -1) return;
        const head = buffered.slice(0, end);
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        if (!head.startsWith('HTTP/1.1 200')) return reject(new Error(`expected 200, got: ${head.split('\r\n')[0]}`));
        buffered = buffered.slice(end + 4 + length);
        next();
      }
    });
  })));
}

// The path of the newest dump of `pid` in `dir`.
async function lastDump(dir: string, pid: number): Promise<string> {
  const dumps = (await readdir(dir)).filter((name) => name.startsWith(`callgrind.${pid}.`)).sort((a, b) => Number(a.split('.').pop()) - Number(b.split('.').pop()));
  return path.join(dir, dumps[dumps.length - 1]);
}

// The instructions in the dump at `dump`.
async function dumpTotal(dump: string): Promise<number> {
  const total = /^(?:summary|totals): (\d+)/m.exec(await readFile(dump, 'utf8'));
  if (!total) throw new Error(`no instruction total in ${dump}`);
  return Number(total[1]);
}

/** `dumps`: each counted window's dump; `worker`: the measured process's pid (its perf map is /tmp/perf-<pid>.map). */
export type Instructions = { perRequest: number; windows: number[]; dumps: string[]; worker: number };

/**
 * Instructions per request of the one worker of `server` (a process under callgrind; its worker is
 * the child whose command line holds `command`), serving GETs of `pathname` on `port`: `windows`
 * windows of `requests` each after a warm-up and a dropped window.
 */
export async function measureInstructions(server: ChildProcess, command: string, dir: string, target: { port: number; host: string; pathname: string }, requests: number, windows: number): Promise<Instructions> {
  let worker: number | undefined;
  await waitFor(`the worker of ${command} under callgrind`, async () => (worker = (await childPids(server.pid!, command))[0]) !== undefined, 180000);
  const control = (...args: string[]) => execFileSync('callgrind_control', [...args, String(worker)], { stdio: 'ignore' });
  await waitFor(`${command} under callgrind to answer`, () => sendRequests(target.port, target.host, target.pathname, 1).then(() => true), 180000);
  await sendRequests(target.port, target.host, target.pathname, WARM_UP_REQUESTS);
  const counted: number[] = [];
  const dumps: string[] = [];
  for (let window = 0; window <= windows; window++) {
    control('--instr=on');
    control('--zero');
    await sendRequests(target.port, target.host, target.pathname, requests);
    control('--dump');
    control('--instr=off');
    if (window === 0) continue;
    dumps.push(await lastDump(dir, worker!));
    counted.push((await dumpTotal(dumps[dumps.length - 1])) / requests);
  }
  return { perRequest: median(counted), windows: counted, dumps, worker: worker! };
}
