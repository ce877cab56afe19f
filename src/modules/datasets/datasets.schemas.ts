import Type from 'typebox';
import { EXAMPLE_IDS } from '../../http/examples.ts';
import { DateTime, Nullable, Uuid } from '../../http/schemas.ts';

const Name = Type.String({ minLength: 1, maxLength: 200 });
const Description = Nullable(Type.String({ maxLength: 5000 }));
const DataSource = Nullable(
  Type.String({
    maxLength: 500,
    description: 'Where the coefficients come from (a publisher, a report, an address)',
  }),
);
const Version = Nullable(
  Type.String({ maxLength: 100, description: 'The edition of that source, as it names it (`2025`, `v2.1`)' }),
);
export const DatasetMetadata = Type.Record(Type.String(), Type.Unknown(), {
  description: 'Free-form fields; exported as `metadata.<field>` CSV columns',
});
const Tags = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 100 });
export const MIN_YEAR = 1900;
export const MAX_YEAR = 2200;
const Year = Type.Integer({ minimum: MIN_YEAR, maximum: MAX_YEAR, examples: [2025] });

export const Dataset = Type.Object({
  id: Uuid,
  name: Type.String({ description: 'Display name' }),
  description: Nullable(Type.String({ description: 'Free text for people' })),
  dataSource: Nullable(Type.String({ description: 'Where the coefficients come from' })),
  version: Nullable(Type.String({ description: 'The edition of that source' })),
  isCommon: Type.Boolean({ description: 'Shared read-only with every organization' }),
  builtIn: Type.Boolean({
    description:
      'Part of the built-in factor library: common, owned by no organization, never changed (a new version is a new dataset)',
  }),
  readOnly: Type.Boolean({
    description:
      'Whether the caller is refused changes to it (the library, other organizations’ common datasets, roles below OWNER)',
  }),
  licence: Nullable(
    Type.String({ description: 'Under which licence its figures may be used (library datasets)' }),
  ),
  link: Nullable(Type.String({ description: 'Where to read its source' })),
  supersededById: Nullable(
    Type.String({
      format: 'uuid',
      description: 'The library dataset that replaces this version; null while it is the latest',
    }),
  ),
  organizationId: Nullable(
    Type.String({ format: 'uuid', description: 'The owning organization; null for the built-in library' }),
  ),
  itemCount: Type.Integer({ minimum: 0, description: 'How many coefficients it holds' }),
  createdAt: DateTime,
  updatedAt: DateTime,
});

export const CreateDatasetBody = Type.Object(
  {
    name: Name,
    description: Type.Optional(Description),
    dataSource: Type.Optional(DataSource),
    version: Type.Optional(Version),
    isCommon: Type.Optional(
      Type.Boolean({ description: 'Share with every organization (platform admins only)', default: false }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        name: 'Emission factors 2025',
        description: 'Grid electricity and fuels, kgCO2e per unit',
        dataSource: 'National grid operator, annual emission factors',
        version: '2025.1',
      },
    ],
  },
);

export const UpdateDatasetBody = Type.Object(
  {
    name: Type.Optional(Name),
    description: Type.Optional(Description),
    dataSource: Type.Optional(DataSource),
    version: Type.Optional(Version),
    isCommon: Type.Optional(Type.Boolean({ description: 'Platform admins only' })),
  },
  {
    additionalProperties: false,
    examples: [{ name: 'Emission factors 2025 (revised)' }],
    description: 'Each field sent replaces the stored one; others are kept',
  },
);

export const DatasetIdParams = Type.Object({ datasetId: Type.String({ description: 'The dataset' }) });

export const ItemData = Type.Object(
  {
    key: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'What the coefficient is for; unique in the dataset per year',
    }),
    value: Type.Number({ description: 'The coefficient' }),
    unit: Type.Optional(
      Nullable(
        Type.String({
          minLength: 1,
          maxLength: 32,
          description:
            'Symbol of the unit the coefficient yields per input unit (kgCO2e in kgCO2e per kWh); a unit the organization can see',
        }),
      ),
    ),
  },
  { additionalProperties: false },
);

const itemFields = {
  name: Type.String({ minLength: 1, maxLength: 500, description: 'The label' }),
  data: ItemData,
  year: Type.Optional({ ...Year, description: 'Defaults to the current calendar year (UTC)' }),
  description: Type.Optional(Description),
  link: Type.Optional(Nullable(Type.String({ maxLength: 2000, description: 'Where the value comes from' }))),
  metadata: Type.Optional(DatasetMetadata),
  tags: Type.Optional(Tags),
  inputUnitId: Type.Optional(
    Nullable(Type.String({ description: 'The unit the coefficient applies per (kWh in kgCO2e per kWh)' })),
  ),
};

export const CreateItemBody = Type.Object(
  { ...itemFields, datasetId: Type.String({ description: 'The dataset the item belongs to' }) },
  {
    additionalProperties: false,
    examples: [
      {
        datasetId: EXAMPLE_IDS.dataset,
        name: 'Grid electricity, France',
        year: 2025,
        data: { key: 'electricity_fr', value: 0.052, unit: 'kgCO2e' },
        inputUnitId: EXAMPLE_IDS.unitKwh,
        link: 'https://www.example.org/factors/2025',
        tags: ['scope2'],
      },
    ],
  },
);

