import type { Kysely } from 'kysely';
import type { Database, MetadataTargetType } from '../../store/schema.ts';
import { parseOntologyXml, type OntologyClass } from './ontology-xml.ts';
import { chunks } from './requests.ts';
import { gatewayError } from '../../common/errors.ts';

/**
 * The ontology tables' queries (backends.md §3.6): the metadata service's routes use them, and so
 * does the embedded apps service (§5.5), which shares the store — it reads versions and filters
 * app ids here rather than calling the metadata service over HTTP.
 */

type Db = Kysely<Database>;

export interface OntologyDetails {
  iri: string;
  version: string;
  created_by: string;
  created_on: number;
}

/** `OntologyClassHierarchy`: a saved class and the saved classes below it. */
export interface OntologyClassHierarchy {
  iri: string;
  label: string | null;
  description?: string;
  subclasses?: OntologyClassHierarchy[];
}

/** One version's classes, edges and what is saved, read whole: hierarchies are built from it in memory. */
export interface OntologyGraph {
  version: string;
  classes: Map<string, OntologyClass>;
  children: Map<string, string[]>;
  saved: Set<string>;
  roots: string[];
}

const detailsOf = (row: {
  iri: string;
  version: string;
  created_by: string;
  created_on: number | string;
}): OntologyDetails => ({
  iri: row.iri,
  version: row.version,
  created_by: row.created_by,
  created_on: Number(row.created_on),
});

export async function listOntologies(db: Db): Promise<OntologyDetails[]> {
  const rows = await db
    .selectFrom('ontologies')
    .select(['iri', 'version', 'created_by', 'created_on'])
    .where('deleted', '=', false)
    .orderBy('created_on')
    .orderBy('version')
    .execute();
  return rows.map(detailsOf);
}

/** A version that exists and is not deleted, or 404 ERR_NOT_FOUND. */
export async function requireOntology(db: Db, version: string): Promise<OntologyDetails> {
  const row = await db
    .selectFrom('ontologies')
    .select(['iri', 'version', 'created_by', 'created_on'])
    .where('version', '=', version)
    .where('deleted', '=', false)
    .executeTakeFirst();
  if (!row)
    throw gatewayError('ERR_NOT_FOUND', `no ontology with version ${JSON.stringify(version)}`, {
      version,
    });
  return detailsOf(row);
}

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

/** The reference's version id: the ontology's IRI, its own version, and the upload time (UTC, `yyyy/MM/dd/HH-mm-ss.SSS`). */
function versionId(iri: string, ownVersion: string | null, time: number, attempt: number): string {
  const at = new Date(time);
  const stamp = `${at.getUTCFullYear()}/${pad(at.getUTCMonth() + 1)}/${pad(at.getUTCDate())}/${pad(at.getUTCHours())}-${pad(at.getUTCMinutes())}-${pad(at.getUTCSeconds())}.${pad(at.getUTCMilliseconds(), 3)}`;
  return (
    [iri, ownVersion, stamp].filter((part) => part !== null && part !== '').join('/') +
    (attempt > 0 ? `-${attempt + 1}` : '')
  );
}

/** Parses and stores a document under a new version id, with every class and edge it declares. */
export async function addOntology(
  db: Db,
  user: string,
  time: number,
  xml: string,
): Promise<OntologyDetails> {
  const parsed = parseOntologyXml(xml);
  return db.transaction().execute(async (trx) => {
    let version = versionId(parsed.iri, parsed.version, time, 0);
    // Two uploads of one ontology in the same millisecond still get distinct versions.
    for (
      let attempt = 1;
      await trx
        .selectFrom('ontologies')
        .select('version')
        .where('version', '=', version)
        .executeTakeFirst();
      attempt += 1
    ) {
      version = versionId(parsed.iri, parsed.version, time, attempt);
    }
    await trx
      .insertInto('ontologies')
      .values({ version, iri: parsed.iri, xml, created_by: user, created_on: time, deleted: false })
      .execute();
    for (const part of chunks(parsed.classes, 300)) {
      await trx
        .insertInto('ontology_classes')
        .values(part.map((item) => ({ ontology_version: version, ...item })))
        .execute();
    }
    for (const part of chunks(parsed.edges, 300)) {
      await trx
        .insertInto('ontology_subclasses')
        .values(part.map((edge) => ({ ontology_version: version, ...edge })))
        .execute();
    }
    return { iri: parsed.iri, version, created_by: user, created_on: time };
  });
}

