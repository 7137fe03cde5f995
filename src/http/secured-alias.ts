// `[/secured]/x` routes (routes.md §1.1): the same route at `/x` and at `/secured/x`.
import type { FastifyInstance } from 'fastify';
import type { AuthLevel } from './auth.ts';
import { routeSecurity } from './openapi.ts';

type RouteOptions = Parameters<FastifyInstance['route']>[0];

/** The auth level of a route's `/secured` twin: there a user is always required. */
export function securedAuth(auth: AuthLevel): AuthLevel {
  return auth === 'none' || auth === 'optional' ? 'user' : auth;
}

/** Serves a route at its url with `auth`, and at `/secured<url>` with `securedAuth(auth)`. */
export function routeAtBoth(app: FastifyInstance, auth: AuthLevel, options: RouteOptions): void {
  const schema = (options.schema ?? {}) as Record<string, unknown>;
  for (const [url, level] of [
    [options.url, auth],
    [`/secured${options.url}`, securedAuth(auth)],
  ] as const) {
    app.route({
      ...options,
      url,
      config: { ...options.config, auth: level },
      schema: { ...schema, security: routeSecurity(level) },
    });
  }
}
