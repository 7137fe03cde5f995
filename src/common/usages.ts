// A usage of a resource type, recorded with the QMS (`POST /v1/usages`, spec AddUsage): what a
// backend sends when a user has used something (the CPU hours of a finished analysis), and what the
// gateway records of a user's data store.

export interface UsageRecord {
  /** Short username. */
  username: string;
  /** `cpu.hours` or `data.size`. */
  resourceName: string;
  /** In the resource type's unit (hours, bytes). */
  value: number;
  /** `ADD` to the usage, or `SET` it. */
  updateType: 'ADD' | 'SET';
}
