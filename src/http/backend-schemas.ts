// The schemas of the routes of the embedded services, collected as the host registers them
// (src/embedded/host.ts), so that a passthrough answered by an embedded service documents what that
// service takes and answers: the OpenAPI document is then the truth for both.
import type { DocumentedSchemas, JsonSchema } from '../common/documented-schemas.ts';

/** Query parameters the gateway adds itself (the caller's identity, routes.md §1.4): not the caller's to send. */
const identityParameters = new Set([
  'user',
  'email',
  'first-name',
  'last-name',
  'first_name',
  'last_name',
]);

/** `/apps/{system-id}/{appId}` and `/apps/:systemId/:appId` → `/apps/{}/{}`: parameter names aside. */
export function pathShape(path: string): string {
  return path.replace(/\{[^}]+\}|:\w+/g, '{}').replace(/\/+$/, '') || '/';
}

interface ObjectSchema {
  type?: string;
  properties?: Record<string, unknown>;
  required?: string[];
}

/** A querystring schema without the identity parameters; undefined when nothing is left. */
function callerQuery(schema: JsonSchema | undefined): JsonSchema | undefined {
  const object = schema as ObjectSchema | undefined;
  if (!object?.properties) return schema;
  const properties = Object.fromEntries(
    Object.entries(object.properties).filter(([name]) => !identityParameters.has(name)),
  );
  if (Object.keys(properties).length === 0) return undefined;
  const required = object.required?.filter((name) => !identityParameters.has(name));
  return { ...object, properties, ...(required ? { required } : {}) };
}

type Table = Readonly<Record<string, DocumentedSchemas>>;

/**
 * Each table's keys by `METHOD shape`, made once per table: a service registers hundreds of routes,
 * and finding each one's entry by shaping every key anew was a tenth of a gateway's start.
 */
const tableIndexes = new WeakMap<Table, Map<string, string>>();

function tableIndex(table: Table): Map<string, string> {
  let index = tableIndexes.get(table);
  if (!index) {
    index = new Map();
    for (const key of Object.keys(table)) {
      const [keyMethod, keyPath] = key.split(' ') as [string, string];
      const shaped = `${keyMethod} ${pathShape(keyPath)}`;
      if (!index.has(shaped)) index.set(shaped, key);
    }
    tableIndexes.set(table, index);
  }
  return index;
}

/** The entry of a documentation table for a route (keys `METHOD /path`, any parameter names). */
function tableEntry(
  table: Table | undefined,
  method: string,
  url: string,
): { key: string; schemas: DocumentedSchemas } | undefined {
  if (!table) return undefined;
  const key = tableIndex(table).get(`${method.toUpperCase()} ${pathShape(url)}`);
  return key === undefined ? undefined : { key, schemas: table[key]! };
}

export interface RouteSchemaSource {
  method: string | string[];
  url: string;
  schema?: { body?: unknown; querystring?: unknown; response?: unknown };
  config?: { openapi?: DocumentedSchemas };
}

/** Schemas by backend, method and path shape. */
export class BackendSchemas {
  private readonly routes = new Map<string, DocumentedSchemas>();
  private readonly aliases = new Map<string, string>();

  private static key(backend: string, method: string, path: string): string {
    return `${backend} ${method.toUpperCase()} ${pathShape(path)}`;
  }

  /** `METHOD shape` of each entry of the services' documentation tables that matched a route. */
  private readonly tableEntriesUsed = new Set<string>();

  /**
   * Records a route of `backend` (its path as the backend serves it, without the host's prefix);
   * `table` is the service's documentation table (`METHOD /path` → schemas), which the route's
   * own `config.openapi` and schemas complete.
   */
  record(backend: string, route: RouteSchemaSource, table?: Table): void {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      const entry = tableEntry(table, method, route.url);
      if (entry) this.tableEntriesUsed.add(`${backend} ${entry.key}`);
      this.recordMethod(backend, method, route, entry?.schemas);
    }
  }

  /** Entries of a service's documentation table that name no route of the service. */
  unusedTableEntries(backend: string, table: Table): string[] {
    return Object.keys(table).filter((key) => !this.tableEntriesUsed.has(`${backend} ${key}`));
  }

  private recordMethod(
    backend: string,
    method: string,
    route: RouteSchemaSource,
    fromTable: DocumentedSchemas | undefined,
  ): void {
    const documented: DocumentedSchemas = { ...fromTable, ...route.config?.openapi };
    const schema = route.schema ?? {};
    if (schema.body && !documented.body) documented.body = schema.body as JsonSchema;
    const query = callerQuery((documented.querystring ?? schema.querystring) as JsonSchema);
    if (query) documented.querystring = query;
    else delete documented.querystring;
    if (schema.response)
      documented.response = {
        ...(schema.response as Record<string, JsonSchema>),
        ...documented.response,
      };
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods)
      this.routes.set(BackendSchemas.key(backend, method, route.url), documented);
  }

  /** Requests to `backend` reach the routes recorded for `answeredBy` (an embedded stand-in). */
  alias(backend: string, answeredBy: string): void {
    this.aliases.set(backend, answeredBy);
  }

  find(backend: string, method: string, path: string): DocumentedSchemas | undefined {
    const name = this.aliases.get(backend) ?? backend;
    return this.routes.get(BackendSchemas.key(name, method, path));
  }
}
