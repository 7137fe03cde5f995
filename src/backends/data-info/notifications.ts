import type { UserNotification } from '../../common/notifications.ts';
import type { DataEvent } from './bulk.ts';
import { baseName } from '../../common/data-path.ts';

/** Notifications name the paths themselves up to this many (as sharing notifications do, routes.md §13). */
const inlinePaths = 10;

function subjectOf(event: DataEvent): string {
  const what = event.paths.length === 1 ? baseName(event.paths[0]!) : `${event.paths.length} items`;
  switch (event.action) {
    case 'move':
      return `${what} moved to ${event.dest}`;
    case 'rename':
      return `${what} renamed to ${baseName(event.dest ?? '')}`;
    case 'trash':
      return `${what} moved to the trash`;
    case 'delete':
      return `${what} deleted permanently`;
    case 'restore':
      return `${what} restored`;
    case 'empty_trash':
      return `Trash emptied: ${what} deleted permanently`;
  }
}

/** The `data` notification telling a user what one of their data operations did. */
export function dataNotification(event: DataEvent): UserNotification {
  return {
    type: 'data',
    user: event.user,
    subject: subjectOf(event),
    payload: {
      action: event.action,
      user: event.user,
      count: event.paths.length,
      ...(event.paths.length < inlinePaths ? { paths: event.paths } : {}),
      ...(event.dest !== undefined ? { dest: event.dest } : {}),
    },
  };
}

/**
 * Tells the user about an operation that changed something. Sent after the answer's work is
 * committed and not waited for: a slow or absent notification agent never holds up the data store.
 */
export function announcer(
  notify: (notification: UserNotification) => Promise<boolean>,
): (event: DataEvent) => void {
  return (event) => {
    if (event.paths.length > 0) void notify(dataNotification(event));
  };
}
