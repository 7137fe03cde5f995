// The caller as every part of the platform sees it: the gateway reads it from a verified token
// and passes it on (identity query parameters, service tokens).

/** Who is calling, as read from a verified token. */
export interface Identity {
  username: string;
  email?: string;
  firstName?: string;
  lastName?: string;
  name?: string;
  roles: readonly string[];
  groups: readonly string[];
}
