// The effective configuration as administrators may read it (`GET /admin/config`): every secret
// masked. A value is secret by its field's name (secrets, passwords, keys, tokens, credentials),
// by being raw key material (a Buffer), or by sitting in a URL's userinfo or a secret-named query
// parameter; the rest is shown as loaded, so a wrong setting can be seen without the host.

/** What every secret reads as. */
export const masked = '********';

/** Field (and query-parameter) names that hold a secret, whatever their value looks like. */
const secretName =
  /secret|passw(or)?d|pwd|credential|private|api[-_]?key|encryption[-_]?key|signing[-_]?key|^key$|^token$|access[-_]?token|refresh[-_]?token|auth[-_]?token/i;

export function isSecretName(name: string): boolean {
  return secretName.test(name);
}

/** A URL with its password (and any secret-named query parameter) masked; other text unchanged. */
export function maskUrlCredentials(text: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return text;
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    return text;
  }
  let changed = false;
  if (parsed.password) {
    parsed.password = masked;
    changed = true;
  }
  for (const name of [...parsed.searchParams.keys()]) {
    if (isSecretName(name)) {
      parsed.searchParams.set(name, masked);
      changed = true;
    }
  }
  return changed ? parsed.toString() : text;
}

/** A JSON-safe copy of `value` with every secret masked. */
export function maskConfig(value: unknown, name = ''): unknown {
  if (value === undefined || value === null) return null;
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) return masked;
  if (isSecretName(name)) return masked;
  if (value instanceof URL) return maskUrlCredentials(value.toString());
  if (typeof value === 'string') return maskUrlCredentials(value);
  if (Array.isArray(value)) return value.map((item) => maskConfig(item, name));
  if (typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([key, item]) => [
        key,
        maskConfig(item, key),
      ]),
    );
  }
  return value;
}
