// Requests for the fuzzing of every operation (operations.test.ts), as fast-check arbitraries made
// from an operation of the OpenAPI document: values its schemas describe (JSON Schema as the
// document writes it: types, enums, formats, lengths, bounds, anyOf, nullable), and the same
// mutated: wrong types, huge strings, odd Unicode (lone surrogates, NUL, BOM, bidi overrides,
// combining marks), deep JSON, repeated query parameters, bad percent-encoding, wrong content
// types and bodies on a GET. No library turns JSON Schema into fast-check arbitraries for
// fast-check 4 (json-schema-fast-check is a one-version package on fast-check 1), hence this.
import fc from 'fast-check';
import type { ContractOperation } from '../../src/http/contract.ts';

type Schema = Record<string, unknown>;

/** Strings that have broken parsers: control and format characters, surrogates, traversal. */
const oddStrings = [
  '',
  ' ',
  '\u0000',
  '\uFEFF',
  '\u202E',
  '\uD800',
  '\uDFFF',
  'a\u0301\u0301',
  '😀',
  '\u{10FFFF}',
  '..',
  '../../etc/passwd',
  '/',
  '%',
  '%00',
  '\\',
  '"',
  "'",
  '<script>',
  'null',
  '-1',
  '1e309',
  'NaN',
  '[]',
  '{}',
];

export const oddString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...oddStrings),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
);

/** Longer than every limit on a field, a path parameter (2048) or a comment (64 KiB). */
export const hugeString: fc.Arbitrary<string> = fc
  .constantFrom(3_000, 70_000, 300_000)
  .map((length) => 'x'.repeat(length));

/** A value of some type, whatever the schema asked for. */
export const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  oddString,
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.integer(), { maxKeys: 3 }),
);

function typesOf(schema: Schema): string[] {
  const type = schema.type;
  return Array.isArray(type) ? (type as string[]) : typeof type === 'string' ? [type] : [];
}

function stringOf(schema: Schema): fc.Arbitrary<string> {
  if (schema.format === 'uuid') return fc.uuid();
  if (schema.format === 'date-time')
    return fc
      .date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true })
      .map((date) => date.toISOString());
  if (typeof schema.pattern === 'string') {
    try {
      return fc.stringMatching(new RegExp(schema.pattern as string));
    } catch {
      // A pattern JavaScript does not read: any string.
    }
  }
  const minLength = Number(schema.minLength ?? 0);
  const maxLength = Math.max(minLength, Math.min(Number(schema.maxLength ?? 16), minLength + 16));
  return fc.string({ minLength, maxLength });
}

function numberOf(schema: Schema, integer: boolean): fc.Arbitrary<number> {
  const min = typeof schema.minimum === 'number' ? schema.minimum : -1_000;
  const max = typeof schema.maximum === 'number' ? schema.maximum : Math.max(min, 0) + 1_000;
  return integer
    ? fc.integer({ min: Math.ceil(min), max: Math.floor(Math.max(min, max)) })
    : fc.double({ min, max: Math.max(min, max), noNaN: true, noDefaultInfinity: true });
}

/** `allOf` of object schemas as one object schema. */
function merged(parts: Schema[]): Schema {
  return {
    type: 'object',
    properties: Object.assign({}, ...parts.map((part) => part.properties ?? {})),
    required: parts.flatMap((part) => (part.required as string[] | undefined) ?? []),
  };
}

/**
 * Values of `schema`; with `junk` (a weight from 0), any node may instead be a wrong value, an odd
 * or a huge string. `depth` bounds recursive schemas.
 */
export function valueOf(schema: unknown, junk = 0, depth = 0): fc.Arbitrary<unknown> {
  const valid = validOf((schema ?? {}) as Schema, junk, depth);
  if (junk === 0) return valid;
  return fc.oneof(
    { weight: 8, arbitrary: valid },
    { weight: junk, arbitrary: wrongValue },
    { weight: junk, arbitrary: oddString },
    { weight: 1, arbitrary: hugeString },
  );
}

