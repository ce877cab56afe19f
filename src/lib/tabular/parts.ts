/** Parts smaller than this are joined before they cross (fewer messages for the same bytes). */
const PART_BYTES = 64 * 1024;

/**
 * Joins an encoder's chunks into parts of at least `PART_BYTES` before `emit` sends them across
 * (`flush` sends what is held at once: the head, so that the answer starts, and the end); `bytes`
 * counts what was sent.
 */
export function partSender(emit: (part: unknown) => Promise<void>) {
  let held: Buffer[] = [];
  let heldBytes = 0;
  const sender = {
    bytes: 0,
    async send(chunks: Buffer[], flush = false): Promise<void> {
      for (const chunk of chunks) {
        held.push(chunk);
        heldBytes += chunk.length;
        sender.bytes += chunk.length;
        if (heldBytes >= PART_BYTES) await sender.flush();
      }
      if (flush) await sender.flush();
    },
    async flush(): Promise<void> {
      if (heldBytes === 0) return;
      const part = held.length === 1 ? held[0]! : Buffer.concat(held, heldBytes);
      held = [];
      heldBytes = 0;
      await emit(part);
    },
  };
  return sender;
}
