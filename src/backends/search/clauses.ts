import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { Database } from '../../store/schema.ts';
import { anyCaseLike } from '../../store/any-case.ts';
import type { Caller } from '../data-info/index.ts';
import { objectHasAvu, objectHasTag, ownedTagIds, type AvuFieldMatch } from '../metadata/index.ts';
import {
  badField,
  bound,
  flag,
  optionalString,
  parseDate,
  parseSize,
  requiredString,
  stringList,
  type Args,
} from './arguments.ts';
import { nameCandidates } from './name-index.ts';
import { globAlternatives, likePattern } from './patterns.ts';

/**
 * The clause types of the search language (the DE search service's query DSL), each with its
 * documentation (what `GET /data/documentation` answers) and its SQL: a condition on the data
 * object aliased `o`. Usernames may be given qualified (`alice#<zone>`), as the DE writes them.
 */
export interface ClauseContext {
  db: Kysely<Database>;
  postgres: boolean;
  caller: Caller;
  zone: string;
}

/**
 * A clause's SQL: one condition, or, for a name clause, the names checked alone (`plain`) and the
 * same narrowed through the name index (`indexed`). A query that reads rows in an order of its own
 * and stops early takes the plain one: the index's candidates would be read in full first.
 */
export type Condition =
  RawBuilder<SqlBool> | { plain: RawBuilder<SqlBool>; indexed: RawBuilder<SqlBool> };

interface ArgumentDoc {
  type: string;
  summary: string;
}

export interface ClauseType {
  summary: string;
  args: Record<string, ArgumentDoc>;
  /** `at` names the clause's args in the body, for errors. */
  condition(args: Args, at: string, context: ClauseContext): Promise<Condition>;
}

const id = sql.ref('o.id');
/** Terms of attribute × value × unit: each combination is one AVU lookup. */
const MAX_AVU_COMBINATIONS = 64;
const never = sql<SqlBool>`1 = 0`;

function any(conditions: RawBuilder<SqlBool>[]): RawBuilder<SqlBool> {
  return conditions.length === 0 ? never : sql<SqlBool>`(${sql.join(conditions, sql` or `)})`;
}

/** `alice#lab` → `alice` in zone `lab`; undefined for another zone. */
function shortName(user: string, zone: string): string | undefined {
  const hash = user.lastIndexOf('#');
  if (hash < 0) return user;
  return user.slice(hash + 1) === zone ? user.slice(0, hash) : undefined;
}

const levelsAtLeast: Record<string, string[]> = {
  read: ['read', 'write', 'own'],
  write: ['write', 'own'],
  own: ['own'],
};

function range(
  column: string,
  args: Args,
  at: string,
  parse: (text: string) => number | undefined,
  expected: string,
): RawBuilder<SqlBool> {
  const from = bound(args, 'from', at, parse, expected);
  const to = bound(args, 'to', at, parse, expected);
  if (from === undefined && to === undefined) throw badField(`${at}.from`, 'or to is required');
  const conditions: RawBuilder<SqlBool>[] = [];
  if (from !== undefined) conditions.push(sql<SqlBool>`${sql.ref(column)} >= ${from}`);
  if (to !== undefined) conditions.push(sql<SqlBool>`${sql.ref(column)} <= ${to}`);
  return sql<SqlBool>`(${sql.join(conditions, sql` and `)})`;
}

const dateDoc = (end: string) => ({
  type: 'string',
  summary: `The ${end} of the range (inclusive): milliseconds since the epoch, YYYY-MM-DD (midnight UTC) or an ISO 8601 date-time with Z or ±hh:mm`,
});

