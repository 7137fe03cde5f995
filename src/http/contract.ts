/**
 * The contract of the OpenAPI document, checked: given the document the gateway publishes
 * (`/openapi.json`), whether a request matches what its operation documents (path and query
 * parameters, body) and whether an answer matches the documented answer of its status (content
 * type, and a JSON body's schema). Used by the contract check that tests turn on
 * (contract-check.ts, CONTRACT_CHECK) and by the fuzz tests. Validators are compiled with Ajv (the
 * one Fastify validates with) on an operation's first check.
 *
 * What counts as documented for an answer's status: the status itself, else `default`; a 2xx that
 * an operation documenting some 2xx does not list is a violation (a relayed `default` documents
 * errors, not successes). An error status that is documented nowhere must still be the gateway's
 * error body (`{error_code, reason?, ...}`), or the OAuth error (`{error, ...}`) under `/realms/`.
 * Answers documented without content answer no body; JSON answers are validated; other answers
 * (files, pages, streams) are checked for their content type only.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { default as addFormatsModule } from 'ajv-formats';

// ajv-formats is CommonJS: its default export is the function (typed as a namespace by some loaders).
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

interface MediaType {
  schema?: object;
}

interface DocumentedAnswer {
  description?: string;
  content?: Record<string, MediaType>;
}

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: object;
}

export interface ContractOperation {
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Record<string, MediaType> };
  responses?: Record<string, DocumentedAnswer>;
  'x-request-body'?: string;
}

export interface ContractDocument {
  paths: Record<string, Record<string, ContractOperation>>;
}

/** One way an exchange departs from the document: where (an Ajv instance path) and how. */
export interface ContractError {
  /** `response`, `response.body/...`, `request.query/...`, `request.body/...`, `request.params/...`. */
  path: string;
  message: string;
}

/** The request as the check sees it. */
export interface CheckedRequest {
  method: string;
  /** The matched route's pattern, Fastify's (`/apps/:systemId/*`) or the document's. */
  route: string;
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  /** The media type of the body sent (no parameters), when a body was sent. */
  contentType?: string;
  /** The parsed JSON body, when one was sent as JSON and could be read. */
  body?: unknown;
  /** A body was sent (a `content-length` above 0, or chunks). */
  hasBody: boolean;
  /** A body was sent as JSON but did not parse. */
  bodyUnreadable?: boolean;
}

/** The answer as the check sees it. */
export interface CheckedAnswer {
  status: number;
  /** The media type (no parameters); undefined when none was set. */
  contentType?: string;
  /** The bytes sent, when they are known (not a stream); undefined for a stream. */
  body?: string | Buffer;
  /** The answer's body is a stream (a file, a relayed large answer, an event stream). */
  streamed?: boolean;
}

/** The generic error body every error status answers unless it documents another. */
const errorBody = {
  type: 'object',
  required: ['error_code'],
  properties: { error_code: { type: 'string' }, reason: { type: 'string' } },
};

/** The OAuth 2.0 error body (RFC 6749 §5.2) the identity provider's realm answers. */
const oauthErrorBody = {
  type: 'object',
  required: ['error'],
  properties: { error: { type: 'string' }, error_description: { type: 'string' } },
};

/** `/apps/:systemId/*` → `/apps/{systemId}/{*}`, as the document writes paths. */
export function documentPath(route: string): string {
  return route.replace(/:(\w+)/g, '{$1}').replace(/\*/g, '{*}');
}

/** `application/json; charset=utf-8` → `application/json`. */
export function mediaType(header: unknown): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  return value.split(';', 1)[0]!.trim().toLowerCase();
}

export function isJsonMediaType(type: string | undefined): boolean {
  return type !== undefined && (type === 'application/json' || type.endsWith('+json'));
}

/** Whether `type` is one of the documented media types (`*\/*` and `text/*` ranges included). */
function matchesMedia(documented: string[], type: string): boolean {
  return documented.some((entry) => {
    const key = entry.toLowerCase();
    if (key === '*/*' || key === type) return true;
    if (key.endsWith('/*')) return type.startsWith(key.slice(0, -1));
    return key === 'application/json' && isJsonMediaType(type);
  });
}

