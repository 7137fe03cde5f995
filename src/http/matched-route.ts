// The matched route's settings, read once per request: Fastify's `request.routeOptions` builds a
// new object (a dozen fields, a router lookup) on every read, and the guard, the metrics and the
// request log each need the route.
import type { FastifyInstance, FastifyRequest } from 'fastify';

type MatchedRouteConfig = FastifyRequest['routeOptions']['config'];

declare module 'fastify' {
  interface FastifyRequest {
    /** The matched route's config, once read (see matchedRoute). */
    matchedRouteConfig: MatchedRouteConfig | undefined;
  }
}

/** Declares the request field the matched route is kept in (so every request has the same shape). */
export function registerMatchedRoute(app: FastifyInstance): void {
  app.decorateRequest('matchedRouteConfig', undefined);
}

/** The matched route's config (its `url` and `method`, and the gateway's own `auth`, `rateLimit`). */
export function matchedRoute(request: FastifyRequest): MatchedRouteConfig {
  return (request.matchedRouteConfig ??= request.routeOptions.config);
}

/** The route's pattern as metrics and logs name it; `unmatched` for 404s and requests refused before routing. */
export function routeLabel(request: FastifyRequest): string {
  return request.is404 ? 'unmatched' : (matchedRoute(request).url ?? 'unmatched');
}
