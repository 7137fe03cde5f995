/**
 * Hands back what starting a process left behind (bench/README.md "Idle RSS"): one
 * memory-reducing garbage collection, which main.ts runs half a second after the gateway listens.
 *
 * Loading the modules, building the schemas and routes and migrating the store allocate fast and
 * keep much of it, so V8 grows its young generation to the largest it may be (two 16 MiB
 * semi-spaces, 32 MiB resident) and keeps it so: an ordinary collection only shrinks it when
 * allocation has been slow for seconds, and nothing in an idle gateway triggers one. A
 * memory-reducing collection (V8's low-memory notification) shrinks it to a megabyte, compacts
 * the old generation and returns the freed pages: about 35 MiB less resident memory. Under load
 * the young generation grows back as it did before, so requests are served as before.
 *
 * Node has no API for that notification but the inspector protocol's
 * `HeapProfiler.collectGarbage`, reached here through an in-process session (no port is opened,
 * and a debugger attached with `--inspect` is not disturbed). The collection pauses the event
 * loop once, for about 100–300 ms on the bench machine; a Node built without the inspector skips
 * it.
 */
export async function releaseStartupMemory(): Promise<void> {
  let session: import('node:inspector').Session;
  try {
    const { Session } = await import('node:inspector');
    session = new Session();
    session.connect();
  } catch {
    return; // a Node built without the inspector: the memory stays, nothing else changes
  }
  await new Promise<void>((resolve) =>
    session.post('HeapProfiler.collectGarbage', () => {
      // Not from within the session's own callback: disconnecting there never returns.
      setImmediate(() => {
        session.disconnect();
        resolve();
      });
    }),
  );
}