/** Logical delete: the version is no longer listed or served; its rows stay. */
export async function markOntologyDeleted(db: Db, version: string): Promise<void> {
  await requireOntology(db, version);
  await db
    .updateTable('ontologies')
    .set({ deleted: true })
    .where('version', '=', version)
    .execute();
}

export async function loadGraph(db: Db, version: string): Promise<OntologyGraph> {
  await requireOntology(db, version);
  const [classes, edges, saved, roots] = await Promise.all([
    db
      .selectFrom('ontology_classes')
      .select(['iri', 'label', 'description'])
      .where('ontology_version', '=', version)
      .execute(),
    db
      .selectFrom('ontology_subclasses')
      .select(['class_iri', 'subclass_iri'])
      .where('ontology_version', '=', version)
      .execute(),
    db
      .selectFrom('ontology_saved_classes')
      .select('class_iri')
      .where('ontology_version', '=', version)
      .execute(),
    db
      .selectFrom('ontology_saved_roots')
      .select('root_iri')
      .where('ontology_version', '=', version)
      .orderBy('saved_on')
      .orderBy('root_iri')
      .execute(),
  ]);
  const children = new Map<string, string[]>();
  for (const edge of edges)
    children.set(edge.class_iri, [...(children.get(edge.class_iri) ?? []), edge.subclass_iri]);
  return {
    version,
    classes: new Map(classes.map((row) => [row.iri, row])),
    children,
    saved: new Set(saved.map((row) => row.class_iri)),
    roots: roots.map((row) => row.root_iri),
  };
}

/**
 * How deep a presented hierarchy goes: the tree is built (and serialised) recursively, and an
 * uploaded ontology could chain thousands of subclasses. Real ones (EDAM) are about a dozen deep.
 */
export const maxHierarchyDepth = 256;

/**
 * The tree under `iri` in the document (`savedOnly`: only saved classes, what users see). A class
 * with two parents appears under both; a subclass cycle is cut where it would repeat an ancestor,
 * and a chain deeper than maxHierarchyDepth is cut there.
 */
export function treeOf(
  graph: OntologyGraph,
  iri: string,
  savedOnly = true,
  ancestors = new Set<string>(),
): OntologyClassHierarchy | undefined {
  const known = graph.classes.get(iri);
  if (!known || (savedOnly && !graph.saved.has(iri))) return undefined;
  const path = new Set(ancestors).add(iri);
  const subclasses = (path.size < maxHierarchyDepth ? (graph.children.get(iri) ?? []) : [])
    .filter((child) => !path.has(child))
    .map((child) => treeOf(graph, child, savedOnly, path))
    .filter((child): child is OntologyClassHierarchy => child !== undefined)
    .sort(byLabel);
  return {
    iri,
    label: known.label,
    ...(known.description !== null ? { description: known.description } : {}),
    ...(subclasses.length > 0 ? { subclasses } : {}),
  };
}

function byLabel(a: OntologyClassHierarchy, b: OntologyClassHierarchy): number {
  const left = a.label ?? a.iri;
  const right = b.label ?? b.iri;
  return left < right ? -1 : left > right ? 1 : a.iri < b.iri ? -1 : a.iri > b.iri ? 1 : 0;
}

/** The saved hierarchy under a saved class (a root or any class below one), or 404. */
export function requireSavedTree(graph: OntologyGraph, iri: string): OntologyClassHierarchy {
  const tree = treeOf(graph, iri);
  if (!tree)
    throw gatewayError(
      'ERR_NOT_FOUND',
      `no saved class ${JSON.stringify(iri)} in ontology version ${JSON.stringify(graph.version)}`,
      { version: graph.version, iri },
    );
  return tree;
}

export const savedHierarchies = (graph: OntologyGraph): OntologyClassHierarchy[] =>
  graph.roots
    .map((root) => treeOf(graph, root))
    .filter((tree): tree is OntologyClassHierarchy => tree !== undefined);

/** Every IRI in a tree. */
export function irisOf(tree: OntologyClassHierarchy, into = new Set<string>()): Set<string> {
  into.add(tree.iri);
  for (const child of tree.subclasses ?? []) irisOf(child, into);
  return into;
}