function validOf(schema: Schema, junk: number, depth: number): fc.Arbitrary<unknown> {
  if (depth > 5) return fc.constant(null);
  const next = (inner: unknown) => valueOf(inner, junk, depth + 1);
  let arbitrary: fc.Arbitrary<unknown>;
  if (Array.isArray(schema.enum) && schema.enum.length > 0)
    arbitrary = fc.constantFrom(...(schema.enum as unknown[]));
  else if ('const' in schema) arbitrary = fc.constant(schema.const);
  else if (Array.isArray(schema.anyOf ?? schema.oneOf))
    arbitrary = fc.oneof(...((schema.anyOf ?? schema.oneOf) as unknown[]).map(next));
  else if (Array.isArray(schema.allOf)) arbitrary = next(merged(schema.allOf as Schema[]));
  else {
    const types = typesOf(schema);
    const byType = (type: string): fc.Arbitrary<unknown> => {
      switch (type) {
        case 'string':
          return stringOf(schema);
        case 'integer':
          return numberOf(schema, true);
        case 'number':
          return numberOf(schema, false);
        case 'boolean':
          return fc.boolean();
        case 'null':
          return fc.constant(null);
        case 'array': {
          const minLength = Number(schema.minItems ?? 0);
          return fc.array(next(schema.items), { minLength, maxLength: minLength + 3 });
        }
        case 'object': {
          const properties = (schema.properties ?? {}) as Record<string, unknown>;
          const required = ((schema.required as string[] | undefined) ?? []).filter(
            (name) => name in properties,
          );
          const names = Object.keys(properties);
          if (names.length === 0)
            return fc.dictionary(fc.string({ maxLength: 6 }), next({}), { maxKeys: 3 });
          return fc.record(
            Object.fromEntries(names.map((name) => [name, next(properties[name])])),
            { requiredKeys: required },
          );
        }
        default:
          return fc.jsonValue({ maxDepth: 2 });
      }
    };
    arbitrary = types.length === 0 ? byType('any') : fc.oneof(...types.map(byType));
  }
  return schema.nullable === true ? fc.option(arbitrary, { nil: null, freq: 6 }) : arbitrary;
}

/** A value as a query or path parameter writes it. */
function asText(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
}

/** Percent-encodings that do not decode: a lone `%`, a non-hex digit, a truncated or overlong sequence. */
const badEncodings = ['%', '%zz', '%E0%A4%A', '%C0%AF', '%ED%A0%80', '%FF', 'a%2'];

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** encodeURIComponent, but a lone surrogate becomes the (undecodable) bytes of one in WTF-8. */
export function encodeText(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    const wellFormed = value.replace(loneSurrogate, '\uFFFD');
    return encodeURIComponent(wellFormed).replace(/%EF%BF%BD/g, '%ED%A0%80');
  }
}

/** An encoded path segment or query value: mostly well encoded, sometimes not decodable. */
function encoded(text: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: text.map(encodeText) },
    { weight: 1, arbitrary: fc.constantFrom(...badEncodings) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(text, fc.constantFrom(...badEncodings))
        .map(([value, bad]) => encodeText(value) + bad),
    },
  );
}

export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
  /** Who calls: a user, an administrator, or nobody. */
  caller: 'user' | 'admin' | 'anonymous';
}

const jsonTypes = ['application/json', 'application/json; charset=utf-8'];
const otherTypes = [
  'text/plain',
  'application/xml',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  'application/json; charset=utf-16',
];

/** Bodies that are not the JSON asked for: deep, malformed, huge. */
const brokenBodies: fc.Arbitrary<string> = fc.oneof(
  fc.integer({ min: 65, max: 3_000 }).map((depth) => '['.repeat(depth) + ']'.repeat(depth)),
  fc
    .integer({ min: 65, max: 3_000 })
    .map((depth) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)),
  fc.constantFrom('{', '{"a":', 'nul', '\u0000', '[1,]', '{"a":1}{"b":2}', '\uFEFF{}', '"\uD800"'),
  hugeString.map((text) => JSON.stringify({ text })),
  oddString,
);

