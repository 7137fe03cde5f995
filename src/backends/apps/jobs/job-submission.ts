// Checking an AnalysisSubmission (backends.md §5.3) against the app version it launches: the
// values of `config` (`<step id>_<parameter id>` keys) must belong to its parameters, fit their
// types, and cover every required parameter that has no default. A reference-genome parameter
// names a genome (its id, or the genome object with `id`); the job gets the genome's path. A
// pipeline's input fed by an earlier step's output (its `mappings`) is neither asked for nor
// taken from `config`: the job runner gives it that output.
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../../store/schema.ts';
import {
  chosenGenome,
  currentVersions,
  referenceGenomeParameterTypes,
  visibleApp,
} from '../catalog/index.ts';
import {
  blank,
  mappedInputs,
  typed,
  type AppDefinition,
  type AppParameter,
} from '../shared/index.ts';
import { asBoolean } from '../../../store/sqlite-booleans.ts';
import { isJsonObject } from '../../../common/request-body.ts';
import { gatewayError } from '../../../common/errors.ts';

export interface CheckedSubmission {
  app: Selectable<Database['apps']>;
  versionId: string;
  definition: AppDefinition;
  name: string;
  description: string;
  outputDir: string;
  createOutputSubdir: boolean;
  notify: boolean;
  debug: boolean;
  /** Per step (index), the values by parameter name (or id when it has none), defaults filled in. */
  stepValues: Record<string, unknown>[];
  /** The same values by parameter id: what a sandboxed step's arguments are built from. */
  stepValuesById: Record<string, unknown>[];
  /** The submission as sent. */
  raw: Record<string, unknown>;
}

const bad = (field: string, reason: string, extra: Record<string, unknown> = {}) =>
  gatewayError('ERR_BAD_OR_MISSING_FIELD', reason, { field, ...extra });
export async function checkSubmission(
  db: Kysely<Database>,
  user: string,
  body: unknown,
): Promise<CheckedSubmission> {
  if (!isJsonObject(body))
    throw bad('body', 'the body must be an analysis submission (a JSON object)');
  const text = (field: string, required: boolean) => {
    const value = body[field];
    if (value === undefined || value === null) {
      if (required) throw bad(field, `"${field}" is required`);
      return undefined;
    }
    if (typeof value !== 'string' || (required && value.trim() === ''))
      throw bad(field, `"${field}" must be a${required ? ' non-empty' : ''} string`);
    return value;
  };
  const appId = text('app_id', true)!;
  const app = await visibleApp(db, user, text('system_id', false) ?? 'de', appId);
  if (asBoolean(app.disabled))
    throw gatewayError('ERR_APP_DISABLED', `app ${app.name} is disabled`, { app_id: app.id });
  const wantedVersion = text('app_version_id', false);
  const version = wantedVersion
    ? await db
        .selectFrom('app_versions')
        .selectAll()
        .where('app_id', '=', app.id)
        .where('id', '=', wantedVersion.toLowerCase())
        .executeTakeFirst()
    : (await currentVersions(db, [app.id])).get(app.id);
  if (!version)
    throw gatewayError('ERR_NOT_FOUND', `app ${app.id} has no version ${wantedVersion}`, {
      app_version_id: wantedVersion,
    });
  const definition = JSON.parse(version.definition) as AppDefinition;

  const config = body.config ?? {};
  if (!isJsonObject(config))
    throw bad('config', '"config" must be an object of "<step id>_<parameter id>": value');
  const parameters = new Map<string, { step: number; parameter: AppParameter }>();
  const mapped = mappedInputs(definition);
  const mappedKeys = new Set<string>();
  for (const group of definition.groups) {
    const step = (group.step_number ?? 1) - 1;
    for (const parameter of group.parameters)
      if (mapped(step, parameter.id))
        mappedKeys.add(`${definition.steps[step]?.id ?? 'step'}_${parameter.id}`);
      else
        parameters.set(`${definition.steps[step]?.id ?? 'step'}_${parameter.id}`, {
          step,
          parameter,
        });
  }
  // A value sent for a mapped input (say, from a form made before the mapping) is set aside.
  const unknown = Object.keys(config).filter(
    (key) =>
      !parameters.has(key.toLowerCase()) &&
      !parameters.has(key) &&
      !mappedKeys.has(key.toLowerCase()) &&
      !mappedKeys.has(key),
  );
  if (unknown.length > 0)
    throw bad('config', `config names no parameter of this app: ${unknown.join(', ')}`, {
      unknown,
    });

  const stepValues: Record<string, unknown>[] = definition.steps.map(() => ({}));
  const stepValuesById: Record<string, unknown>[] = definition.steps.map(() => ({}));
  const missing: { id: string; label: string }[] = [];
  const invalid: { id: string; label: string; expected: string }[] = [];
  for (const [key, { step, parameter }] of parameters) {
    const given = config[key];
    const value = blank(given) ? parameter.defaultValue : given;
    const label = parameter.label ?? parameter.name ?? parameter.id;
    if (blank(value)) {
      if (parameter.required) missing.push({ id: key, label });
      continue;
    }
    if (referenceGenomeParameterTypes.includes(parameter.type)) {
      const genome = await chosenGenome(db, value);
      if (!genome) invalid.push({ id: key, label, expected: 'a reference genome (its id)' });
      else {
        stepValues[step]![parameter.name || parameter.id] = genome.path;
        stepValuesById[step]![parameter.id] = genome.path;
      }
      continue;
    }
    const checked = typed(parameter, value);
    if ('reason' in checked) invalid.push({ id: key, label, expected: checked.reason });
    else {
      stepValues[step]![parameter.name || parameter.id] = checked.value;
      stepValuesById[step]![parameter.id] = checked.value;
    }
  }
  if (missing.length > 0)
    throw bad(
      'config',
      `missing required parameters: ${missing.map((item) => item.label).join(', ')}`,
      { missing },
    );
  if (invalid.length > 0)
    throw bad(
      'config',
      `parameters with unusable values: ${invalid.map((item) => `${item.label} (expected ${item.expected})`).join(', ')}`,
      { invalid },
    );

  const name = text('name', true)!.trim();
  if (name.length > 255) throw bad('name', '"name" must be at most 255 characters');
  const flag = (field: string, fallback: boolean) => {
    const value = body[field];
    if (value === undefined || value === null) return fallback;
    if (typeof value !== 'boolean') throw bad(field, `"${field}" must be true or false`);
    return value;
  };
  return {
    app,
    versionId: version.id,
    definition,
    name,
    description: text('description', false) ?? '',
    outputDir: text('output_dir', true)!,
    createOutputSubdir: flag('create_output_subdir', true),
    notify: flag('notify', true),
    debug: flag('debug', false),
    stepValues,
    stepValuesById,
    raw: body,
  };
}
