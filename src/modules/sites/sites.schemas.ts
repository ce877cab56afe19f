import Type, { type Static, type TSchema } from 'typebox';
import { EXAMPLE_IDS } from '../../http/examples.ts';
import { DateTime, Nullable, Uuid } from '../../http/schemas.ts';

/**
 * A value or null for request bodies, as one JSON Schema type list rather than a union, so
 * that a bad value gets one issue (`latitude must be <= 90`) instead of one per branch.
 */
const OrNull = <T extends TSchema>(schema: T) =>
  Type.Unsafe<Static<T> | null>({ ...schema, type: [(schema as unknown as { type: string }).type, 'null'] });

/** Length limits shared by the JSON routes and the CSV import. */
export const SITE_LIMITS = { name: 200, code: 100, addressField: 200 } as const;

export const ADDRESS_FIELDS = ['line1', 'line2', 'city', 'postalCode', 'region', 'country'] as const;
export type AddressField = (typeof ADDRESS_FIELDS)[number];

const addressField = (description: string) =>
  Type.Optional(Type.String({ maxLength: SITE_LIMITS.addressField, description }));

export const Address = Type.Object(
  {
    line1: addressField('First street line'),
    line2: addressField('Second street line'),
    city: addressField('City or town'),
    postalCode: addressField('Postal or ZIP code'),
    region: addressField('State, province or region'),
    country: addressField('Country (name or ISO code, as you prefer)'),
  },
  { additionalProperties: false, description: 'Postal address; empty strings are dropped' },
);

const Metadata = Type.Record(Type.String(), Type.Unknown(), {
  description: 'Free-form attributes of the site (any JSON values)',
});

const Latitude = Type.Number({ minimum: -90, maximum: 90, description: 'Degrees north (WGS 84)' });
const Longitude = Type.Number({ minimum: -180, maximum: 180, description: 'Degrees east (WGS 84)' });
const Name = Type.String({ minLength: 1, maxLength: SITE_LIMITS.name, description: 'Display name' });
const Code = Type.String({
  minLength: 1,
  maxLength: SITE_LIMITS.code,
  description: 'Short code, unique in the organization regardless of letter case',
});

export const Site = Type.Object({
  id: Uuid,
  name: Type.String({ description: 'Display name' }),
  code: Nullable(Type.String({ description: 'Short code, unique in the organization' })),
  parentId: Nullable({ ...Uuid, description: 'The parent site; null for a top-level site' }),
  latitude: Nullable(Type.Number({ description: 'Degrees north (WGS 84)' })),
  longitude: Nullable(Type.Number({ description: 'Degrees east (WGS 84)' })),
  address: Nullable(Address),
  metadata: Metadata,
  createdAt: DateTime,
  updatedAt: DateTime,
});
export type SiteOut = Static<typeof Site>;

export const CreateSiteBody = Type.Object(
  {
    name: Name,
    code: Type.Optional(OrNull(Code)),
    parentId: Type.Optional(
      OrNull(Type.String({ description: 'The parent site; omit or null for a top-level site (owners)' })),
    ),
    latitude: Type.Optional(OrNull(Latitude)),
    longitude: Type.Optional(OrNull(Longitude)),
    address: Type.Optional(OrNull(Address)),
    metadata: Type.Optional(Metadata),
  },
  {
    additionalProperties: false,
    // The first works as it is on a new organization; the second names a parent site.
    'x-examples': {
      topLevel: {
        summary: 'A top-level site (works as it is on a new organization)',
        description: 'Top-level sites are created by owners; managers add sites under the sites they manage.',
        'x-min-role': 'OWNER',
        value: {
          name: 'Lyon plant',
          code: 'LYON-01',
          latitude: 45.764,
          longitude: 4.8357,
          address: { line1: '12 rue de la République', city: 'Lyon', postalCode: '69002', country: 'FR' },
          metadata: { erp: 'S-204', country: 'FR' },
        },
      },
      child: {
        summary: 'A site under another one',
        description: `Needs existing records: replace \`parentId\` (${EXAMPLE_IDS.site}) with a site of your organization.`,
        value: {
          name: 'Lyon plant, line 2',
          code: 'LYON-01-L2',
          parentId: EXAMPLE_IDS.site,
          latitude: 45.764,
          longitude: 4.8357,
          metadata: { erp: 'S-205' },
        },
      },
    },
  },
);
export type CreateSiteInput = Static<typeof CreateSiteBody>;

export const UpdateSiteBody = Type.Object(
  {
    name: Type.Optional(Name),
    code: Type.Optional(OrNull(Code)),
    parentId: Type.Optional(
      OrNull(Type.String({ description: 'Moves the site; null makes it a top-level site (owners)' })),
    ),
    latitude: Type.Optional(OrNull(Latitude)),
    longitude: Type.Optional(OrNull(Longitude)),
    address: Type.Optional(OrNull(Address)),
    metadata: Type.Optional(Metadata),
  },
  {
    additionalProperties: false,
    examples: [{ name: 'Main plant (north gate)', latitude: 45.77, longitude: 4.86 }],
    description: 'Only the fields sent change; null clears a field',
  },
);
export type UpdateSiteInput = Static<typeof UpdateSiteBody>;

export const ListSitesQuery = Type.Object(
  {
    parentId: Type.Optional(Type.String({ description: 'Only the direct children of this site' })),
    q: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'Text contained in the name or code' }),
    ),
  },
  // A misspelt filter (`?parent=…`) is a 400 naming it, not a silently unfiltered list.
  { additionalProperties: false },
);
export type ListSitesFilter = Static<typeof ListSitesQuery>;

export const ImportSitesBody = Type.Object(
  {
    csvContent: Type.String({
      description:
        'CSV with a header row. Columns: name (required), code, parent (code, name or id of a stored site or of another row), latitude, longitude, line1, line2, city, postalCode, region, country (also as address.<field>), metadata.<field>.',
    }),
    organizationId: Type.String({ description: 'Must be the caller’s organization' }),
  },
  {
    additionalProperties: false,
    examples: [
      {
        organizationId: EXAMPLE_IDS.organization,
        csvContent:
          'name,code,parent,latitude,longitude,city,country,metadata.erp\nMarseille depot,MRS-01,PLANT-01,43.2965,5.3698,Marseille,FR,S-310\n',
      },
    ],
  },
);
export type ImportSitesInput = Static<typeof ImportSitesBody>;

export const SiteImportResult = Type.Object({
  success: Type.Integer({ description: 'Rows imported' }),
  failed: Type.Integer({ description: 'Rows skipped because of an error' }),
  errors: Type.Array(Type.String(), { description: '`Row N: …` for each failed row (N counts data rows)' }),
  logs: Type.Array(Type.String(), { description: 'What was created' }),
});
export type ImportResultOut = Static<typeof SiteImportResult>;
