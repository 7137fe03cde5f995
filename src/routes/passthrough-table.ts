import type { PassthroughRoute } from '../http/passthrough.js';
export const passthroughRoutes: readonly PassthroughRoute[] = [];
