import Type from 'typebox';
import { Nullable, Uuid } from '../../http/schemas.ts';

export const Unit = Type.Object({
  id: Uuid,
  symbol: Type.String({ description: 'Short symbol, e.g. kWh or kgCO2e' }),
  name: Type.String(),
  dimension: Type.String({
    description:
      'What the unit measures (`energy`, or a quotient such as `emissions/area`); conversion only within one dimension',
  }),
  factorToBase: Type.Number({
    description: 'value in the base unit of the dimension = value × factorToBase',
  }),
  organizationId: Nullable(Uuid),
});

export const CreateUnitBody = Type.Object(
  {
    symbol: Type.String({
      minLength: 1,
      maxLength: 32,
      pattern: '^\\S+$',
      description: 'Unique within the organization and not one of the catalog symbols (case-sensitive)',
    }),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    dimension: Type.String({
      minLength: 1,
      maxLength: 64,
      pattern: '^[A-Za-z][A-Za-z0-9_]*(/[A-Za-z][A-Za-z0-9_]*)?$',
      description:
        'An existing dimension (energy, mass, …), a new one of your own, or a quotient of two (`emissions/area`, base unit: the base of the first per the base of the second)',
    }),
    factorToBase: Type.Number({
      exclusiveMinimum: 0,
      description: 'How many base units of the dimension one of this unit is (energy: kWh, mass: kg, …)',
    }),
  },
  {
    additionalProperties: false,
    examples: [{ symbol: 'boe', name: 'barrel of oil equivalent', dimension: 'energy', factorToBase: 1700 }],
  },
);
