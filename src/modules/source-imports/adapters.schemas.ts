import Type, { type Static } from 'typebox';
import { EXAMPLE_IDS } from '../../http/examples.ts';
import { DateTime, Nullable, Uuid } from '../../http/schemas.ts';

const Strict = { additionalProperties: false } as const;
const Text = Type.String({ minLength: 1, maxLength: 200 });
const Column = Type.Object({ column: Text }, Strict);

export const SheetMapping = Type.Object(
  {
    sheet: Type.String({ minLength: 1, maxLength: 200, description: 'A sheet name, or `*` for any sheet' }),
    draft: Type.Union([Type.Literal('form_value'), Type.Literal('activity')]),
    form: Type.Union([
      Type.Object({ id: Text }, Strict),
      Type.Object({ metadataKey: Text, metadataValue: Text }, Strict),
    ]),
    site: Type.Optional(
      Type.Object(
        {
          column: Text,
          match: Type.String({
            pattern: '^(id|code|name|metadata\\..{1,200})$',
            description: '`id`, `code`, `name` or `metadata.<key>`',
          }),
        },
        Strict,
      ),
    ),
    year: Type.Optional(Column),
    period: Type.Optional(
      Type.Union([Type.Object({ column: Text }, Strict), Type.Object({ dateColumn: Text }, Strict)]),
    ),
    element: Type.Optional(Type.Union([Type.Object({ key: Text }, Strict), Column])),
    value: Type.Optional(Column),
    unit: Type.Optional(Column),
    activity: Type.Optional(Type.Object({ key: Text }, Strict)),
    inputs: Type.Optional(Type.Record(Type.String(), Column, { minProperties: 1, maxProperties: 200 })),
    reduce: Type.Optional(Type.Union([Type.Literal('sum'), Type.Literal('last')])),
  },
  Strict,
);
export type SheetMapping = Static<typeof SheetMapping>;

export const Mapping = Type.Object(
  { sheets: Type.Array(SheetMapping, { minItems: 1, maxItems: 50 }) },
  { ...Strict, description: 'How sheets and columns become drafts (see the README)' },
);
export type Mapping = Static<typeof Mapping>;

export const AdapterBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Nullable(Type.String({ maxLength: 5000 }))),
    mapping: Mapping,
  },
  {
    ...Strict,
    examples: [
      {
        name: 'Utility bills',
        description: 'Monthly electricity per site, in kWh or MWh',
        mapping: {
          sheets: [
            {
              sheet: 'Electricity',
              draft: 'form_value',
              form: { id: EXAMPLE_IDS.form },
              site: { column: 'Site', match: 'code' },
              year: { column: 'Year' },
              period: { column: 'Month' },
              element: { key: 'electricity' },
              value: { column: 'Amount' },
              unit: { column: 'Unit' },
              reduce: 'sum',
            },
          ],
        },
      },
    ],
  },
);
export type AdapterBody = Static<typeof AdapterBody>;

export const AdapterDefinition = Type.Object({
  id: Uuid,
  name: Type.String(),
  description: Nullable(Type.String()),
  mapping: { ...Mapping, description: 'The mapping of the current version' },
  adapterVersion: Type.String({ description: 'SHA-256 hex of the current mapping’s canonical JSON' }),
  versions: Type.Array(Type.Object({ adapterVersion: Type.String(), createdAt: DateTime }), {
    description: 'Every saved version, oldest first; each stays usable by its hash',
  }),
  createdAt: DateTime,
  updatedAt: DateTime,
});
export type AdapterDefinition = Static<typeof AdapterDefinition>;
