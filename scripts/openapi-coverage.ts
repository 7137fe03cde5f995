// Counts the operations of the OpenAPI document that lack a request-body schema (a POST, PUT or
// PATCH not documented as taking none) or a success-response schema, and lists them with --list:
//
//   node scripts/openapi-coverage.ts [--list]
//
// It builds a gateway with its embedded services in a scratch folder (no port is opened). The
// test test/http/openapi-schemas.test.ts asserts the same count.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildGateway } from '../src/app.ts';
import { loadConfig } from '../src/config/index.ts';
import { schemaGaps, type OpenApiDocument } from '../test/support/route-reference.ts';

const dataDir = mkdtempSync(path.join(tmpdir(), 'openapi-coverage-'));
const gateway = await buildGateway(loadConfig({ LOG_LEVEL: 'silent', GATEWAY_DATA_DIR: dataDir }));
try {
  await gateway.app.ready();
  const document = gateway.app.swagger() as unknown as OpenApiDocument;
  const operations = Object.values(document.paths).flatMap((methods) => Object.keys(methods));
  const gaps = schemaGaps(document);
  const lacking = (what: string) => gaps.filter((gap) => gap.lacks.includes(what as never)).length;
  console.log(
    `${operations.length} operations; ${operations.length - gaps.length} fully described; ` +
      `${lacking('success response')} lack a success-response schema, ` +
      `${lacking('request body')} a request-body schema`,
  );
  if (process.argv.includes('--list'))
    for (const gap of gaps) console.log(`${gap.operation}: ${gap.lacks.join(', ')}`);
} finally {
  await gateway.close();
  rmSync(dataDir, { recursive: true, force: true });
}
