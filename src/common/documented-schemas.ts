// Schemas that describe a route in the OpenAPI document only: never used to validate a request or
// to serialise an answer. A passthrough documents with them what the backend answering it takes
// and answers (src/http/backend-schemas.ts); any route may set them in its `config.openapi`. Two
// builders (`requiringAll`, `loose`) write a shape's variants from one copy of its fields.

/** A JSON schema (TypeBox or plain). */
export type JsonSchema = object;

/**
 * An object schema of `properties` that claims every one of them required, in their order: the
 * answers that always carry all their fields, written without a second list of the same names.
 */
export const requiringAll = (properties: Record<string, JsonSchema>): JsonSchema => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
});

/**
 * `schema` claiming none of its fields required (its nested schemas as they are): the same shape
 * where an answer gives only what was stored or sent, written once with the shape that claims them.
 */
export const loose = (schema: JsonSchema): JsonSchema => {
  const { required: _required, ...rest } = schema as { required?: unknown };
  return rest;
};

export interface DocumentedSchemas {
  /** The request body the route takes. */
  body?: JsonSchema;
  /** The query parameters, as an object schema. */
  querystring?: JsonSchema;
  /** Answers by status code (`200`, `201`, ...). */
  response?: Record<string, JsonSchema>;
  /** A POST, PUT or PATCH that reads no body (documented as `x-request-body: none`). */
  noBody?: boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Documentation-only schemas, merged into the route's OpenAPI operation. */
    openapi?: DocumentedSchemas;
  }
}
