// process.nextTick's queue entries keep the shape V8 learned for them through idle periods.
//
// Every nextTick call builds its queue entry as an object literal with computed keys (node 22's and
// 24's lib/internal/process/task_queues.js: `{ [async_id_symbol]: …, [trigger_async_id_symbol]: …,
// [async_context_frame]: …, callback, args }`). Optimized code defines such a literal's properties
// from the maps its feedback recorded, and feedback holds maps weakly. While the process serves,
// some entry is always alive and its maps with it; but when V8's memory reducer runs its full
// collections in an idle moment (seen 8 s into a start with no traffic yet, `--trace-gc`:
// "Mark-Compact (reduce)"), no entry is alive, the maps die, and the next entry (defined by the
// runtime) finds its feedback naming a dead map and marks it megamorphic, for good. From then on
// every optimized caller of nextTick (node's streams and HTTP server, ten calls a request) defines
// each property through a call into the runtime: started and left idle 25 s, bare Fastify's
// `GET /uuid` served 42k req/s instead of 54k and the gateway's 22k instead of 28k, until restarted
// (bench/README.md, "Seventh pass").
//
// One entry held for the life of the process keeps its map alive, and through the maps' back
// pointers every map the feedback names. An init hook is the only public way to reach an entry:
// enabled for one nextTick at start, then disabled, so no hook runs while the process serves.
import { createHook } from 'node:async_hooks';

let heldEntry: object | undefined;

/** Holds one nextTick queue entry for good (once per process; later calls do nothing). */
export function keepTickShape(): void {
  if (heldEntry) return;
  const hook = createHook({
    init(_asyncId, type, _triggerAsyncId, resource) {
      if (type === 'TickObject') heldEntry ??= resource;
    },
  }).enable();
  try {
    process.nextTick(() => {});
  } finally {
    hook.disable();
  }
}