function bodyOf(operation: ContractOperation, method: string) {
  const none = fc.constant({} as { payload?: string; type?: string });
  const documented = operation.requestBody?.content ?? {};
  const jsonSchema = Object.entries(documented).find(([type]) => type.includes('json'))?.[1]
    ?.schema;
  const json = (value: unknown, types = jsonTypes) =>
    fc.constantFrom(...types).map((type) => ({ payload: JSON.stringify(value) ?? 'null', type }));
  const variants: fc.Arbitrary<{ payload?: string; type?: string }>[] = [
    none,
    brokenBodies.chain((payload) =>
      fc.constantFrom(...jsonTypes, ...otherTypes).map((type) => ({ payload, type })),
    ),
    oddString.map((payload) => ({ payload, type: 'application/json' })),
    wrongValue.chain((value) => json(value)),
    // The web UI's bodiless call (clients.md): `{}` as JSON.
    fc.constant({ payload: '{}', type: 'application/json' }),
  ];
  if (jsonSchema !== undefined || ['POST', 'PUT', 'PATCH'].includes(method))
    variants.push(
      valueOf(jsonSchema, 0).chain((value) => json(value)),
      valueOf(jsonSchema, 0).chain((value) => json(value)),
      valueOf(jsonSchema, 2).chain((value) => json(value)),
      valueOf(jsonSchema, 2).chain((value) => json(value, otherTypes)),
    );
  return fc.oneof(...variants);
}

/** Requests for `method` on the document's `path` (its `{name}` parameters, `{*}` a tail). */
export function requestOf(
  path: string,
  method: string,
  operation: ContractOperation,
): fc.Arbitrary<FuzzRequest> {
  const parameters = operation.parameters ?? [];
  const inPath = parameters.filter((parameter) => parameter.in === 'path');
  const inQuery = parameters.filter((parameter) => parameter.in === 'query');
  const names = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
  const segment = (name: string) => {
    const schema = inPath.find((parameter) => parameter.name === name)?.schema;
    const text = fc.oneof(
      { weight: 4, arbitrary: valueOf(schema, 0).map(asText) },
      { weight: 1, arbitrary: fc.uuid() },
      { weight: 2, arbitrary: oddString },
      { weight: 1, arbitrary: hugeString },
    );
    const value = encoded(text.filter((value) => value !== ''));
    return name === '*'
      ? fc.array(value, { minLength: 0, maxLength: 3 }).map((parts) => parts.join('/'))
      : value;
  };
  const pathArb = fc
    .tuple(...names.map(segment))
    .map((values) =>
      names.reduce((url, name, index) => url.replace(`{${name}}`, values[index]!), path),
    );
  const pair = (name: string, schema: unknown) =>
    encoded(valueOf(schema, 1).map(asText)).map((value) => `${encodeURIComponent(name)}=${value}`);
  const queryArb = fc
    .tuple(
      ...inQuery.map((parameter) =>
        fc.oneof(
          { weight: 2, arbitrary: fc.constant([] as string[]) },
          { weight: 4, arbitrary: pair(parameter.name, parameter.schema).map((one) => [one]) },
          // Repeated, with values that differ.
          {
            weight: 1,
            arbitrary: fc.array(pair(parameter.name, parameter.schema), {
              minLength: 2,
              maxLength: 3,
            }),
          },
        ),
      ),
      fc.option(pair('unknown-parameter', {}), { freq: 4 }),
    )
    .map(([...parts]) => {
      const extra = parts.pop() as string | null;
      const pairs = (parts as string[][]).flat();
      if (extra) pairs.push(extra);
      return pairs.length > 0 ? `?${pairs.join('&')}` : '';
    });
  // A body on a GET or DELETE too: clients send one (clients.md), and others might.
  const body = bodyOf(operation, method);
  return fc
    .record({
      url: fc.tuple(pathArb, queryArb).map(([url, query]) => url + query),
      body,
      caller: fc.constantFrom('user' as const, 'admin' as const, 'anonymous' as const),
    })
    .map(({ url, body: { payload, type }, caller }): FuzzRequest => ({
      method,
      url,
      headers: type ? { 'content-type': type } : ({} as Record<string, string>),
      ...(payload !== undefined && method !== 'HEAD' ? { payload } : {}),
      caller,
    }));
}