function ajvErrors(prefix: string, errors: ErrorObject[] | null | undefined): ContractError[] {
  return (errors ?? []).map((error) => {
    const params = error.params as Record<string, unknown>;
    const named =
      typeof params.missingProperty === 'string'
        ? `/${params.missingProperty}`
        : typeof params.additionalProperty === 'string'
          ? `/${params.additionalProperty}`
          : '';
    return {
      path: `${prefix}${error.instancePath}${named}`,
      message: error.message ?? error.keyword,
    };
  });
}

/** Validates exchanges against one OpenAPI document. */
export class Contract {
  private readonly document: ContractDocument;
  /** For answers: no coercion, every error reported. */
  private readonly answers: Ajv;
  /** For requests: Fastify's own options (coercion, defaults, ignored extra properties). */
  private readonly requests: Ajv;
  private readonly compiled = new Map<object, ValidateFunction>();
  private readonly compiledRequest = new Map<object, ValidateFunction>();
  private readonly parameterSchemas = new Map<ContractOperation, Record<string, object>>();

  constructor(document: ContractDocument) {
    this.document = document;
    this.answers = addFormats(new Ajv({ strict: false, allErrors: true, logger: false }));
    this.requests = addFormats(
      new Ajv({
        strict: false,
        allErrors: true,
        logger: false,
        coerceTypes: 'array',
        useDefaults: true,
        removeAdditional: true,
      }),
    );
  }

  /** The operation of `method` on `route` (Fastify's pattern or the document's); HEAD is GET's. */
  operation(method: string, route: string): ContractOperation | undefined {
    const methods = this.document.paths[documentPath(route)];
    if (!methods) return undefined;
    const name = method.toLowerCase();
    return methods[name] ?? (name === 'head' ? methods.get : undefined);
  }

  /** `GET /apps/{systemId}`: how a violation names its operation. */
  static operationName(method: string, route: string): string {
    return `${method.toUpperCase()} ${documentPath(route)}`;
  }

  private validator(ajv: Ajv, cache: Map<object, ValidateFunction>, schema: object) {
    let validate = cache.get(schema);
    if (!validate) {
      validate = ajv.compile(schema);
      cache.set(schema, validate);
    }
    return validate;
  }

  /** The request's departures from its operation (none when the operation is not documented). */
  checkRequest(request: CheckedRequest): ContractError[] {
    const operation = this.operation(request.method, request.route);
    if (!operation) return [];
    const errors: ContractError[] = [];
    const schemas = this.parameterObjects(operation);
    for (const where of ['path', 'query'] as const) {
      const schema = schemas[where];
      if (!schema) continue;
      const values = structuredClone(where === 'path' ? request.params : request.query) ?? {};
      const validate = this.validator(this.requests, this.compiledRequest, schema);
      if (!validate(values))
        errors.push(
          ...ajvErrors(`request.${where === 'path' ? 'params' : 'query'}`, validate.errors),
        );
    }
    errors.push(...this.checkRequestBody(operation, request));
    return errors;
  }

  private checkRequestBody(operation: ContractOperation, request: CheckedRequest): ContractError[] {
    if (operation['x-request-body'] === 'none') return [];
    const documented = operation.requestBody;
    const method = request.method.toUpperCase();
    if (!documented) return [];
    if (!request.hasBody) {
      // A bodiless method's body is optional whatever the document says of a body it may take.
      if (documented.required && !['GET', 'HEAD', 'DELETE'].includes(method))
        return [{ path: 'request.body', message: 'the operation documents a required body' }];
      return [];
    }
    const types = Object.keys(documented.content ?? {});
    if (types.length === 0) return [];
    if (!request.contentType || !matchesMedia(types, request.contentType))
      return [
        {
          path: 'request.body',
          message: `content type ${request.contentType ?? '(none)'} is not one of ${types.join(', ')}`,
        },
      ];
    // JSON is read where JSON is documented; a body of any type (`*\/*`) is taken as bytes.
    const key = this.mediaKey(documented.content!, request.contentType);
    if (!isJsonMediaType(request.contentType) || !isJsonMediaType(key)) return [];
    if (request.bodyUnreadable) return [{ path: 'request.body', message: 'is not JSON' }];
    if (request.body === undefined) return [];
    const schema = documented.content![key!]!.schema;
    if (!schema) return [];
    const validate = this.validator(this.requests, this.compiledRequest, schema);
    return validate(structuredClone(request.body))
      ? []
      : ajvErrors('request.body', validate.errors);
  }

