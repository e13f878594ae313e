import { OTHER_PATHS, type UsageEvent } from '../agent/telemetry-items.js';

/** At most this many events a flush keep a client address: 2,000 a second per worker (docs/edge-agent.md, "Usage counts"). */
export const CLIENT_IP_EVENTS_PER_FLUSH = 200;

/** What a worker counted since its last flush: every request, those whose event kept the client address, those counted without their path. */
export type UsageTally = { requests: number; with_client_ip: number; without_path: number };

/**
 * A worker's usage of one flush interval, as few events as the requests allow: alike requests
 * (domain, path, status, cache status, country, client address, second) make one event with their
 * `count` and summed bytes. Every request is counted, whatever the room: detail gives way first.
 * A new event with a client address needs both the agent's room and one of this flush's
 * CLIENT_IP_EVENTS_PER_FLUSH; without them the request joins the event without an address,
 * and without room for that either, its domain's event with the path OTHER_PATHS, which is
 * always made (at most one per domain, status, cache status, country and second).
 */
export class UsageAggregator {
  private events: UsageEvent[] = [];
  // This interval's events by domain, then path; the few sharing both are told apart by their other fields.
  private index = new Map<string, Map<string, UsageEvent[]>>();
  private tally: UsageTally = { requests: 0, with_client_ip: 0, without_path: 0 };
  private addressRoom = CLIENT_IP_EVENTS_PER_FLUSH;

  constructor(private room: number) {}

  /** Sets how many more events may carry a path before the agent reports its room again. */
  setRoom(room: number): void {
    this.room = room;
  }

  /** Counts one request (`count` is ignored: a request is one). */
  add(request: UsageEvent): void {
    this.tally.requests++;
    const clientIp = request.client_ip;
    if (clientIp && this.addressRoom > 0 && this.addTo(request, request.path, clientIp)) {
      this.tally.with_client_ip++;
      return;
    }
    if (this.addTo(request, request.path, null)) return;
    this.tally.without_path++;
    this.addTo(request, OTHER_PATHS, null);
  }

  /** True when nothing was counted since the last take. */
  get empty(): boolean {
    return this.tally.requests === 0;
  }

  /** Hands out the interval's events and tally and starts the next interval. */
  take(): { events: UsageEvent[]; tally: UsageTally } {
    const taken = { events: this.events, tally: this.tally };
    this.events = [];
    this.index = new Map();
    this.tally = { requests: 0, with_client_ip: 0, without_path: 0 };
    this.addressRoom = CLIENT_IP_EVENTS_PER_FLUSH;
    return taken;
  }

  // Adds the request to its event, or starts one when there is room (an OTHER_PATHS one always); false when it did neither.
  private addTo(request: UsageEvent, path: string, clientIp: string | null): boolean {
    const byPath = this.index.get(request.domain);
    const alike = byPath?.get(path);
    const event = alike === undefined ? undefined : alikeEvent(alike, request, clientIp);
    if (event) {
      event.count = (event.count ?? 1) + 1;
      event.bytes += request.bytes;
      return true;
    }
    if (path !== OTHER_PATHS) {
      if (this.room <= 0) return false;
      this.room--;
    }
    if (clientIp) this.addressRoom--;
    const created: UsageEvent = { domain: request.domain, path, status: request.status, bytes: request.bytes, count: 1, cache_status: request.cache_status, timestamp: request.timestamp, client_country: request.client_country ?? null, client_ip: clientIp };
    this.events.push(created);
    if (alike) alike.push(created);
    else if (byPath) byPath.set(path, [created]);
    else this.index.set(request.domain, new Map([[path, [created]]]));
    return true;
  }
}

// The event among `events` (of the request's domain and path) counting requests like `request` from `clientIp`.
function alikeEvent(events: UsageEvent[], request: UsageEvent, clientIp: string | null): UsageEvent | undefined {
  const country = request.client_country ?? null;
  for (const event of events) {
    if (event.timestamp === request.timestamp && event.status === request.status && event.cache_status === request.cache_status && event.client_country === country && event.client_ip === clientIp) return event;
  }
  return undefined;
}
