// Usernames as the platform writes them: short (`alice`) at the gateway's edge, qualified
// (`alice@<uid-domain>`) in the backends that key users so.

/** `alice` → `alice@<uid-domain>`; a name that already has a domain is kept. */
export function qualifiedUsername(username: string, uidDomain: string): string {
  return username.includes('@') ? username : `${username}@${uidDomain}`;
}

/** `alice@<any domain>` → `alice`: the short name backends that key users short compare. */
export function shortUsername(username: string): string {
  return username.split('@')[0]!;
}
