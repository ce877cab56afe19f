import Type from 'typebox';
import { DateTime, Nullable, Uuid } from '../../http/schemas.ts';

export const CreateApiKeyBody = Type.Object(
  { name: Type.String({ minLength: 1, description: 'A name to recognise the key by' }) },
  { additionalProperties: false, examples: [{ name: 'ERP integration' }] },
);

export const CreatedApiKey = Type.Object({
  id: Uuid,
  name: Type.String(),
  createdAt: DateTime,
  apiKey: Type.String({ description: 'The key itself. Shown only in this response: store it now.' }),
});

export const ListedApiKey = Type.Object({
  id: Uuid,
  name: Type.String(),
  createdAt: DateTime,
  hashedKey: Type.String({ description: 'SHA-256 of the key, in hex; the key itself is never shown again' }),
  lastUsedAt: Nullable(DateTime),
  userId: Uuid,
  userEmail: Type.String({ description: 'The owner the key acts as' }),
});
