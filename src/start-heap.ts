// V8's heap settings for a server, made before anything else is loaded: the young generation held
// small while the process starts and free to grow once it serves, and no pretenuring by allocation
// site (below).
//
// V8 doubles the young generation (two semi-spaces) whenever most of what it holds survives a
// scavenge, up to its maximum: 16 MiB a semi-space on node 22; node 24's V8 sizes it by the heap
// limit, 64 MiB with the 4 GiB limit it gives a machine of 23 GiB. Start-up is exactly that:
// modules, schemas, routes and stores are allocated once and all survive, so by the first answer
// the young generation has grown to its maximum, and an idle process never gives it back: V8
// shrinks it only in a collection that finds allocation slow, and an idle gateway allocates
// nothing to trigger one. Measured on node 20 (16 MiB semi-spaces), an idle gateway with every
// backend embedded: 141 MiB RSS with the default, 114 MiB with growth held back during start
// (bench/README.md, "Start-up").
//
// `--semi-space-growth-factor` is read each time V8 considers growing, so it can be changed while
// the process runs: 1 during start (the semi-spaces stay at their initial 1 MiB), then 8 once it
// serves, so that the first traffic grows the young generation back to its largest semi-spaces in
// two steps (1 → 8 → 16 or 64 MiB) instead of four or six. Measured on node 20 over the first 5 s
// of `/uuid` load after a start (`--trace-gc-nvp`, bench/README.md "Idle RSS"): V8's default factor
// of 2 afterwards took twice the scavenges and twice the collection pause per request of a gateway
// started without this module; 8 took fewer than either (1.1–1.6 µs of pause per request against
// 1.2–1.9 without the module). The price is more, smaller scavenges during start-up (about 75
// instead of 20), each copying little.
import { setFlagsFromString } from 'node:v8';

/** How fast the young generation grows once serving (V8's default is 2; its maximum is unchanged). */
const SERVING_GROWTH_FACTOR = 8;

/**
 * Whether the operator set V8's flag `name` (either spelling, `-` or `_`) on node's command line:
 * theirs is kept (NODE_OPTIONS refuses these flags, so the command line is the only place).
 */
function operatorSet(name: string): boolean {
  const spelled = new RegExp(name.replaceAll('-', '[-_]'));
  return process.execArgv.some((flag) => spelled.test(flag));
}

const operatorChoseGrowth = operatorSet('semi-space-growth-factor');

if (!operatorChoseGrowth) setFlagsFromString('--semi-space-growth-factor=1');

// Allocation-site pretenuring: when nearly everything made by one object literal has survived a
// scavenge (85 %, the young generation at its largest), V8 decides that literal makes long-lived
// objects and from then on allocates them straight in the old generation. It reverses the
// decision only after a full collection that finds less than a tenth of the old generation alive,
// which a gateway never does (its modules, schemas and stores stay: 38 of 153 MB). Under overload
// a request lives long enough for its objects to survive scavenges, so a few seconds of overload
// mark the literals of the request path for good, and once the load is ordinary again every
// request fills the old generation with garbage. Measured at 7,000 req/s of passthrough after 5 s
// of overload (bench/README.md, Ninth pass): with V8's default, 2.5–3 MB more old generation after
// each scavenge, scavenges of 4.9–5.3 ms, a full collection every 3.4 s, 101–114 µs of CPU a
// request and a p99 of 28–91 ms; with this setting, scavenges of 1.05–1.16 ms, 86–95 µs and
// 14–21 ms. Fresh processes measured level either way (full-load throughput, cold start, idle
// RSS, the data routes at 100,000 items).
if (!operatorSet('allocation-site-pretenuring'))
  setFlagsFromString('--no-allocation-site-pretenuring');

/** Once the process serves: the young generation grows with the load again. */
export function youngGenerationMayGrow(): void {
  if (!operatorChoseGrowth)
    setFlagsFromString(`--semi-space-growth-factor=${SERVING_GROWTH_FACTOR}`);
}
