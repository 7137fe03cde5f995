import type { FastifyRequest } from 'fastify';
import { qualifiedUsername } from '../../common/users.ts';
import { gatewayError } from '../../common/errors.ts';

const missingUser = 'user query parameter is required';

/** Who calls the analyses service: `user=<name>@<uid-domain>` (backends.md §1.2), kept short in its tables. */
export interface AnalysesCaller {
  /** Short: `alice` (a name with another domain stays whole, as the gateway sent it). */
  name: string;
  qualified: string;
}

/** The short form of a qualified name: the service's own domain is cut, any other kept. */
export function shortName(qualified: string, uidDomain: string): string {
  const suffix = `@${uidDomain}`;
  return qualified.endsWith(suffix) && qualified.length > suffix.length
    ? qualified.slice(0, -suffix.length)
    : qualified;
}

/**
 * The caller named by `user`. Missing, it is 400 with the reference service's `message` (which
 * its clients read) besides this platform's `error_code` and `reason`.
 */
export function callerOf(request: FastifyRequest, uidDomain: string): AnalysesCaller {
  const user = (request.query as { user?: unknown } | undefined)?.user;
  if (typeof user !== 'string' || user === '') {
    throw gatewayError('ERR_MISSING_QUERY_PARAMETER', missingUser, {
      field: 'user',
      message: missingUser,
    });
  }
  const name = shortName(user, uidDomain);
  return { name, qualified: qualifiedUsername(name, uidDomain) };
}
