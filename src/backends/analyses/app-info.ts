// GET /quicklaunches/{id}/app-info (backends.md §6): the launch form of the quick launch's app
// version (the apps catalog's launch view) with the saved submission in it.
import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.js';
import { launchView, pathParameterTypes } from '../apps/index.js';
import { submissionOf, type QuickLaunchRow } from './model.js';
import { appVisibleTo } from './submission.js';

/** A saved value as the form shows it: data-store paths become `{path}` (each one, for MultiFileSelector). */
function formValue(type: string, value: unknown): unknown {
  if (!pathParameterTypes.includes(type)) return value;
  const asPath = (item: unknown) => (typeof item === 'string' ? { path: item } : item);
  return Array.isArray(value) ? value.map(asPath) : asPath(value);
}

/**
 * The form of the app version the quick launch was saved for, as `viewer` may see it (404 when
 * the app is gone or hidden from them): `debug` and every parameter's `value` and `defaultValue`
 * from the submission; parameters it leaves out keep the app's defaults.
 */
export async function quickLaunchAppInfo(
  db: Kysely<Database>,
  viewer: string,
  row: QuickLaunchRow,
) {
  const app = await appVisibleTo(db, viewer, row.app_id);
  const view = await launchView(db, viewer, app, row.app_version_id);
  const submission = submissionOf(row);
  const config = (submission.config ?? {}) as Record<string, unknown>;
  return {
    ...view,
    debug: submission.debug === true,
    groups: view.groups.map((group) => ({
      ...group,
      parameters: group.parameters.map((parameter) => {
        if (!Object.hasOwn(config, parameter.id)) return parameter;
        const value = formValue(parameter.type, config[parameter.id]);
        return { ...parameter, value, defaultValue: value };
      }),
    })),
  };
}