/** The tree cut down to the classes in `iris` and their ancestors (undefined when none is left). */
export function filterTree(
  tree: OntologyClassHierarchy,
  iris: ReadonlySet<string>,
): OntologyClassHierarchy | undefined {
  const subclasses = (tree.subclasses ?? [])
    .map((child) => filterTree(child, iris))
    .filter((child): child is OntologyClassHierarchy => child !== undefined);
  if (subclasses.length === 0 && !iris.has(tree.iri)) return undefined;
  const { subclasses: _all, ...node } = tree;
  return subclasses.length > 0 ? { ...node, subclasses } : node;
}

/** Saves the document's tree under `rootIri`: the root is listed, and classes below it not yet saved are added. */
export async function saveHierarchy(
  db: Db,
  version: string,
  rootIri: string,
  time: number,
): Promise<OntologyClassHierarchy> {
  const graph = await loadGraph(db, version);
  const whole = treeOf(graph, rootIri, false);
  if (!whole)
    throw gatewayError(
      'ERR_NOT_FOUND',
      `ontology version ${JSON.stringify(version)} has no class ${JSON.stringify(rootIri)}`,
      { version, iri: rootIri },
    );
  const missing = [...irisOf(whole)].filter((iri) => !graph.saved.has(iri));
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('ontology_saved_roots')
      .values({ ontology_version: version, root_iri: rootIri, saved_on: time })
      .onConflict((conflict) => conflict.doNothing())
      .execute();
    for (const part of chunks(missing, 300)) {
      await trx
        .insertInto('ontology_saved_classes')
        .values(part.map((iri) => ({ ontology_version: version, class_iri: iri })))
        .onConflict((conflict) => conflict.doNothing())
        .execute();
    }
  });
  return requireSavedTree(await loadGraph(db, version), rootIri);
}

/** Removes the saved classes under a saved class (itself included), and any root among them. */
export async function deleteHierarchy(db: Db, version: string, rootIri: string): Promise<void> {
  const removed = [...irisOf(requireSavedTree(await loadGraph(db, version), rootIri))];
  await db.transaction().execute(async (trx) => {
    for (const part of chunks(removed)) {
      await trx
        .deleteFrom('ontology_saved_classes')
        .where('ontology_version', '=', version)
        .where('class_iri', 'in', part)
        .execute();
      await trx
        .deleteFrom('ontology_saved_roots')
        .where('ontology_version', '=', version)
        .where('root_iri', 'in', part)
        .execute();
    }
  });
}

export interface ClassAvuQuery {
  types: readonly MetadataTargetType[];
  /** Limit to these targets; undefined: any target. */
  ids?: readonly string[];
  attrs: readonly string[];
  /** Class IRIs the AVU values must be among; undefined: any value. */
  iris?: ReadonlySet<string>;
}

/** `{target_id, value}` of the AVUs holding class IRIs that match the query. */
export async function classAvus(
  db: Db,
  query: ClassAvuQuery,
): Promise<{ target_id: string; value: string }[]> {
  if (
    query.types.length === 0 ||
    query.attrs.length === 0 ||
    query.ids?.length === 0 ||
    query.iris?.size === 0
  )
    return [];
  const idParts = query.ids ? chunks([...new Set(query.ids)]) : [undefined];
  const iriParts = query.iris ? chunks([...query.iris]) : [undefined];
  const found: { target_id: string; value: string }[] = [];
  for (const ids of idParts) {
    for (const iris of iriParts) {
      let select = db
        .selectFrom('avus')
        .select(['target_id', 'value'])
        .distinct()
        .where('target_type', 'in', [...query.types])
        .where('attribute', 'in', [...query.attrs]);
      if (ids) select = select.where('target_id', 'in', ids);
      if (iris) select = select.where('value', 'in', iris);
      found.push(...(await select.execute()));
    }
  }
  return found;
}

/** The targets (of `ids`, in their order, once each) with an AVU naming a class of `iris`. */
export async function classifiedTargets(
  db: Db,
  query: ClassAvuQuery & { ids: readonly string[] },
): Promise<string[]> {
  const hits = new Set((await classAvus(db, query)).map((row) => row.target_id));
  return [...new Set(query.ids)].filter((id) => hits.has(id));
}
