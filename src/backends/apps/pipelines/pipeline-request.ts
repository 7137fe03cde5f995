// The body of the pipeline editor's saves (DE's PipelineCreateRequest, PipelineUpdateRequest,
// PipelineVersionRequest: `name`, `description`, `version`, `steps`, `mappings`), checked against
// the store and made into the definition a version stores.
import type { Kysely } from 'kysely';
import type { Database } from '../../../store/schema.ts';
import type { AppDefinition } from '../shared/index.ts';
import { namedVersion } from '../editor/index.ts';
import { appsRunBy, pipelineSteps } from './pipeline-steps.ts';
import { storedMappings } from './pipeline-mappings.ts';
import { isJsonObject } from '../../../common/request-body.ts';
import { gatewayError } from '../../../common/errors.ts';

export interface PipelineRequest {
  name: string;
  description: string;
  /** The version's label, when the body names one. */
  label?: string;
  definition: AppDefinition;
}

const bad = (field: string, reason: string) =>
  gatewayError('ERR_BAD_OR_MISSING_FIELD', reason, { field });

/**
 * A checked pipeline body. When it edits a pipeline: `current`, the pipeline, whose name and
 * description a body without them keeps and whose versions' apps its steps may name even when the
 * editor does not see them; `previous`, the definition the body replaces, whose steps keep their
 * ids where the body keeps the app version they run.
 */
export async function pipelineRequest(
  db: Kysely<Database>,
  user: string,
  body: unknown,
  edited: {
    current?: { id: string; name: string; description: string };
    previous?: AppDefinition;
  } = {},
): Promise<PipelineRequest> {
  if (!isJsonObject(body)) throw bad('body', 'the body must be a JSON object (a pipeline)');
  const text = (field: string) => {
    const value = body[field];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') throw bad(field, `"${field}" must be a string`);
    return value;
  };
  const name = text('name')?.trim() || edited.current?.name;
  if (!name) throw bad('name', '"name" must be a non-empty string');
  const description = text('description') ?? edited.current?.description ?? '';
  const kept = edited.current ? await appsRunBy(db, edited.current.id) : [];
  const steps = await pipelineSteps(db, { user, kept }, body.steps, edited.previous);
  const mappings = storedMappings(body.mappings, steps.groups, steps.steps.length);
  return {
    name,
    description,
    label: namedVersion(body),
    definition: { ...steps, mappings },
  };
}
