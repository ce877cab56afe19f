const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for a UUID string; ids that are not UUIDs can never match a record. */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}