  /** An operation's path and query parameters as object schemas (one property a parameter). */
  private parameterObjects(operation: ContractOperation): Record<string, object> {
    let objects = this.parameterSchemas.get(operation);
    if (!objects) {
      objects = {};
      for (const where of ['path', 'query']) {
        const parameters = (operation.parameters ?? []).filter((p) => p.in === where);
        if (parameters.length === 0) continue;
        objects[where] = {
          type: 'object',
          properties: Object.fromEntries(parameters.map((p) => [p.name, p.schema ?? {}])),
          required: parameters.filter((p) => p.required).map((p) => p.name),
        };
      }
      this.parameterSchemas.set(operation, objects);
    }
    return objects;
  }

  /** The documented media type an actual one falls under: itself, else a range or JSON's kin. */
  private mediaKey(content: Record<string, MediaType>, type: string): string | undefined {
    return (
      Object.keys(content).find((entry) => entry.toLowerCase() === type) ??
      Object.keys(content).find((entry) => matchesMedia([entry], type))
    );
  }

  private mediaSchema(content: Record<string, MediaType>, type: string): object | undefined {
    const key = this.mediaKey(content, type);
    return key === undefined ? undefined : content[key]!.schema;
  }

  /**
   * The answer's departures from what its operation documents for its status. `route` undefined:
   * no route matched (a 404), which answers the error body like any undocumented error.
   */
  checkAnswer(method: string, route: string | undefined, answer: CheckedAnswer): ContractError[] {
    const operation = route === undefined ? undefined : this.operation(method, route);
    const status = String(answer.status);
    const head = method.toUpperCase() === 'HEAD';
    const realm = route?.startsWith('/realms/') ?? false;
    const documented = operation?.responses?.[status];
    if (!documented) {
      // A HEAD answer has no body to check: its status alone.
      if (answer.status >= 400)
        return head ? [] : this.checkErrorBody(answer, realm ? oauthErrorBody : errorBody);
      if (!operation) return [];
      if (answer.status >= 200 && answer.status < 300) {
        const successes = Object.keys(operation.responses ?? {}).filter((code) => /^2/.test(code));
        if (successes.length > 0)
          return [
            {
              path: 'response',
              message: `status ${status} is not documented (${successes.join(', ')} are)`,
            },
          ];
      }
      return [];
    }
    // Redirects and HEAD answers are judged by their status alone; an undescribed answer by nothing.
    if (head || (answer.status >= 300 && answer.status < 400)) return [];
    if (documented.description === 'Default Response' && !documented.content) return [];
    return this.checkBody(answer, documented.content);
  }

  private checkErrorBody(answer: CheckedAnswer, schema: object): ContractError[] {
    return this.checkBody(answer, { 'application/json': { schema } });
  }

  private checkBody(
    answer: CheckedAnswer,
    content: Record<string, MediaType> | undefined,
  ): ContractError[] {
    // 204 and 304 answers never carry a body: Node leaves out whatever the route gave.
    const empty =
      answer.status === 204 ||
      answer.status === 304 ||
      (!answer.streamed &&
        (answer.body === undefined || answer.body === null || answer.body.length === 0));
    if (!content || Object.keys(content).length === 0)
      return empty ? [] : [{ path: 'response.body', message: 'documented as answering no body' }];
    if (empty) {
      // An empty body may be documented as a JSON null (`type: 'null'`), else it is missing.
      const schema = this.mediaSchema(content, 'application/json');
      if (schema && (schema as { type?: unknown }).type === 'null') return [];
      return [{ path: 'response.body', message: 'is empty, but a body is documented' }];
    }
    const types = Object.keys(content);
    // Any type (`*\/*`, a relayed file) is any type or none.
    if (types.includes('*/*')) return [];
    if (!answer.contentType || !matchesMedia(types, answer.contentType))
      return [
        {
          path: 'response.content-type',
          message: `${answer.contentType ?? '(none)'} is not one of ${types.join(', ')}`,
        },
      ];
    if (!isJsonMediaType(answer.contentType) || answer.streamed || answer.body === undefined)
      return [];
    const schema = this.mediaSchema(content, answer.contentType);
    if (!schema) return [];
    let value: unknown;
    try {
      value = JSON.parse(answer.body.toString());
    } catch {
      return [{ path: 'response.body', message: 'is not JSON' }];
    }
    const validate = this.validator(this.answers, this.compiled, schema);
    return validate(value) ? [] : ajvErrors('response.body', validate.errors);
  }
}
