import Type, { type Static } from 'typebox';
import { EXAMPLE_DASHBOARD_PASSWORD, EXAMPLE_IDS } from '../../http/examples.ts';
import { DateTime, Nullable, Uuid } from '../../http/schemas.ts';

const Year = Type.Integer({ minimum: 1900, maximum: 2200 });
const Day = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'A day, YYYY-MM-DD' });
export const DashboardStatus = Type.Enum(['COMPLETED', 'APPROVED', 'REJECTED']);
const Tags = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 100 });
const Email = Type.String({ format: 'email', maxLength: 320 });
export const DOMAIN_PATTERN = '^(?!-)(?:[a-z0-9-]{1,63}\\.)+[a-z]{2,63}$';
const Domain = Type.String({ pattern: DOMAIN_PATTERN, maxLength: 253, description: 'e.g. `example.com`' });

export const GlobalFilterSchema = Type.Object(
  {
    siteIds: Type.Optional(
      Type.Array(Type.String(), {
        maxItems: 1000,
        description: 'Sites of the organization; each with its descendants',
      }),
    ),
    startYear: Type.Optional(Year),
    endYear: Type.Optional(Year),
    startDate: Type.Optional(Day),
    endDate: Type.Optional(Day),
    statuses: Type.Optional(
      Type.Array(DashboardStatus, {
        maxItems: 3,
        description: 'Default: the organization’s defaultStatuses',
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      'What every widget of the dashboard computes over. Without years or dates: the current year. startYear ≤ endYear, startDate ≤ endDate.',
  },
);

const AggregateLines = Type.Object(
  {
    totalColor: Type.Optional(Type.String({ maxLength: 50 })),
    averageColor: Type.Optional(Type.String({ maxLength: 50 })),
    peerAverageColor: Type.Optional(Type.String({ maxLength: 50 })),
    totalLineStyle: Type.Optional(Type.String({ maxLength: 50, examples: ['solid'] })),
    averageLineStyle: Type.Optional(Type.String({ maxLength: 50 })),
    peerAverageLineStyle: Type.Optional(Type.String({ maxLength: 50 })),
    totalStrokeWidth: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
    averageStrokeWidth: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
    peerAverageStrokeWidth: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
  },
  { additionalProperties: false },
);

export const WidgetThemeSchema = Type.Object(
  {
    mode: Type.Optional(Type.String({ maxLength: 50, examples: ['default'] })),
    customColors: Type.Optional(Type.Array(Type.String({ maxLength: 50 }), { maxItems: 50 })),
    aggregateLines: Type.Optional(AggregateLines),
  },
  { additionalProperties: false },
);

const updatable = {
  name: Type.String({ minLength: 1, maxLength: 500 }),
  description: Nullable(Type.String({ maxLength: 5000, description: 'null clears it' })),
  isPublic: Type.Boolean({ description: 'Anyone with the link may open it at /public/dashboards/{id}' }),
  publicCanFilterSites: Type.Boolean({
    description: 'Public viewers may narrow the sites (within the filter)',
  }),
  password: Nullable(
    Type.String({
      minLength: 8,
      maxLength: 200,
      description: 'Request only; stored as an argon2id hash. null removes the password.',
    }),
  ),
  publicAccessEmails: Type.Array(Email, { maxItems: 1000, description: 'Addresses that may ask for a code' }),
  publicAccessDomains: Type.Array(Domain, {
    maxItems: 1000,
    description: 'Addresses of these domains (exactly; not their subdomains) may ask for a code',
  }),
  tags: Tags,
};

export const UpdateDashboardBody = Type.Partial(
  Type.Object({
    ...updatable,
    globalFilter: GlobalFilterSchema,
    widgetTheme: WidgetThemeSchema,
    order: Type.Integer({ minimum: -1_000_000, maximum: 1_000_000 }),
  }),
  {
    additionalProperties: false,
    description:
      'Every field optional; a field sent replaces the stored one. Changing the password or the e-mail lists ends every access grant issued before.',
    examples: [
      {
        name: 'Energy 2025',
        description: null,
        isPublic: true,
        globalFilter: { siteIds: [EXAMPLE_IDS.site], startYear: 2025, endYear: 2025 },
        password: EXAMPLE_DASHBOARD_PASSWORD,
        publicAccessDomains: ['example.com'],
        tags: ['energy'],
      },
    ],
  },
);
export type UpdateDashboardBody = Static<typeof UpdateDashboardBody>;

export const CreateDashboardBody = Type.Object(
  {
    ...Type.Partial(Type.Object(updatable)).properties,
    name: updatable.name,
    globalFilter: Type.Optional(GlobalFilterSchema),
    widgetTheme: Type.Optional(WidgetThemeSchema),
    order: Type.Optional(
      Type.Integer({ minimum: -1_000_000, maximum: 1_000_000, description: 'Lists sort by it' }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        name: 'Energy and emissions',
        description: 'Monthly electricity of the plants',
        globalFilter: { siteIds: [EXAMPLE_IDS.site], startYear: 2025, endYear: 2025, statuses: ['APPROVED'] },
        widgetTheme: { mode: 'default', aggregateLines: { totalColor: '#1f77b4', totalLineStyle: 'solid' } },
        tags: ['energy'],
      },
    ],
  },
);
export type CreateDashboardBody = Static<typeof CreateDashboardBody>;

export const WidgetConfigSchema = Type.Object(
  {
    period: Type.Optional(
      Type.Enum(['MONTHLY', 'QUARTERLY', 'YEARLY'], { description: 'LINE, BAR, TABLE [YEARLY]' }),
    ),
    sites: Type.Optional(
      Type.Enum(['TOTAL', 'BREAKDOWN', 'CHILDREN'], {
        description:
          'TOTAL: one series per indicator over the filter’s sites; BREAKDOWN: one per filter site (each with its descendants); CHILDREN: one per child site of the filter’s sites (of the organization’s top-level sites without any), looked up whenever the data is read, so a site added later shows [TOTAL]',
      }),
    ),
    showTarget: Type.Optional(
      Type.Boolean({
        description:
          'The indicator’s targets beside it [false]: on YEARLY series a linear path from the baseline year’s actual value to each target year; on MONTHLY/QUARTERLY series of a summed indicator a yearly target split evenly; a target that cannot be drawn is explained in the widget’s `issues`',
      }),
    ),
    decimals: Type.Optional(Type.Integer({ minimum: 0, maximum: 10 })),
  },
  { additionalProperties: false },
);

const WidgetType = Type.Enum(['VALUE', 'LINE', 'BAR', 'TABLE']);
const widgetFields = {
  type: WidgetType,
  title: Type.String({ minLength: 1, maxLength: 500 }),
  indicatorIds: Type.Array(Type.String(), {
    minItems: 1,
    maxItems: 20,
    description: 'Indicators of the organization',
  }),
  config: WidgetConfigSchema,
};

export const CreateWidgetBody = Type.Object(
  { ...widgetFields, config: Type.Optional(WidgetConfigSchema) },
  {
    additionalProperties: false,
    examples: [
      {
        type: 'LINE',
        title: 'Electricity per month',
        indicatorIds: [EXAMPLE_IDS.indicator],
        config: { period: 'MONTHLY', sites: 'TOTAL', showTarget: true, decimals: 1 },
      },
      {
        type: 'BAR',
        title: 'Electricity by plant',
        indicatorIds: [EXAMPLE_IDS.indicator],
        config: { period: 'YEARLY', sites: 'CHILDREN', showTarget: true },
      },
    ],
  },
);
export type CreateWidgetBody = Static<typeof CreateWidgetBody>;

export const UpdateWidgetBody = Type.Partial(Type.Object(widgetFields), {
  additionalProperties: false,
  description: 'A field sent replaces the stored one (config: the whole object)',
  examples: [{ title: 'Electricity this year', type: 'VALUE', config: { decimals: 0 } }],
});
export type UpdateWidgetBody = Static<typeof UpdateWidgetBody>;

export const WidgetSchema = Type.Object({
  id: Uuid,
  dashboardId: Uuid,
  type: WidgetType,
  title: Type.String(),
  indicatorIds: Type.Array(Type.String()),
  config: WidgetConfigSchema,
  position: Type.Integer(),
  createdAt: DateTime,
  updatedAt: DateTime,
});

export const WidgetAnswer = Type.Object({
  ...WidgetSchema.properties,
  dashboardIsPublic: Type.Boolean({
    description: 'The dashboard is public: this widget is visible through its link',
  }),
  notice: Nullable(Type.String({ description: 'Said when the widget is visible publicly' })),
});

export const Dashboard = Type.Object({
  id: Uuid,
  name: Type.String(),
  description: Nullable(Type.String()),
  organizationId: Uuid,
  isPublic: Type.Boolean(),
  publicCanFilterSites: Type.Boolean(),
  order: Type.Integer(),
  globalFilter: GlobalFilterSchema,
  widgetTheme: WidgetThemeSchema,
  tags: Type.Array(Type.String()),
  hasPassword: Type.Boolean(),
  requiresEmail: Type.Boolean({ description: 'publicAccessEmails or publicAccessDomains is set' }),
  publicAccessEmails: Type.Array(Type.String()),
  publicAccessDomains: Type.Array(Type.String()),
  organizationDefaultStatuses: Type.Array(DashboardStatus),
  createdAt: DateTime,
  updatedAt: DateTime,
});
export type Dashboard = Static<typeof Dashboard>;

export const DashboardWithWidgets = Type.Object({
  ...Dashboard.properties,
  widgets: Type.Array(WidgetSchema),
});

const SeriesPoint = Type.Object({
  period: Type.String({ description: '`2026`, `2026-Q1`, `2026-03`; `total` for the total' }),
  label: Type.String({ description: '`2026`, `Q1 2026`, `Mar 2026`' }),
  value: Nullable(Type.Number({ description: 'In the display unit' })),
  formatted: Nullable(Type.String()),
});

const Series = Type.Object({
  indicatorId: Type.String(),
  name: Type.String(),
  siteId: Type.Optional(Type.String()),
  siteName: Type.Optional(Type.String()),
  unit: Nullable(Type.String()),
  total: SeriesPoint,
  points: Type.Array(SeriesPoint),
  targets: Type.Array(
    Type.Object({
      targetId: Type.String(),
      name: Nullable(Type.String()),
      type: Type.Enum(['ABSOLUTE', 'PERCENTAGE']),
      points: Type.Array(SeriesPoint),
    }),
  ),
  issues: Type.Array(Type.Object({ type: Type.String(), message: Type.String() })),
});

const WidgetIssue = Type.Object({
  type: Type.String({
    description:
      '`targetNotAdditive` (a yearly target on monthly/quarterly periods of an indicator that is not a sum over time), `targetBaselineMissing` (no actual value in the baseline year: the path from it is not drawn), `targetNotShown` (no entry of the target falls on the widget’s periods)',
    examples: ['targetBaselineMissing'],
  }),
  message: Type.String(),
  indicatorId: Type.Optional(Type.String()),
  targetId: Type.Optional(Type.String()),
  siteId: Type.Optional(Type.String({ description: 'The series’ site (breakdowns)' })),
});

export const WidgetDataSchema = Type.Object({
  widgetId: Type.String(),
  series: Type.Array(Series),
  issues: Type.Array(WidgetIssue, {
    description: 'What the widget cannot show as configured (targets that cannot be drawn), and why',
  }),
});

export const PublicDashboardSchema = Type.Object({
  id: Uuid,
  name: Type.String(),
  description: Nullable(Type.String()),
  isPublic: Type.Boolean(),
  publicCanFilterSites: Type.Boolean(),
  hasPassword: Type.Boolean(),
  requiresEmail: Type.Boolean(),
  globalFilter: GlobalFilterSchema,
  widgetTheme: WidgetThemeSchema,
  tags: Type.Array(Type.String()),
  updatedAt: DateTime,
});

export const DashboardViewSchema = Type.Object({
  dashboard: PublicDashboardSchema,
  widgets: Type.Array(WidgetSchema),
  data: Type.Array(WidgetDataSchema, { description: 'One per widget, in the same order' }),
  sites: Type.Array(Type.Object({ id: Type.String(), name: Type.String() }), {
    description: 'The sites a viewer may pick (only when publicCanFilterSites)',
  }),
  computedAt: DateTime,
});

export const WidgetParams = Type.Object({
  id: Type.String({ description: 'The dashboard' }),
  widgetId: Type.String({ description: 'The widget' }),
});

export const PublicQuery = Type.Object({
  siteIds: Type.Optional(
    Type.Union([Type.String(), Type.Array(Type.String(), { maxItems: 1000 })], {
      description:
        'Only when the dashboard lets viewers filter sites: site ids, comma-separated or repeated, each within the dashboard’s filter',
    }),
  ),
});

export const AccessBody = Type.Object(
  {
    password: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    email: Type.Optional(Email),
    code: Type.Optional(Type.String({ pattern: '^\\d{6}$', description: 'The 6 digits mailed to `email`' })),
  },
  {
    additionalProperties: false,
    description:
      'Send what the dashboard’s gates ask for: the password; the e-mail address (a code is mailed, 202); then the address with its code.',
    examples: [{ password: EXAMPLE_DASHBOARD_PASSWORD }],
  },
);
export type AccessBody = Static<typeof AccessBody>;

export const Grant = Type.Object(
  {
    accessToken: Type.String({
      description: 'Send as `Authorization: Bearer …` to GET /public/dashboards/{id}',
    }),
    expiresAt: DateTime,
  },
  {
    description: 'A viewer grant of this dashboard only, for one hour',
    examples: [{ accessToken: 'sdcs_dg_3kQ9…', expiresAt: '2026-03-01T13:00:00.000Z' }],
  },
);

export const CodeSent = Type.Object(
  { codeSent: Type.Literal(true), email: Type.String(), expiresAt: DateTime },
  {
    description: 'A one-time code was mailed to the address; it works once, for 10 minutes',
    examples: [{ codeSent: true, email: 'ada@example.com', expiresAt: '2026-03-01T12:10:00.000Z' }],
  },
);
