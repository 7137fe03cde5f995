// The answer of an embedded service to a route it does not serve (yet): 501 naming the route and
// the variable that points the gateway at a full service instead.
import {
  backendEnvPrefix,
  embeddedStandIns,
  type BackendName,
  type EmbeddedBackendName,
} from './backend-names.ts';
import { gatewayError, type GatewayError } from './errors.ts';

/** `url` as the service received it (its mount prefix included), query dropped. */
export function notImplementedByEmbedded(
  name: EmbeddedBackendName,
  method: string,
  url: string,
): GatewayError {
  // A service standing in for others may be asked for their routes: name their variables too.
  const variables = [
    name,
    ...(Object.keys(embeddedStandIns) as BackendName[]).filter(
      (other) => embeddedStandIns[other] === name,
    ),
  ].map((each) => `${backendEnvPrefix(each)}_URL`);
  return gatewayError(
    'ERR_NOT_IMPLEMENTED',
    `The embedded ${name} service does not implement ${method} ${url.split('?')[0]}; set ${variables.join(' or ')} to reach a full one.`,
    { backend: name },
  );
}
