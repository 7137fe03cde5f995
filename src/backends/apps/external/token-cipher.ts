// Stored OAuth tokens are sealed with AES-256-GCM: a database dump or backup alone gives no one
// access to a user's third-party account.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import path from 'node:path';
import type { GatewayConfig } from '../../../config/index.ts';
import { readOrCreateSecretFile } from '../../../common/key-files.ts';

const ivBytes = 12;
const tagBytes = 16;

/**
 * Seals and opens token text. Each sealed value is base64 of IV ‖ tag ‖ ciphertext, with a fresh IV;
 * the row it belongs to (`context`) is authenticated too, so a sealed value copied into another
 * user's row does not open.
 */
export class TokenCipher {
  private readonly key: Buffer;

  constructor(key: Buffer) {
    this.key = key;
    if (key.length !== 32) throw new Error('a token encryption key is 32 bytes');
  }

  seal(plain: string, context: string): string {
    const iv = randomBytes(ivBytes);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(context));
    const encrypted = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), encrypted]).toString('base64');
  }

  /** The plain text, or undefined when the value was sealed with another key or for another row. */
  open(sealed: string, context: string): string | undefined {
    const bytes = Buffer.from(sealed, 'base64');
    if (bytes.length < ivBytes + tagBytes) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, ivBytes));
      decipher.setAAD(Buffer.from(context));
      decipher.setAuthTag(bytes.subarray(ivBytes, ivBytes + tagBytes));
      return Buffer.concat([
        decipher.update(bytes.subarray(ivBytes + tagBytes)),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      return undefined;
    }
  }
}

/** Where the apps service keeps the key it made itself, when TOKEN_ENCRYPTION_KEY is unset. */
export function tokenKeyPath(dataDir: string): string {
  return path.join(dataDir, 'auth', 'token-encryption.key');
}

/** TOKEN_ENCRYPTION_KEY (or TOKEN_ENCRYPTION_KEY_FILE), else a random key made once in the data directory (base64, mode 0600). */
export function tokenEncryptionKey(config: Pick<GatewayConfig, 'dataDir' | 'oauth'>): Buffer {
  if (config.oauth.tokenEncryptionKey) return config.oauth.tokenEncryptionKey;
  const text = readOrCreateSecretFile(tokenKeyPath(config.dataDir), () =>
    randomBytes(32).toString('base64'),
  )
    .toString('utf8')
    .trim();
  const key = Buffer.from(text, 'base64');
  if (key.length !== 32)
    throw new Error(`${tokenKeyPath(config.dataDir)} does not hold a 32-byte base64 key`);
  return key;
}
