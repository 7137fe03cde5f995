// Quotas that hold (routes.md §23, docs/api/qms.md): after every upload or save the caller's data
// store usage is measured and recorded as their data.size usage; with SUBSCRIPTIONS_ENFORCE=true a
// caller whose data.size usage has reached its quota is refused uploads and saves, and one whose
// cpu.hours usage has is refused analysis launches, with ERR_QUOTA_EXCEEDED. Registered on the
// gateway's root, so they reach the routes of every area.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { gatewayError } from '../common/errors.ts';
import type { GatewayConfig } from '../config/index.ts';
import type { Forwarder } from '../http/proxy.ts';
import { matchedRoute } from '../http/matched-route.ts';
import { hasDataOverage, recordDataUsage, standing } from '../clients/qms.ts';

/** Routes that add to the caller's data (`/secured` aliases included). */
const dataWrites = new Set([
  'POST /fileio/upload',
  'POST /fileio/overwrite',
  'POST /fileio/save',
  'POST /fileio/saveas',
  'POST /fileio/urlupload',
]);

/** Routes that launch analyses. */
const launches = new Set(['POST /analyses', 'POST /analyses/relauncher']);

function routeKey(request: FastifyRequest): string {
  const url = (matchedRoute(request).url ?? '').replace(/^\/secured(?=\/)/, '');
  return `${request.method} ${url}`;
}

export function registerQuotaChecks(
  app: FastifyInstance,
  deps: { forwarder: Forwarder; config: Pick<GatewayConfig, 'subscriptions'> },
): void {
  if (deps.config.subscriptions.enforce)
    app.addHook('preHandler', async (request) => {
      if (!request.identity) return;
      const key = routeKey(request);
      if (dataWrites.has(key)) {
        // Measured now, so that data deleted since the last write no longer counts.
        const bytes = await recordDataUsage(deps, request);
        if (await hasDataOverage(deps, request))
          throw gatewayError(
            'ERR_QUOTA_EXCEEDED',
            'Your data usage has reached the quota of your subscription; delete data or add to the quota before uploading more.',
            { resource_type: 'data.size', usage: bytes },
          );
      } else if (launches.has(key)) {
        const { quota, usage } = await standing(deps, request, 'cpu.hours');
        if (quota !== undefined && usage >= quota)
          throw gatewayError(
            'ERR_QUOTA_EXCEEDED',
            'Your CPU hours have reached the quota of your subscription; add to the quota before launching more analyses.',
            { resource_type: 'cpu.hours', quota, usage },
          );
      }
    });

  // Callback-style: every request passes this hook, and only data writes have work to wait for.
  app.addHook('onResponse', (request, reply, done) => {
    if (
      request.method !== 'POST' ||
      !request.identity ||
      reply.statusCode >= 300 ||
      !dataWrites.has(routeKey(request))
    )
      return done();
    recordDataUsage(deps, request)
      .catch((error: unknown) =>
        request.log.warn({ err: error }, 'could not record the data usage after a write'),
      )
      .finally(() => done());
  });
}
