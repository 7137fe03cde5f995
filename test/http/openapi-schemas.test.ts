// Every operation of /openapi.json documents its request body (a POST, PUT or PATCH, unless it is
// documented as taking none) and its success answer with a schema; a passthrough answered by an
// embedded service is documented with that service's route schemas (the document is the truth for
// both), the identity parameters the gateway adds left out; the services' documentation tables
// name only routes they serve. The figures are printed (scripts/openapi-coverage.ts lists them).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { embeddedServices } from '../../src/embedded/registry.ts';
import { startGateway, type RunningGateway } from '../support/gateway.ts';
import { schemaGaps, type OpenApiDocument } from '../support/route-reference.ts';

describe('OpenAPI schemas', () => {
  let running: RunningGateway;
  let document: OpenApiDocument;

  before(async () => {
    running = await startGateway();
    document = (await (await fetch(`${running.url}/openapi.json`)).json()) as OpenApiDocument;
  });
  after(() => running.close());

  test('every operation documents its request body and its success answer', (t) => {
    const operations = Object.values(document.paths).flatMap((methods) => Object.keys(methods));
    const gaps = schemaGaps(document);
    t.diagnostic(
      `${operations.length} operations, ${operations.length - gaps.length} fully described`,
    );
    assert.deepEqual(
      gaps.map((gap) => `${gap.operation}: ${gap.lacks.join(', ')}`),
      [],
      'operations lacking a schema',
    );
  });

  test('a passthrough documents the embedded route that answers it, without identity parameters', () => {
    // POST /secured/filesystem/exists is forwarded to data-info's POST /existence-marker.
    const exists = document.paths['/secured/filesystem/exists']?.post;
    assert.ok(exists?.requestBody?.content?.['application/json']?.schema, 'its body');
    assert.ok(exists?.responses?.['200']?.content?.['application/json']?.schema, 'its answer');
    // GET /apps is forwarded to the apps service's GET /apps, which reads the caller's identity
    // from `user`, `email`, `first-name`, `last-name`: the gateway adds those, callers do not.
    const apps = document.paths['/apps']?.get as
      | { parameters?: { name: string; in: string }[]; responses?: Record<string, unknown> }
      | undefined;
    assert.ok(apps?.responses?.['200'], 'the apps listing documents its answer');
    const names = (apps?.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
    for (const identity of ['user', 'email', 'first-name', 'last-name'])
      assert.ok(!names.includes(identity), `${identity} is not documented for callers`);
  });

  test('the services’ documentation tables name only routes they serve', () => {
    for (const service of Object.values(embeddedServices)) {
      if (!service.documented) continue;
      assert.deepEqual(
        running.gateway.backendSchemas.unusedTableEntries(service.name, service.documented),
        [],
        `${service.name}: entries of its documentation table without a route`,
      );
    }
  });
});
