// Literal apps paths the embedded service does not serve yet but whose shape one of its parameter
// routes fits (as `POST /apps/pipelines` fits `POST /apps/{system-id}`, create an app in system
// "pipelines", until pipelines were served). Registering the literal makes the router pick it over
// the parameter, so they answer 501 like every other route not served here (embedded/host.ts),
// instead of running a handler meant for something else. None is left; the list stays for the
// next such path. test/backends/route-clashes.test.ts finds any such path the reference lists.
import type { FastifyPluginAsync, HTTPMethods } from 'fastify';
import { notImplementedByEmbedded } from '../../common/not-implemented.ts';

/** Method and path (Fastify syntax, under the service's prefix) of each such route. */
export const unservedLiteralRoutes: readonly [HTTPMethods, string][] = [];

export const unservedLiteralRoutesPlugin: FastifyPluginAsync = async (app) => {
  for (const [method, url] of unservedLiteralRoutes)
    app.route({
      method,
      url,
      handler: async (request) => {
        throw notImplementedByEmbedded('apps', request.method, request.url);
      },
    });
};
