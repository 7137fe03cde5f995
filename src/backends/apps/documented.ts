// What the apps service's routes that the gateway forwards to take and answer, for the
// OpenAPI document (EmbeddedService.documented): documentation only, never used to validate a
// request or to serialise an answer. Recorded from the requests and answers of the tests (a key
// present in every one of three or more answers is listed as required; nesting below three levels
// is left open), a few routes the tests do not reach written by hand; a route's own schemas win
// over its entry here.
//
// Each room keeps the table of its own routes beside them (<room>/documented.ts); shapes several
// rooms use are in shared/documented-shapes.ts. This composes them into the service's one table.
import type { DocumentedSchemas } from '../../common/documented-schemas.ts';
import { documented as account } from './account/index.ts';
import { documented as catalog } from './catalog/index.ts';
import { documented as editor } from './editor/index.ts';
import { documented as external } from './external/index.ts';
import { documented as jobs } from './jobs/index.ts';
import { documented as pipelines } from './pipelines/index.ts';
import { documented as sharing } from './sharing/index.ts';
import { documented as tools } from './tools/index.ts';

export const documented: Readonly<Record<string, DocumentedSchemas>> = {
  ...account,
  ...catalog,
  ...editor,
  ...external,
  ...jobs,
  ...pipelines,
  ...sharing,
  ...tools,
};
