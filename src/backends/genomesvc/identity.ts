import type { FastifyRequest } from 'fastify';
import type { ServiceTokenClaims, ServiceTokenVerifier } from '../../common/service-token.ts';
import { gatewayError } from '../../common/errors.ts';

/** The header the gateway puts the caller's token in (routes.md §15). */
export const identityHeader = 'x-vendor-de-jwt';

/**
 * The caller, from the gateway-signed token in `X-Vendor-De-Jwt`: the genome service takes no
 * identity parameters. No token, or one that does not verify, is 401 ERR_NOT_AUTHORIZED.
 */
export async function callerOf(
  verifier: ServiceTokenVerifier,
  request: FastifyRequest,
): Promise<ServiceTokenClaims> {
  const token = request.headers[identityHeader];
  if (typeof token !== 'string' || token === '') {
    throw gatewayError(
      'ERR_NOT_AUTHORIZED',
      `The genome service needs the caller's token in ${identityHeader}.`,
    );
  }
  try {
    return await verifier.verify(token);
  } catch (error) {
    throw gatewayError(
      'ERR_NOT_AUTHORIZED',
      `The token in ${identityHeader} was refused: ${(error as Error).message}`,
    );
  }
}
