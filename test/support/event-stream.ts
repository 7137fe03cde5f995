// A Server-Sent Events client for the stream tests: frames parsed as they arrive, waited for by predicate.
export interface StreamEvent {
  event: string;
  id?: string;
  data: any;
}

export interface EventStreamClient {
  status: number;
  headers: Headers;
  /** Every event so far, in order. */
  events: StreamEvent[];
  /** Comment lines (heartbeats) seen so far. */
  comments: number;
  /** The first event from index `from` on that matches, waiting up to `timeoutMs`. */
  next(
    match: (event: StreamEvent) => boolean,
    timeoutMs?: number,
    from?: number,
  ): Promise<StreamEvent>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

export async function openEventStream(
  url: string,
  headers: Record<string, string>,
): Promise<EventStreamClient> {
  const abort = new AbortController();
  const response = await fetch(url, {
    headers: { accept: 'text/event-stream', ...headers },
    signal: abort.signal,
  });
  const events: StreamEvent[] = [];
  const waiters = new Set<() => void>();
  const client: EventStreamClient = {
    status: response.status,
    headers: response.headers,
    events,
    comments: 0,
    ended: Promise.resolve(),
    next: (match, timeoutMs = 5_000, from = 0) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const found = events.slice(from).find(match);
          if (found) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(found);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(`no matching event within ${timeoutMs} ms; got ${JSON.stringify(events)}`),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
    close: () => abort.abort(),
  };
  if (!response.body) return client;
  client.ended = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const fields: Record<string, string> = {};
          for (const line of frame.split('\n')) {
            if (line.startsWith(':')) client.comments += 1;
            const colon = line.indexOf(':');
            if (colon > 0) fields[line.slice(0, colon)] = line.slice(colon + 1).trimStart();
          }
          if (fields.data !== undefined)
            events.push({
              event: fields.event ?? 'message',
              id: fields.id,
              data: JSON.parse(fields.data),
            });
          for (const waiter of [...waiters]) waiter();
        }
      }
    } catch {
      // aborted by close()
    }
  })();
  return client;
}
