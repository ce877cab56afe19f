import type { ElementTypeHandlers, StoreContext, ValuesSession } from './element-types.ts';

/**
 * The sessions of one pipeline call, one per entry (target) and element type that has any, opened
 * when first needed and kept across attempts (their work, e.g. calculations, is reused).
 */
export class ValuesSessions {
  private readonly byEntry: Map<keyof ElementTypeHandlers, ValuesSession>[] = [];

  constructor(
    private readonly handlers: ElementTypeHandlers,
    private readonly context: StoreContext,
  ) {}

  of(entry: number, type: keyof ElementTypeHandlers): ValuesSession | undefined {
    let own = this.byEntry[entry];
    if (!own) {
      own = new Map();
      this.byEntry[entry] = own;
    }
    let session = own.get(type);
    const handler = this.handlers[type];
    if (!session && handler.open) {
      session = handler.open(this.context);
      own.set(type, session);
    }
    return session;
  }

  /** The sessions of one entry, in the order they were opened. */
  entry(entry: number): ValuesSession[] {
    return [...(this.byEntry[entry]?.values() ?? [])];
  }

  all(): ValuesSession[] {
    return this.byEntry.flatMap((own) => [...(own?.values() ?? [])]);
  }

  /** Frees what the sessions hold; once the call ends, however it ends. */
  async close(): Promise<void> {
    for (const session of this.all()) await session.close?.();
  }
}
