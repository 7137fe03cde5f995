// Reading one environment variable, for every area of the settings: each reader takes the
// environment and the variable's name, checks the value, and throws a ConfigError naming the
// variable when it is wrong, so that a mistake stops the process at start.
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';

export class ConfigError extends Error {
  readonly variable: string;

  constructor(variable: string, message: string) {
    super(`Invalid configuration: ${variable} ${message}`);
    this.variable = variable;
  }
}

export type Env = Record<string, string | undefined>;

export function text(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

export function integer(
  env: Env,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(name, `must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

export function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = text(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (['true', '1', 'yes'].includes(raw)) return true;
  if (['false', '0', 'no'].includes(raw)) return false;
  throw new ConfigError(name, `must be true or false, got "${raw}"`);
}

export function url(env: Env, name: string, protocols: string[]): URL | undefined {
  const raw = text(env, name);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, `must be a URL, got "${raw}"`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use ${protocols.join(' or ')}, got "${raw}"`);
  }
  return parsed;
}

export function list(env: Env, name: string, fallback: string[]): string[] {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  return raw
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

export function pathSegment(env: Env, name: string, fallback: string): string {
  const value = text(env, name) ?? fallback;
  if (!/^[\w.-]+$/.test(value) || value === '.' || value === '..') {
    throw new ConfigError(
      name,
      `must be one path segment of letters, digits, '.', '_' or '-', got "${value}"`,
    );
  }
  return value;
}

export function secret(env: Env, name: string): string | undefined {
  const value = text(env, name);
  if (value !== undefined && value.length < 16)
    throw new ConfigError(name, 'must be at least 16 characters long');
  return value;
}

/**
 * Key material given as `NAME` (the value itself; a PEM may have its newlines written as `\n`) or
 * as `NAME_FILE` (a file holding it, as container secrets are mounted); not both. Generic: any key
 * setting reads through this, and its caller checks what the bytes must be.
 */
export function keySetting(env: Env, name: string): Buffer | undefined {
  const inline = text(env, name);
  const file = text(env, `${name}_FILE`);
  if (inline !== undefined && file !== undefined)
    throw new ConfigError(name, `and ${name}_FILE are both set; set one`);
  if (inline !== undefined) return Buffer.from(inline.replace(/\\n/g, '\n'));
  if (file === undefined) return undefined;
  try {
    return readFileSync(file);
  } catch (error) {
    throw new ConfigError(
      `${name}_FILE`,
      `names ${file}, which cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
}

/** A comma list of IP addresses and CIDR ranges (`10.0.0.0/8`, `fd00::/8`, `192.0.2.7`). */
export function addressRanges(env: Env, name: string, fallback: string[]): string[] {
  const ranges = list(env, name, fallback);
  for (const range of ranges) {
    const [address = '', bits, extra] = range.split('/');
    const family = isIP(address);
    const maxBits = family === 6 ? 128 : 32;
    const bitsOk = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= maxBits);
    if (family === 0 || !bitsOk || extra !== undefined) {
      throw new ConfigError(
        name,
        `must list IP addresses or CIDR ranges such as 127.0.0.0/8 or ::1/128, got "${range}"`,
      );
    }
  }
  return ranges;
}
