import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config/index.ts';
import { signEmbeddedToken } from '../http/keys.ts';

const usage =
  'usage: npm run token -- <username> [--admin] [--email address] [--ttl 1h] [--role name]... [--group name]...';

/** `30s`, `15m`, `1h`, `7d` or plain seconds. */
function parseTtl(text: string): number {
  const match = /^(\d+)([smhd]?)$/.exec(text.trim());
  if (!match) throw new Error(`--ttl must look like 30s, 15m, 1h or 7d, got "${text}"`);
  const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[match[2] as '' | 's' | 'm' | 'h' | 'd'];
  return Number(match[1]) * unit;
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      admin: { type: 'boolean', default: false },
      email: { type: 'string' },
      ttl: { type: 'string', default: '1h' },
      role: { type: 'string', multiple: true, default: [] },
      group: { type: 'string', multiple: true, default: [] },
      'first-name': { type: 'string' },
      'last-name': { type: 'string' },
    },
  });
  const username = positionals[0];
  if (!username || positionals.length > 1) throw new Error(usage);
  const config = loadConfig();
  if (!config.auth.embeddedKeys) {
    throw new Error(
      'AUTH_JWKS_URL or AUTH_PUBLIC_KEYS is set: get tokens from your identity provider instead.',
    );
  }
  const roles = [...(values.role ?? []), ...(values.admin ? config.auth.adminRoles : [])];
  // An administrator's token names ADMIN_GROUP in `entitlement`, as the embedded provider's do.
  const groups = [
    ...new Set([...(values.admin ? [config.auth.adminGroup] : []), ...(values.group ?? [])]),
  ];
  const token = await signEmbeddedToken(
    config.dataDir,
    {
      username,
      email: values.email,
      givenName: values['first-name'],
      familyName: values['last-name'],
      roles,
      groups,
      ttlSeconds: parseTtl(values.ttl ?? '1h'),
    },
    config.keys.authSigningKey,
  );
  process.stdout.write(`${token}\n`);
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : (error as Error).message);
  process.exit(1);
});
