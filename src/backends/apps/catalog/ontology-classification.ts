import type { Kysely } from 'kysely';
import type { Database } from '../../../store/schema.ts';
import {
  classAvus,
  filterTree,
  irisOf,
  loadGraph,
  requireSavedTree,
  type OntologyClassHierarchy,
} from '../../metadata/index.ts';
import { gatewayError } from '../../../common/errors.ts';
import { visibleAppsQuery } from './app-listings.ts';

/**
 * Which apps fall under an ontology class (backends.md §5.5): an app is under a class when it has
 * an AVU (attribute `attr`) whose value is the IRI of that class or of any saved class below it.
 * The apps service shares the store with the metadata service and reads its tables directly
 * (ontology-store.ts). The app listings under a class (hierarchy-listing-routes.ts) start from
 * appsUnderClass; unclassifiedApps answers the same question for a given list of apps.
 */

type Db = Kysely<Database>;

export interface ClassQuery {
  version: string;
  rootIri: string;
  /** The AVU attribute holding class IRIs. */
  attr: string;
}

/** The saved tree under `classIri` (default: the root), which must lie in the root's saved hierarchy. */
async function classTree(
  db: Db,
  query: ClassQuery & { classIri?: string },
): Promise<OntologyClassHierarchy> {
  const root = requireSavedTree(await loadGraph(db, query.version), query.rootIri);
  if (query.classIri === undefined || query.classIri === query.rootIri) return root;
  const find = (tree: OntologyClassHierarchy): OntologyClassHierarchy | undefined =>
    tree.iri === query.classIri
      ? tree
      : (tree.subclasses ?? []).map(find).find((found) => found !== undefined);
  const found = find(root);
  if (!found)
    throw gatewayError(
      'ERR_NOT_FOUND',
      `class ${JSON.stringify(query.classIri)} is not in the hierarchy of ${JSON.stringify(query.rootIri)}`,
      { iri: query.classIri },
    );
  return found;
}

/** Ids of the apps attached to `classIri` (default: the root) or any class below it, sorted. */
export async function appsUnderClass(
  db: Db,
  query: ClassQuery & { classIri?: string },
): Promise<string[]> {
  const tree = await classTree(db, query);
  const rows = await classAvus(db, { types: ['app'], attrs: [query.attr], iris: irisOf(tree) });
  return [...new Set(rows.map((row) => row.target_id))].sort();
}

/** Those of `appIds` (in their order, once each) attached to no class of the root's hierarchy. */
export async function unclassifiedApps(
  db: Db,
  query: ClassQuery & { appIds: readonly string[] },
): Promise<string[]> {
  const ids = [...new Set(query.appIds.map((id) => id.toLowerCase()))];
  const tree = await classTree(db, query);
  const classified = new Set(
    (await classAvus(db, { types: ['app'], ids, attrs: [query.attr], iris: irisOf(tree) })).map(
      (row) => row.target_id,
    ),
  );
  return ids.filter((id) => !classified.has(id));
}

/**
 * The root's saved hierarchy cut down to the classes that have apps `user` can see (public ones,
 * their own and those shared with them, not deleted: the apps its listings list), and their
 * ancestors; null when no class has any.
 */
export async function hierarchyWithApps(
  db: Db,
  query: ClassQuery & { user: string },
): Promise<OntologyClassHierarchy | null> {
  const tree = await classTree(db, query);
  const hits = await classAvus(db, { types: ['app'], attrs: [query.attr], iris: irisOf(tree) });
  const visible = new Set<string>();
  const candidates = [...new Set(hits.map((row) => row.target_id))];
  for (let start = 0; start < candidates.length; start += 500) {
    const rows = await visibleAppsQuery(db, query.user)
      .select('apps.id')
      .where('apps.id', 'in', candidates.slice(start, start + 500))
      .execute();
    for (const row of rows) visible.add(row.id);
  }
  return (
    filterTree(
      tree,
      new Set(hits.filter((row) => visible.has(row.target_id)).map((row) => row.value)),
    ) ?? null
  );
}
