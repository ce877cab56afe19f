import Type from 'typebox';
import { AppError, conflict } from '../domain/errors.ts';

/** What an Idempotency-Key may hold: 1-200 printable ASCII characters without spaces. */
export const IDEMPOTENCY_KEY_PATTERN = '^[\\x21-\\x7e]{1,200}$';

/** An Idempotency-Key header schema with its own description (required or not by the route). */
export const idempotencyKey = (description: string) =>
  Type.String({ pattern: IDEMPOTENCY_KEY_PATTERN, description });

const MESSAGES = {
  reused:
    'This Idempotency-Key was already used with a different request body; send the original body to get its result, or use a new key',
  busy: 'A request with this Idempotency-Key is still being processed; retry shortly to get its result',
};

/** The 409 of a key that gives no stored answer, naming the header. */
export function idempotencyConflict(reason: keyof typeof MESSAGES): AppError {
  const message = MESSAGES[reason];
  const error = conflict(message);
  return new AppError('CONFLICT', error.message, [{ path: 'Idempotency-Key', message }]);
}

/** The header marking an answer replayed for a repeated key (declared in OpenAPI). */
export const REPLAYED_HEADER = 'Idempotent-Replayed';
