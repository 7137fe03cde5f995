// Bounds how deeply a JSON request body may nest, before anything parses or walks it: deep
// nesting is what overflows the stack of recursive code (JSON.stringify fails near 4,000 levels).
import type { FastifyRequest } from 'fastify';
import { type GatewayError, gatewayError } from './errors.ts';

/** Default for JSON_MAX_DEPTH. */
export const defaultJsonMaxDepth = 64;

/**
 * The deepest nesting any code path accepts, whatever JSON_MAX_DEPTH says (it cannot be set
 * higher): text parsed outside the body parsers (parseJsonText) is held to it.
 */
export const jsonDepthCeiling = 512;

const quote = 0x22;
const backslash = 0x5c;
const openBracket = 0x5b;
const closeBracket = 0x5d;
const openBrace = 0x7b;
const closeBrace = 0x7d;

/**
 * Whether `text` opens more than `maxDepth` arrays or objects inside one another. One linear
 * pass, no recursion; brackets inside strings do not count. Malformed text is left to the parser.
 */
export function jsonNestsDeeperThan(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === backslash) i++;
      else if (code === quote) inString = false;
    } else if (code === quote) {
      inString = true;
    } else if (code === openBracket || code === openBrace) {
      if (++depth > maxDepth) return true;
    } else if (code === closeBracket || code === closeBrace) {
      depth--;
    }
  }
  return false;
}

export function tooDeep(maxDepth: number): GatewayError {
  return gatewayError(
    'ERR_INVALID_JSON',
    `Malformed JSON body: nested deeper than ${maxDepth} levels`,
    { max_depth: maxDepth },
  );
}

/** Throws 400 ERR_INVALID_JSON when `text` nests deeper than `maxDepth`. */
export function assertJsonDepth(text: string, maxDepth: number): void {
  if (jsonNestsDeeperThan(text, maxDepth)) throw tooDeep(maxDepth);
}

/**
 * A content-type parser for services that keep a body as its exact text and parse it themselves
 * (user-info): the text is handed on unparsed, but refused when it nests deeper than `maxDepth`.
 */
export function depthCheckedText(maxDepth: number) {
  return (
    _request: FastifyRequest,
    body: string | Buffer,
    done: (error: Error | null, body?: unknown) => void,
  ): void => {
    const text = body as string;
    if (jsonNestsDeeperThan(text, maxDepth)) done(tooDeep(maxDepth));
    else done(null, text);
  };
}
