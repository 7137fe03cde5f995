// A launch form filled with a saved submission's values, in the shape the DE web UI reads them
// back as each field's starting value (its `defaultValue`): what `GET /analyses/{id}/relaunch-info`
// and the analyses service's `GET /quicklaunches/{id}/app-info` answer. The UI takes a file or
// folder input's path from `defaultValue.path`, a MultiFileSelector's paths from `defaultValue.path`
// as a list, a reference genome by `defaultValue.id`, and a selection's choice by `defaultValue.id`
// or `defaultValue.value`; a plain string there leaves the field empty. It submits plain path
// strings (and the chosen argument or genome objects) in `config`, which job-submission.ts takes.
import type { Kysely } from 'kysely';
import type { Database } from '../../../store/schema.ts';
import { isJsonObject } from '../../../common/request-body.ts';
import { blank, type AppParameter } from '../shared/index.ts';
import { chosenGenome, referenceGenomeParameterTypes } from '../catalog/index.ts';

const selectionTypes: readonly string[] = ['TextSelection', 'IntegerSelection', 'DoubleSelection'];

/** A path as saved: a string, or `{path}` (app-info's own shape, sent back). */
const pathString = (value: unknown): unknown => (isJsonObject(value) ? value.path : value);

/** One parameter's value (saved or the app's default) as the form reads it. */
export async function formValue(
  db: Kysely<Database>,
  parameter: Pick<AppParameter, 'type' | 'arguments'>,
  value: unknown,
): Promise<unknown> {
  if (blank(value)) return value;
  const { type } = parameter;
  if (type === 'FileInput' || type === 'FolderInput')
    return isJsonObject(value) ? value : { path: value };
  if (type === 'MultiFileSelector') {
    const saved = isJsonObject(value) ? value.path : value;
    return { path: (Array.isArray(saved) ? saved : [saved]).map(pathString) };
  }
  if (referenceGenomeParameterTypes.includes(type)) {
    const genome = await chosenGenome(db, value, true);
    return genome ? { id: genome.id, name: genome.name, path: genome.path } : value;
  }
  if (selectionTypes.includes(type) && !isJsonObject(value)) {
    const chosen = (parameter.arguments ?? []).find(
      (argument) => String(argument.value ?? argument.name) === String(value),
    );
    return chosen ?? value;
  }
  return value;
}

interface FormGroup {
  parameters: (AppParameter & { id: string })[];
}

/**
 * The form's groups with `config` (keyed as the form names its parameters) as each parameter's
 * `value` and `defaultValue`; a parameter the submission leaves out (or blank) keeps the app's
 * default, in the same shape, and has a `value` only if the app gave it one.
 */
export async function groupsWithSaved<Group extends FormGroup>(
  db: Kysely<Database>,
  groups: Group[],
  config: Record<string, unknown>,
): Promise<Group[]> {
  return Promise.all(
    groups.map(async (group) => ({
      ...group,
      parameters: await Promise.all(
        group.parameters.map(async (parameter) => {
          const saved = Object.hasOwn(config, parameter.id) ? config[parameter.id] : undefined;
          if (!blank(saved)) {
            const value = await formValue(db, parameter, saved);
            return { ...parameter, value, defaultValue: value };
          }
          const shown = { ...parameter };
          if (Object.hasOwn(parameter, 'defaultValue'))
            shown.defaultValue = await formValue(db, parameter, parameter.defaultValue);
          if (Object.hasOwn(parameter, 'value'))
            shown.value = await formValue(db, parameter, parameter.value);
          return shown;
        }),
      ),
    })),
  );
}
