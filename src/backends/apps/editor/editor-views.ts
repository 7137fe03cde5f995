// What the app editor reads and changes of one app version (routes.md §16 `ui`, `tasks`, `tools`,
// `is-publishable`, relabelling): the app as the editor saves it back (its groups with their
// parameters under their own ids, not the launch form's `<step id>_<parameter id>`), its steps
// with their tools, and whether it may be published.
import type { Kysely } from 'kysely';
import type { Database } from '../../../store/schema.ts';
import { asBoolean } from '../../../store/sqlite-booleans.ts';
import { outputParameterTypes, pathParameterTypes, type AppDefinition } from '../shared/index.ts';
import { toolsOf, versionsOf, type AppRow, type VersionRow } from '../catalog/index.ts';
import { checkLabelFree } from './app-edits.ts';
import { isJsonObject } from '../../../common/request-body.ts';
import { gatewayError } from '../../../common/errors.ts';

const iso = (ms: number) => new Date(Number(ms)).toISOString();
const definitionOf = (version: VersionRow) => JSON.parse(version.definition) as AppDefinition;

/**
 * The editor's view of a version (`GET .../ui`): the app request the editor sends back with PUT
 * (name, description, tools, groups with parameters under their own ids, references), plus what
 * the editor shows about it.
 */
/** What the app editor and the pipeline editor both show of an app and one of its versions. */
export function editorHeader(
  row: AppRow,
  version: VersionRow,
  versions: Awaited<ReturnType<typeof versionsOf>>,
) {
  return {
    id: row.id,
    system_id: row.system_id,
    name: row.name,
    description: row.description,
    ...(row.wiki_url ? { wiki_url: row.wiki_url } : {}),
    version: version.version,
    version_id: version.id,
    versions,
    integrator_name: row.integrator_name,
    integrator_email: row.integrator_email,
    integration_date: iso(row.integration_date),
    edited_date: iso(row.edited_date),
    is_public: asBoolean(row.is_public),
    deleted: asBoolean(row.deleted),
    disabled: asBoolean(row.disabled),
  };
}

export async function uiView(db: Kysely<Database>, row: AppRow, version: VersionRow) {
  const definition = definitionOf(version);
  const [tools, versions] = await Promise.all([toolsOf(db, definition), versionsOf(db, row.id)]);
  return {
    ...editorHeader(row, version, versions),
    references: JSON.parse(version.reference_urls) as string[],
    tools,
    requirements: definition.requirements ?? [],
    groups: definition.groups.map((group) => ({
      id: group.id,
      name: group.name ?? '',
      label: group.label,
      description: group.description ?? '',
      isVisible: group.isVisible ?? true,
      step_number: group.step_number ?? 1,
      parameters: group.parameters,
    })),
  };
}

/** A version's steps (`GET .../tasks`): each with its tool and the parameters that read or write data. */
export async function tasksView(db: Kysely<Database>, row: AppRow, version: VersionRow) {
  const definition = definitionOf(version);
  const tools = new Map((await toolsOf(db, definition)).map((tool) => [tool.id, tool]));
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    version_id: version.id,
    tasks: definition.steps.map((step, index) => {
      const parameters = definition.groups
        .filter((group) => (group.step_number ?? 1) === index + 1)
        .flatMap((group) => group.parameters);
      const entry = (parameter: (typeof parameters)[number]) => ({
        id: parameter.id,
        name: parameter.name ?? '',
        label: parameter.label ?? '',
        type: parameter.type,
        required: parameter.required ?? false,
      });
      return {
        id: step.id,
        name: step.name,
        description: step.description ?? '',
        step_number: index + 1,
        tool: (step.tool_id && tools.get(step.tool_id)) || null,
        inputs: parameters.filter((p) => pathParameterTypes.includes(p.type)).map(entry),
        outputs: parameters.filter((p) => outputParameterTypes.includes(p.type)).map(entry),
      };
    }),
  };
}

