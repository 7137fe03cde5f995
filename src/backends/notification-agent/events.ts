import type { FastifyBaseLogger } from 'fastify';
import type { StoreChannel } from '../../store/channel.ts';

/**
 * What changed for whom, told to every agent process on the same store (see StoreChannel):
 * `notification` when one was recorded (`id`), `counts` when marks or system messages moved a
 * user's counts. `user` `*` means everyone (a system message changed).
 */
export interface AgentEvent {
  user: string;
  kind: 'notification' | 'counts';
  id?: string;
}

export class AgentEventBus {
  private readonly channel: StoreChannel;
  private readonly log: Pick<FastifyBaseLogger, 'warn'>;

  constructor(channel: StoreChannel, log: Pick<FastifyBaseLogger, 'warn'>) {
    this.channel = channel;
    this.log = log;
  }

  /** Told after the change is committed; a failure to tell loses a push, never the change. */
  async publish(event: AgentEvent): Promise<void> {
    try {
      await this.channel.publish(JSON.stringify(event));
    } catch (error) {
      this.log.warn({ err: error, event }, 'could not announce a notification change');
    }
  }

  /** Events for `user` (and for everyone) from the moment this resolves. */
  subscribe(user: string, listener: (event: AgentEvent) => void): Promise<() => void> {
    return this.channel.subscribe((message) => {
      let event: AgentEvent;
      try {
        event = JSON.parse(message) as AgentEvent;
      } catch {
        return;
      }
      if (event.user === user || event.user === '*') listener(event);
    });
  }
}
