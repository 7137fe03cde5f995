// Password hashes of the embedded identity provider: scrypt (RFC 7914) with a random salt per
// user, kept as `scrypt$N$r$p$<salt>$<hash>` so the cost can rise without invalidating old hashes.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const cost = { N: 16384, r: 8, p: 1 };
const keyLength = 32;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(
      password.normalize('NFC'),
      salt,
      keyLength,
      { ...options, maxmem: 64 * 1024 ** 2 },
      (error, key) => (error ? reject(error) : resolve(key)),
    ),
  );
}

/** A new hash of `password`; `options` other than the cost in use only for tests' cheap hashes. */
export async function hashPassword(
  password: string,
  options: { N: number; r: number; p: number } = cost,
): Promise<string> {
  const salt = randomBytes(16);
  const hash = await derive(password, salt, options);
  return [
    'scrypt',
    options.N,
    options.r,
    options.p,
    salt.toString('base64url'),
    hash.toString('base64url'),
  ].join('$');
}

/** Whether `password` matches the stored hash; a malformed hash matches nothing. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** Compared against when the user does not exist, so a wrong name costs what a wrong password does. */
export const decoyHash = `scrypt$${cost.N}$${cost.r}$${cost.p}$${Buffer.alloc(16).toString('base64url')}$${Buffer.alloc(keyLength).toString('base64url')}`;
