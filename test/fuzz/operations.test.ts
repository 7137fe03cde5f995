// Fuzzing every operation of /openapi.json (fast-check): each is sent generated and mutated
// requests (requests.ts: wrong types, huge strings, deep JSON, odd Unicode, repeated parameters,
// bad percent-encoding, wrong content types, bodies on GET) as a user, an administrator and
// nobody, in process (app.inject), with the contract check on (CONTRACT_CHECK: a 2xx that departs
// from its schema, or answers a request that departs from its documentation, becomes a 500).
// Properties: no crash, no hang (each request bounded), no 5xx but those the operation documents
// (file I/O's 500s, GET /'s ERR_UNEXPECTED_SERVICE), every 4xx JSON with an `error_code` (OAuth's
// `{error}` on /realms/*, or a documented page). `npm test` runs a fixed seed and a few runs per
// operation on SQLite; `npm run fuzz` many, with a random seed it prints (FUZZ_SEED, FUZZ_RUNS,
// FUZZ_ENGINE=postgres for PostgreSQL, FUZZ_ONLY=<path substring> for some operations).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { fault, fuzzedGateway, type FuzzedGateway, type Operation } from './fuzzed-gateway.ts';
import { sendFound } from './found-requests.ts';
import { requestOf } from './requests.ts';
import { recordTried, testFile } from '../support/reliability.ts';

const seed = Number(process.env.FUZZ_SEED ?? 45);
const runs = Number(process.env.FUZZ_RUNS ?? 1);
const engine = process.env.FUZZ_ENGINE === 'postgres' ? 'postgres' : 'sqlite';
const only = process.env.FUZZ_ONLY;

/** Operations that answer an open-ended stream: an answer that never ends is what they are for. */
const openEnded = (operation: Operation) =>
  Object.keys(operation.responses?.['200']?.content ?? {}).includes('text/event-stream');

let gateway: FuzzedGateway;

before(async () => {
  gateway = await fuzzedGateway(engine);
  console.log(`fuzz: FUZZ_SEED=${seed} FUZZ_RUNS=${runs} FUZZ_ENGINE=${engine}`);
});
after(() => gateway?.close());

describe(`every operation of /openapi.json, fuzzed (${engine})`, () => {
  test('no crash, no hang, no undocumented 5xx, every error with its code, every 2xx as documented', async (t) => {
    const operations = Object.entries(gateway.document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
    );
    const chosen = operations.filter(
      ({ path, operation }) => !openEnded(operation) && (only === undefined || path.includes(only)),
    );
    const failures: string[] = [];
    let requests = 0;
    const statuses: Record<string, number> = {};
    for (const [index, { path, method, operation }] of chosen.entries()) {
      const name = `${method.toUpperCase()} ${path}`;
      const outcome = await fc.check(
        fc.asyncProperty(requestOf(path, method.toUpperCase(), operation), async (request) => {
          requests++;
          const answer = await gateway.send(request);
          const kind = `${String(answer.statusCode)[0]}xx`;
          statuses[kind] = (statuses[kind] ?? 0) + 1;
          const wrong = fault(method.toUpperCase(), path, operation, answer);
          if (wrong) throw new Error(wrong);
        }),
        { seed: seed + index, numRuns: runs, endOnFailure: true },
      );
      if (outcome.failed)
        failures.push(
          `${name} (seed ${seed + index}): ${String((outcome.errorInstance as Error)?.message ?? outcome.errorInstance).slice(0, 600)}\n  request: ${JSON.stringify(outcome.counterexample?.[0]).slice(0, 600)}`,
        );
    }
    t.diagnostic(
      `${chosen.length} operations (${operations.length - chosen.length} left out), ${requests} requests: ${JSON.stringify(statuses)}`,
    );
    /** The answers by class, for a reader of the report (`76 2xx, 2 3xx, 499 4xx, 13 5xx`). */
    const answered = Object.entries(statuses)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([kind, count]) => `${count} ${kind}`)
      .join(', ');
    recordTried({
      area: 'inputs',
      what: `every operation of /openapi.json (${chosen.length}) with generated and mutated requests (wrong types, huge strings, deep JSON, odd Unicode, repeated and badly encoded parameters, wrong content types, bodies on GET): no crash, no hang, no undocumented 5xx, every 4xx with its code, every 2xx as documented`,
      tried: requests,
      held: requests - failures.length,
      file: testFile(import.meta.url),
      note: `${engine}; FUZZ_SEED=${seed}, FUZZ_RUNS=${runs} (requests an operation; \`npm run fuzz\` runs 50); answered ${answered}`,
    });
    assert.deepEqual(failures, [], `operations that failed:\n${failures.join('\n')}`);
  });
});

test(`the requests the fuzzing found are answered as documented (${engine})`, () =>
  sendFound(gateway));