export const clauseTypes: Record<string, ClauseType> = {
  label: {
    summary:
      "Searches by an object's name. Without wildcards and without exact, each whitespace-separated term may appear anywhere in the name (any term matching); with * or ?, or with exact, the whole name must match",
    args: {
      label: { type: 'string', summary: 'The name, or a pattern with * and ?' },
      exact: { type: 'bool', summary: 'Match the whole name (wildcards still apply)' },
    },
    async condition(args, at, { postgres }) {
      const globs = globAlternatives(requiredString(args, 'label', at), flag(args, 'exact', at));
      const exact = any(globs.map((glob) => anyCaseLike(postgres, 'o.name', likePattern(glob))));
      const candidates = nameCandidates(postgres, id, globs);
      return candidates
        ? { plain: exact, indexed: sql<SqlBool>`(${candidates} and ${exact})` }
        : exact;
    },
  },
  path: {
    summary: "Searches by an object's full path",
    args: { prefix: { type: 'string', summary: 'The path prefix to search for' } },
    async condition(args, at) {
      const prefix = requiredString(args, 'prefix', at);
      return sql<SqlBool>`substr(o.path, 1, ${[...prefix].length}) = ${prefix}`;
    },
  },
  owner: {
    summary: "Searches by an object's owner",
    args: {
      owner: { type: 'string', summary: 'The owner: a username, or one qualified with #zone' },
    },
    async condition(args, at, { zone }) {
      const owner = shortName(requiredString(args, 'owner', at), zone);
      return owner === undefined ? never : sql<SqlBool>`o.owner = ${owner}`;
    },
  },
  permissions: {
    summary:
      'Searches for objects on which any of the users holds at least a permission of their own',
    args: {
      users: { type: '[]string', summary: 'The users (usernames, or qualified with #zone)' },
      permission: {
        type: 'string',
        summary: 'read, write or own (own implies write implies read)',
      },
    },
    async condition(args, at, { zone }) {
      const given = stringList(args, 'users', at);
      if (given.length === 0) throw badField(`${at}.users`, 'is required');
      const users = given
        .map((user) => shortName(user, zone))
        .filter((user): user is string => user !== undefined);
      const permission = requiredString(args, 'permission', at);
      const levels = levelsAtLeast[permission];
      if (!levels) throw badField(`${at}.permission`, 'must be read, write or own', permission);
      if (users.length === 0) return never;
      return sql<SqlBool>`exists (select 1 from data_permissions d where d.object_id = o.id
        and d.username in (${sql.join(users)}) and d.permission in (${sql.join(levels)}))`;
    },
  },
  created: {
    summary: "Searches by an object's creation date",
    args: { from: dateDoc('start'), to: dateDoc('end') },
    async condition(args, at) {
      return range('o.created_at', args, at, parseDate, 'a date');
    },
  },
  modified: {
    summary: "Searches by an object's last modification date",
    args: { from: dateDoc('start'), to: dateDoc('end') },
    async condition(args, at) {
      return range('o.modified_at', args, at, parseDate, 'a date');
    },
  },
  size: {
    summary: "Searches by a file's size; only files match, folders have none",
    args: {
      from: {
        type: 'string',
        summary:
          'The lower end (inclusive): bytes, or a number and KB, MB, GB or TB (powers of 1024)',
      },
      to: { type: 'string', summary: "The upper end (inclusive), as 'from'" },
    },
    async condition(args, at) {
      const sizes = range('o.size', args, at, parseSize, 'a size (bytes, or a number and a unit)');
      return sql<SqlBool>`(o.type = 'file' and ${sizes})`;
    },
  },
  infotype: {
    summary: "Searches by a file's info type (as `GET /filetypes/type-list` names them)",
    args: { infotype: { type: 'string', summary: 'The info type, or several as a list' } },
    async condition(args, at) {
      const types = stringList(args, 'infotype', at);
      if (types.length === 0) throw badField(`${at}.infotype`, 'is required');
      return sql<SqlBool>`o.info_type in (${sql.join(types)})`;
    },
  },
  metadata: {
    summary:
      'Searches by the metadata (AVUs) of an object; at least one of attribute, value or unit must be given. Each is matched as label is: implicit wildcards unless exact',
    args: {
      attribute: { type: 'string', summary: "The AVU's attribute" },
      value: { type: 'string', summary: "The AVU's value" },
      unit: { type: 'string', summary: "The AVU's unit" },
      attribute_exact: { type: 'bool', summary: 'Match the whole attribute' },
      value_exact: { type: 'bool', summary: 'Match the whole value' },
      unit_exact: { type: 'bool', summary: 'Match the whole unit' },
      metadata_types: {
        type: '[]string',
        summary:
          "Which metadata: 'cyverse' (the metadata service's AVUs), 'irods' (none here) or both when empty",
      },
    },
    async condition(args, at, { db }) {
      const types = stringList(args, 'metadata_types', at);
      for (const type of types)
        if (type !== 'irods' && type !== 'cyverse')
          throw badField(`${at}.metadata_types`, 'may hold only irods and cyverse', types);
      const fields = (['attribute', 'value', 'unit'] as const).flatMap((field) => {
        const text = optionalString(args, field, at);
        return text === undefined ? [] : [{ field, text, exact: flag(args, `${field}_exact`, at) }];
      });
      if (fields.length === 0) throw badField(`${at}.attribute`, 'or value or unit is required');
      if (types.length > 0 && !types.includes('cyverse')) return never;
      // Each field may have several alternatives (terms): every combination is one AVU match.
      let combinations: AvuFieldMatch[][] = [[]];
      for (const { field, text, exact } of fields) {
        const patterns = globAlternatives(text, exact).map((glob) => likePattern(glob));
        combinations = combinations.flatMap((done) =>
          patterns.map((pattern) => [...done, { field, pattern }]),
        );
      }
      if (combinations.length > MAX_AVU_COMBINATIONS)
        throw badField(
          at,
          `combines more than ${MAX_AVU_COMBINATIONS} terms of attribute, value and unit`,
        );
      return any(combinations.map((matches) => objectHasAvu(db, id, matches)));
    },
  },
  tag: {
    summary: 'Searches for objects carrying any of the given tags, which must be the caller’s own',
    args: { tags: { type: '[]string', summary: 'The tag ids' } },
    async condition(args, at, { db, caller }) {
      const tags = stringList(args, 'tags', at);
      if (tags.length === 0) throw badField(`${at}.tags`, 'is required');
      const owned = caller.anonymous ? new Set<string>() : await ownedTagIds(db, caller.name, tags);
      const foreign = tags.filter((tag) => !owned.has(tag));
      if (foreign.length > 0)
        throw badField(`${at}.tags`, 'names tags that are not the caller’s own', foreign);
      return objectHasTag(id, tags);
    },
  },
};
