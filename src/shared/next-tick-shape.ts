// Keeps V8 on its fast path for `process.nextTick`, which Node's streams call several times a
// request. Node 20 builds each tick object as a literal with computed symbol keys
// (`{ [async_id_symbol]: …, [trigger_async_id_symbol]: …, callback, args }`). V8 remembers the
// object shapes that literal went through, weakly, and once a remembered shape has been collected
// it marks the literal megamorphic for good: from then on every tick object is built in the
// runtime, property by property (measured: 4x the cost of a nextTick; a third more instructions
// per cached HIT of an edge worker). The shapes are collected when a few full garbage collections
// in a row find no tick object alive, which is what an idle process's memory reducer does. One
// tick object kept alive for the life of the process keeps its shapes alive. docs/runtime.md.
import { createHook } from 'node:async_hooks';

let kept: object | undefined;

/** Keeps one tick object of `process.nextTick` alive from now on (once per process; later calls do nothing). */
export function keepNextTickShape(): void {
  if (kept) return;
  // The init hook is the one public place a tick object is handed out; it runs inside nextTick itself.
  const hook = createHook({
    init(_asyncId, type, _triggerAsyncId, resource) {
      if (type === 'TickObject') kept ??= resource;
    },
  });
  hook.enable();
  process.nextTick(() => undefined);
  hook.disable();
}

/** The tick object kept alive, once keepNextTickShape() ran. */
export function keptTickObject(): object | undefined {
  return kept;
}
