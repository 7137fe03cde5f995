// GET /quicklaunches/{id}/app-info (backends.md §6): the launch form of the quick launch's app
// version (the apps catalog's launch view) with the saved submission in it, each value in the
// shape the web UI reads a form's starting values (the apps service's saved-form.ts, shared with
// relaunch-info).
import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.ts';
import { groupsWithSaved, launchView } from '../apps/index.ts';
import { submissionOf, type QuickLaunchRow } from './model.ts';
import { appVisibleTo } from './submission.ts';

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
    groups: await groupsWithSaved(db, view.groups, config),
  };
}
