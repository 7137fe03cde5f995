// Schemas that describe a route in the OpenAPI document only: never used to validate a request or
// to serialise an answer. A passthrough documents with them what the backend answering it takes
// and answers (src/http/backend-schemas.ts); any route may set them in its `config.openapi`.

/** A JSON schema (TypeBox or plain). */
export type JsonSchema = object;

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
