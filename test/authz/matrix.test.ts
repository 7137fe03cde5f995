// The authorization matrix (matrix.ts), walked on each engine in-process: for every row and every
// actor (the owner, the grantees of read, write and own, a team's and a collaborator list's
// members, a community's member, a stranger, an administrator, a service account, an anonymous
// caller), the answer is the one the row expects (2xx, or 401/403/404 with an error_code, or a
// listing that does not show the resource), and a refused write leaves what the owner reads back
// unchanged. What the guard answers by itself (401 without credentials, the administrators' and
// service accounts' routes) and what tells a route from its `/secured` alias are the same on every
// store: SQLite walks them, PostgreSQL what its store decides.
// Also: every operation of /openapi.json is a row or listed outside the matrix with a reason.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { engines, skipWithout } from '../support/postgres.ts';
import { recordTried, testFile } from '../support/reliability.ts';
import { kinds, matrix, outsideTheMatrix } from './matrix.ts';
import { sessionProgram } from './sessions.ts';
import type { Resource, Security } from './model.ts';
import { bystander, startPlatform, users, type Actor, type Platform } from './platform.ts';
import { walkRow, type WalkContext } from './walk.ts';

const methods = ['get', 'head', 'post', 'put', 'patch', 'delete', 'options'];

function securityOf(security: unknown[] | undefined): Security {
  if (!security || security.length === 0) return 'none';
  return security.some((scheme) => Object.keys(scheme as object).length === 0)
    ? 'optional'
    : 'required';
}

async function operationsOf(platform: Platform): Promise<Map<string, Security>> {
  const answer = await platform.call('anonymous', { method: 'GET', url: '/openapi.json' });
  const operations = new Map<string, Security>();
  for (const [path, item] of Object.entries(answer.body.paths as Record<string, any>))
    for (const [method, operation] of Object.entries(item as Record<string, any>))
      if (methods.includes(method))
        operations.set(`${method.toUpperCase()} ${path}`, securityOf(operation.security));
  return operations;
}

// The engines' suites run side by side: one waits on PostgreSQL while the other works.
describe('the authorization matrix on each engine', { concurrency: true }, () => {
  for (const engine of engines.filter((each) =>
    (process.env.AUTHZ_ENGINES ?? each).includes(each),
  )) {
    describe(`the authorization matrix (${engine})`, { skip: skipWithout(engine) }, () => {
      let platform: Platform;
      let context: WalkContext;
      before(async () => {
        // Imports and webhooks may name loopback addresses (nothing listens at them).
        platform = await startPlatform(engine, {
          URL_IMPORT_ALLOW_PRIVATE_NETWORKS: 'true',
          WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true',
          // The VICE sessions' program; sessions ending are still counted for a moment.
          TOOL_EXECUTABLES_ALLOW: sessionProgram,
          MAX_CONCURRENT_JOBS: '100',
        });
        // Every user signs in once: the platform shares only with users it has seen.
        for (const actor of [...users, bystander as Actor])
          await platform.ok(actor, { method: 'GET', url: '/secured/filesystem/root' });
        const made = new Map<string, Promise<Resource>>();
        context = {
          platform,
          kinds,
          security: await operationsOf(platform),
          guardDecided: engine === engines[0],
          calls: 0,
          readBacks: 0,
          forget: (kind) => made.delete(kind),
          shared: (kind) => {
            let resource = made.get(kind);
            if (!resource) made.set(kind, (resource = kinds[kind]!.make(platform, context.shared)));
            return resource;
          },
        };
      });
      after(async () => platform?.close());

      if (engine === 'sqlite')
        test('every operation of /openapi.json is placed: a row of the matrix, or outside it with a reason', () => {
          const placed = new Set(matrix.flatMap((row) => row.ops));
          const unplaced = [...context.security.keys()].filter(
            (op) => !placed.has(op) && !outsideTheMatrix[op],
          );
          assert.deepEqual(unplaced, [], 'operations neither in the matrix nor outside it');
          const both = Object.keys(outsideTheMatrix).filter((op) => placed.has(op));
          assert.deepEqual(both, [], 'operations both in the matrix and outside it');
          const unknown = [...placed, ...Object.keys(outsideTheMatrix)].filter(
            (op) => !context.security.has(op),
          );
          assert.deepEqual(unknown, [], 'placed operations that /openapi.json does not have');
        });

      test('every row answers each actor as the matrix says', async (t) => {
        const found: string[] = [];
        const only = process.env.AUTHZ_ONLY ? new RegExp(process.env.AUTHZ_ONLY) : undefined;
        for (const row of matrix) {
          if (only && !row.ops.some((op) => only.test(op)) && !only.test(row.on)) continue;
          try {
            found.push(...(await walkRow(context, row)));
          } catch (error) {
            found.push(`${row.ops[0]} on ${row.on}: ${(error as Error).message}`);
          }
        }
        t.diagnostic(
          `${matrix.length} rows: ${context.calls} calls walked, ${context.readBacks} read back, ${platform.calls} in all`,
        );
        recordTried({
          area: 'authorization',
          what: `${matrix.length} rows of the authorization matrix (every operation touching someone's data) × owner, read/write/own grantees, teammate, collaborator-list member, community member, stranger, administrator, service account, anonymous; refused writes read back unchanged (${context.readBacks} read-backs)`,
          tried: context.calls,
          held: context.calls - found.length,
          file: testFile(import.meta.url),
          note: engine,
        });
        assert.equal(
          found.length,
          0,
          `${found.length} answers not as the matrix says:\n${found.join('\n')}`,
        );
      });
    });
  }
});
