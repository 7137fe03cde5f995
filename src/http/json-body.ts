// Fastify's JSON body parser preceded by the nesting-depth check of common/json-depth.ts.
import type { FastifyInstance } from 'fastify';
import { jsonNestsDeeperThan, tooDeep } from '../common/json-depth.ts';

/**
 * Replaces the instance's `application/json` parser with Fastify's own (same prototype-poisoning
 * protection, same errors) preceded by the depth check. Call it before registering plugins:
 * they copy their parent's parsers when registered.
 */
export function registerJsonBodyParser(app: FastifyInstance, maxDepth: number): void {
  const { onProtoPoisoning = 'error', onConstructorPoisoning = 'error' } = app.initialConfig;
  const parseJson = app.getDefaultJsonParser(onProtoPoisoning, onConstructorPoisoning);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (jsonNestsDeeperThan(body as string, maxDepth)) return done(tooDeep(maxDepth), undefined);
    parseJson(request, body as string, done);
  });
}
