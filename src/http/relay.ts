// Relays one backend answer to a client, driven by undici's dispatcher (its handler interface):
// what the forwarder's passthroughs spend per request on the way back.
import { Readable, type Transform } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { util, type Dispatcher } from 'undici';
import type { BackendName } from '../common/backend-names.ts';
import { GatewayError } from '../common/errors.ts';
import { backendFailure, failureStatusLabel } from './backend-failure.ts';
import { endToEndRawHeaders } from './end-to-end-headers.ts';
import type { Metrics } from './metrics.ts';

/** Answers up to this size are relayed in one write; larger ones (and unsized ones) are streamed. */
const smallBodyBytes = 64 * 1024;

export interface RelayOptions {
  backend: BackendName;
  /** The backend's time limit, named in a timeout's answer. */
  timeoutMs: number;
  metrics: Metrics;
  /** An answer that may stay open indefinitely (an event stream): always streamed. */
  openEnded: boolean;
  /** A HEAD request: the answer's length is relayed, its (absent) body streamed. */
  head: boolean;
  /** The request body sent on, destroyed should the call fail (as undici's own `request` does). */
  body: Readable | string | undefined;
  /** Counts a chunked request body; its error (413) is the answer when it trips. */
  limiter: Transform | undefined;
}

/**
 * undici's `request` wraps every answer in a response stream, a promise and an async resource, and
 * cancels through an AbortSignal; a relay needs none of them. A small answer of known length is
 * collected and sent with its headers in one write (piping it cost a vectored write of several
 * pieces and a dozen stream events); a large, unsized or open-ended one is streamed with
 * backpressure (the socket resumes when the client reads). A client that goes away aborts the call.
 */
export class Relay implements Dispatcher.DispatchHandler {
  private abort: ((reason?: Error) => void) | undefined;
  private clientGone = false;
  private answered = false;
  private chunks: Buffer[] | undefined;
  private stream: Readable | undefined;
  private readonly started = performance.now();

  private readonly reply: FastifyReply;
  private readonly options: RelayOptions;

  constructor(reply: FastifyReply, options: RelayOptions) {
    this.reply = reply;
    this.options = options;
  }

  /** Listens for the client's connection closing before its answer is written. */
  readonly onClientClose = (): void => {
    if (this.reply.raw.writableFinished) return;
    this.clientGone = true;
    this.abort?.();
  };

  onConnect(abort: (reason?: Error) => void): void {
    this.abort = abort;
    if (this.clientGone) abort();
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void): boolean {
    // 1xx interim answers (100 Continue) stay between the gateway and the backend.
    if (statusCode < 200) return true;
    this.answered = true;
    const { backend, metrics, openEnded, head } = this.options;
    metrics.backendDuration
      .series(backend, statusCode)
      .observe((performance.now() - this.started) / 1000);
    const headers = endToEndRawHeaders(rawHeaders, util.headerNameToString);
    this.reply.code(statusCode);
    this.reply.headers(headers);
    if (!openEnded && !head && Number(headers['content-length']) <= smallBodyBytes) {
      this.chunks = [];
      return true;
    }
    this.stream = new Readable({
      read: () => resume(),
      // The reply gave up on the answer (its client went away): stop reading the backend.
      destroy: (error, done) => {
        if (!this.reply.raw.writableFinished) this.abort?.();
        done(error);
      },
    });
    this.reply.send(this.stream);
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.chunks) {
      this.chunks.push(chunk);
      return true;
    }
    return this.stream!.push(chunk);
  }

  onComplete(): void {
    if (this.chunks) {
      const chunks = this.chunks;
      this.reply.send(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    } else this.stream!.push(null);
  }

  onError(error: Error): void {
    const { backend, timeoutMs, metrics, body, limiter } = this.options;
    // A body over the limit surfaces as the backend call failing; report the limit, not the backend.
    const failure =
      limiter?.errored instanceof GatewayError
        ? limiter.errored
        : backendFailure(backend, timeoutMs, error);
    if (!this.answered)
      metrics.backendDuration
        .series(backend, failureStatusLabel(failure))
        .observe((performance.now() - this.started) / 1000);
    if (body instanceof Readable && !body.destroyed) {
      body.on('error', () => {});
      body.destroy(error);
    }
    if (this.stream) this.stream.destroy(failure);
    else this.reply.send(failure);
  }
}
