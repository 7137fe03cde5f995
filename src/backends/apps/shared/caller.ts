import { requireUserParam } from '../../../common/query-params.ts';
import { gatewayError } from '../../../common/errors.ts';

/** The caller the gateway sends for anonymous visitors (routes.md §1.4). */
export const anonymousUser = 'anonymous';

/** The caller's short name: the apps service qualifies names itself (backends.md §1.2). */
export const shortUser = (query: unknown): string => requireUserParam(query).split('@')[0]!;

/** The caller's short name, refusing anonymous visitors for what needs an account. */
export function signedInUser(query: unknown, what: string): string {
  const user = shortUser(query);
  if (user === anonymousUser) throw gatewayError('ERR_FORBIDDEN', `sign in to ${what}`);
  return user;
}
