// Tag fileio: download, upload, URL import, save and save-as (spec "File I/O"), on data-info.
import type { FastifyInstance } from 'fastify';
import type { GatewayConfig } from '../config.js';
import type { Forwarder } from '../http/proxy.js';

export interface FileioDeps {
  forwarder: Forwarder;
  config: GatewayConfig;
}

// TODO(issue 4)
export async function fileioRoutes(_app: FastifyInstance, _deps: FileioDeps): Promise<void> {}