/** Whether an app may be published, and why not (the first reason found). */
export function publishability(
  row: AppRow,
  version: VersionRow,
): { publishable: true } | { publishable: false; reason: string } {
  const no = (reason: string) => ({ publishable: false as const, reason });
  if (asBoolean(row.deleted)) return no('the app is deleted');
  if (asBoolean(row.is_public)) return no('the app is already public');
  const definition = definitionOf(version);
  if (definition.steps.some((step) => !step.tool_id)) return no('a step of the app has no tool');
  for (const group of definition.groups)
    for (const [index, parameter] of group.parameters.entries())
      if (!parameter.label || parameter.label.trim() === '')
        return no(`parameter ${index + 1} of group "${group.label}" has no label`);
  if (!version.documentation || version.documentation.trim() === '')
    return no('the app has no documentation');
  return { publishable: true };
}

const badField = (field: string, reason: string) =>
  gatewayError('ERR_BAD_OR_MISSING_FIELD', reason, { field });
const labelFields = ['label', 'description', 'name'] as const;

/**
 * Relabels an app and one of its versions without changing what it runs: `name`, `description`,
 * `wiki_url` of the app, the version's label (`version`), and the `label`, `description` and `name`
 * (groups) or `label` and `description` (parameters) of the groups and parameters named by id.
 * Anything else in the body (types, tools, structure) is not looked at: PUT replaces those.
 */
export async function relabel(
  db: Kysely<Database>,
  row: AppRow,
  version: VersionRow,
  body: unknown,
  at: number,
): Promise<void> {
  // No body at all is nothing to change (clients.md §3.1: bodiless calls may send none or `{}`).
  if (body === undefined || body === null) body = {};
  if (!isJsonObject(body)) throw badField('body', 'the body must be a JSON object');
  const changes: { name?: string; description?: string; wiki_url?: string; edited_date: number } = {
    edited_date: at,
  };
  for (const field of ['name', 'description', 'wiki_url'] as const) {
    const value = body[field];
    if (value === undefined) continue;
    if (typeof value !== 'string' || (field === 'name' && value.trim() === ''))
      throw badField(field, `"${field}" must be a${field === 'name' ? ' non-empty' : ''} string`);
    changes[field] = field === 'name' ? value.trim() : value;
  }
  let label: string | undefined;
  if (body.version !== undefined) {
    if (typeof body.version !== 'string' || body.version.trim() === '')
      throw badField('version', '"version" must be a non-empty string');
    label = body.version.trim();
    await checkLabelFree(db, row.id, label, version.id);
  }
  const definition = definitionOf(version);
  if (body.groups !== undefined) {
    if (!Array.isArray(body.groups)) throw badField('groups', '"groups" must be a list');
    const groups = new Map(definition.groups.map((group) => [group.id, group]));
    for (const [index, wanted] of body.groups.entries()) {
      if (!isJsonObject(wanted)) throw badField(`groups[${index}]`, 'a group must be an object');
      const group = typeof wanted.id === 'string' ? groups.get(wanted.id) : undefined;
      if (!group) continue;
      for (const field of labelFields) {
        const value = wanted[field];
        if (value === undefined) continue;
        if (typeof value !== 'string' || (field === 'label' && value === ''))
          throw badField(`groups[${index}].${field}`, `"${field}" must be a string`);
        group[field] = value;
      }
      if (wanted.parameters === undefined) continue;
      if (!Array.isArray(wanted.parameters))
        throw badField(`groups[${index}].parameters`, '"parameters" must be a list');
      const parameters = new Map(group.parameters.map((parameter) => [parameter.id, parameter]));
      for (const [position, given] of wanted.parameters.entries()) {
        if (!isJsonObject(given)) continue;
        const parameter = typeof given.id === 'string' ? parameters.get(given.id) : undefined;
        if (!parameter) continue;
        for (const field of ['label', 'description'] as const) {
          const value = given[field];
          if (value === undefined) continue;
          if (typeof value !== 'string')
            throw badField(
              `groups[${index}].parameters[${position}].${field}`,
              `"${field}" must be a string`,
            );
          parameter[field] = value;
        }
      }
    }
  }
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('app_versions')
      .set({
        definition: JSON.stringify(definition),
        ...(label ? { version: label } : {}),
      })
      .where('id', '=', version.id)
      .execute();
    await trx.updateTable('apps').set(changes).where('id', '=', row.id).execute();
  });
}