export const UpdateItemBody = Type.Object(
  {
    name: Type.Optional(itemFields.name),
    data: Type.Optional(ItemData),
    year: Type.Optional(Year),
    description: itemFields.description,
    link: itemFields.link,
    metadata: itemFields.metadata,
    tags: itemFields.tags,
    inputUnitId: itemFields.inputUnitId,
  },
  {
    additionalProperties: false,
    examples: [
      {
        data: { key: 'electricity_fr', value: 0.056, unit: 'kgCO2e' },
        link: 'https://www.example.org/factors/2025-revised',
      },
    ],
    description: 'Each field sent replaces the stored one; others are kept',
  },
);

export const DatasetItem = Type.Object({
  id: Uuid,
  name: Type.String({ description: 'The label' }),
  description: Nullable(Type.String({ description: 'Free text for people' })),
  link: Nullable(Type.String({ description: 'Where the value comes from' })),
  year: Type.Integer({ description: 'The year the coefficient applies to' }),
  tags: Type.Array(Type.String(), { description: 'Free labels to find items by' }),
  data: Type.Object(
    {
      key: Type.String({ description: 'What the coefficient is for; calculations look it up by this key' }),
      value: Type.Number({ description: 'The coefficient' }),
      unit: Nullable(Type.String({ description: 'Symbol of the unit it yields (kgCO2e)' })),
    },
    { description: 'The coefficient itself' },
  ),
  metadata: DatasetMetadata,
  inputUnitId: Nullable({ ...Uuid, description: 'The unit it applies per (kWh in kgCO2e per kWh)' }),
});

/**
 * A uuid or null as one JSON Schema type (`type: [string, null]`), which the response
 * serializer writes directly; `Nullable` (anyOf) makes it test every value against both branches,
 * which doubled the serialization time of a 100,000-item list.
 */
const UuidOrNull = Type.Unsafe<string | null>({
  type: ['string', 'null'],
  format: 'uuid',
  description: 'Identifier (UUID) or null',
});

export const ListedDatasetItem = Type.Object({
  id: Uuid,
  name: Type.String(),
  year: Type.Integer(),
  datasetId: Uuid,
  datasetName: Type.String(),
  tags: Type.Array(Type.String()),
  metadata: DatasetMetadata,
  inputUnitId: UuidOrNull,
  data: Type.Object(
    { key: Type.String(), value: Type.Number(), unit: Nullable(Type.String()) },
    { description: 'The coefficient itself: its key, value and unit (beyond the contract’s list fields)' },
  ),
});

export const ItemChange = Type.Object({
  id: Uuid,
  itemId: Uuid,
  datasetId: Uuid,
  action: Type.Union([Type.Literal('create'), Type.Literal('update'), Type.Literal('delete')]),
  source: Type.Union([Type.Literal('api'), Type.Literal('import'), Type.Literal('dataset-delete')], {
    description: 'api: an item call; import: a CSV import; dataset-delete: its dataset was deleted',
  }),
  userId: Nullable(Uuid),
  userName: Nullable(Type.String()),
  userEmail: Nullable(Type.String()),
  changedAt: DateTime,
  before: Nullable(DatasetItem),
  after: Nullable(DatasetItem),
});

export const ExportResult = Type.Object({
  csvContent: Type.String({
    description:
      'The CSV: label, key, value, unit, year, inputUnit, description, link, tags, then one column per metadata field',
  }),
  filename: Type.String({ description: 'A file name for it, from the dataset name' }),
  itemCount: Type.Integer({ minimum: 0, description: 'How many items (rows) it holds' }),
  dataSource: Nullable(Type.String({ description: 'The dataset’s source (not in the CSV)' })),
  version: Nullable(Type.String({ description: 'The dataset’s version (not in the CSV)' })),
});

export const DatasetImportBody = Type.Object(
  {
    csvContent: Type.String({
      description:
        'CSV with a header row: label, key, value (required), unit, year, inputUnit (unit symbols), description, link, tags (`a;b` or a JSON array), metadata.<field> (text) and metadataJson.<field> (JSON) columns, as the export writes them',
    }),
  },
  {
    additionalProperties: false,
    examples: [
      {
        csvContent:
          'label,key,value,unit,year,inputUnit\nDiesel,diesel,2.68,kgCO2e,2025,L\nHeating oil,heating_oil,0.27,kgCO2e,2025,kWh\n',
      },
    ],
  },
);

export const DatasetImportResult = Type.Object({
  created: Type.Integer({ minimum: 0 }),
  updated: Type.Integer({ minimum: 0 }),
  unchanged: Type.Integer({ minimum: 0, description: 'Rows equal to the stored item (nothing written)' }),
  failed: Type.Integer({ minimum: 0 }),
  errors: Type.Array(Type.String(), { description: '`Row N: …`, N counting data rows from 1' }),
});
