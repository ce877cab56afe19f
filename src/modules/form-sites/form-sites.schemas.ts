import Type, { type Static } from 'typebox';
import { EXAMPLE_IDS } from '../../http/examples.ts';
import { Uuid, Year } from '../../http/schemas.ts';

export const SetFormSitesBody = Type.Object(
  {
    formId: Type.String({ minLength: 1, maxLength: 200, description: 'The form (404 when unknown)' }),
    siteIds: Type.Array(Type.String({ maxLength: 200 }), {
      maxItems: 10_000,
      description: 'For each year, exactly these sites become active; an empty list deactivates all',
    }),
    years: Type.Array(Year, {
      maxItems: 301,
      description: 'The years to change; others stay (an empty list changes nothing)',
    }),
  },
  {
    additionalProperties: false,
    examples: [{ formId: EXAMPLE_IDS.form, siteIds: [EXAMPLE_IDS.site], years: [2025, 2026] }],
  },
);
export type SetFormSitesBody = Static<typeof SetFormSitesBody>;

export const FormSitesQuery = Type.Object(
  {
    formId: Type.Optional(Uuid),
    siteId: Type.Optional(Uuid),
    year: Type.Optional(Year),
  },
  { additionalProperties: false },
);
export type FormSitesQuery = Static<typeof FormSitesQuery>;

export const FormSite = Type.Object({
  id: Uuid,
  formId: Uuid,
  siteId: Uuid,
  year: Type.Integer(),
});
