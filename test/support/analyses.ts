// Reading analyses back in tests, as the web UI lists them: one analysis by id, and the wait for
// one to end (Completed, Failed or Canceled), bounded.
import { eventually } from './fileio.ts';

interface Caller {
  ok(user: string, method: string, route: string): Promise<any>;
}

/** `user`'s listing row of analysis `id` (undefined when they cannot see it). */
export const listedAnalysis = async (gw: Caller, user: string, id: string) =>
  (
    await gw.ok(
      user,
      'GET',
      `/analyses?filter=${encodeURIComponent(JSON.stringify([{ field: 'id', value: id }]))}`,
    )
  ).analyses[0];

/** The listing row of analysis `id` once it has ended. */
export const endedAnalysis = (gw: Caller, user: string, id: string, timeoutMs = 30_000) =>
  eventually(
    async () => {
      const row = await listedAnalysis(gw, user, id);
      return ['Completed', 'Failed', 'Canceled'].includes(row?.status) ? row : undefined;
    },
    timeoutMs,
    `analysis ${id} to end`,
  );
