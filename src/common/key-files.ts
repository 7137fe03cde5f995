// Secrets and signing keys kept as files of the data directory, shared by the gateway's own
// token signing, service tokens and the apps service's token cipher.
import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The `iss` of tokens the gateway signs itself (embedded user tokens and service tokens). */
export const EMBEDDED_ISSUER = 'platform-gateway';

/**
 * A secret kept in a file of the data directory: read when it exists, else made once (mode 0600,
 * in a 0700 folder). Linking a finished temp file into place means two processes starting at once
 * agree on one secret.
 */
export function readOrCreateSecretFile(file: string, make: () => string | Buffer): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, make(), { mode: 0o600 });
  try {
    linkSync(temp, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    rmSync(temp, { force: true });
  }
  return readFileSync(file);
}

/**
 * A private key given in configuration (PEM, read by keySetting of src/config/variables.ts from
 * `NAME` or `NAME_FILE`) when there is one, else the one kept in `file` of the data directory, made on
 * first use. Several gateways agree on a key only when it is configured (docs/deployment.md).
 * `make` is how a missing file's key is made (default: a P-256 key, for ES256).
 */
export function configuredOrFileKey(
  configured: Buffer | undefined,
  file: string,
  make: () => string | Buffer = newP256Pem,
): KeyObject {
  return createPrivateKey(configured ?? readOrCreateSecretFile(file, make));
}

function newP256Pem(): string | Buffer {
  return generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({
    type: 'pkcs8',
    format: 'pem',
  });
}

/** A P-256 private key kept in `file`: created on first use, then read. */
export function ensurePrivateKeyFile(file: string): KeyObject {
  return configuredOrFileKey(undefined, file);
}

/** The embedded identity provider's RS256 signing key (web clients such as keycloak-js verify only RS256). */
export function identityKeyPath(dataDir: string): string {
  return path.join(dataDir, 'auth', 'idp-signing-key.pem');
}

/** A 2048-bit RSA private key kept in `file`: created on first use, then read. */
export function ensureRsaPrivateKeyFile(file: string): KeyObject {
  const pem = readOrCreateSecretFile(file, () =>
    generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
      type: 'pkcs8',
      format: 'pem',
    }),
  );
  return createPrivateKey(pem);
}
