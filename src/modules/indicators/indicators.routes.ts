import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { errorAnswer, errors, IdParams } from '../../http/schemas.ts';
import type { Services } from '../../http/services.ts';
import {
  CreateIndicatorBody,
  CurrentValues,
  CurrentValuesBody,
  Indicator,
  UpdateIndicatorBody,
} from './indicators.schemas.ts';
import {
  createIndicator,
  getIndicator,
  INDICATORS_ORGANIZATION_WIDE,
  listIndicators,
  removeIndicator,
  updateIndicator,
} from './indicators.service.ts';
import { currentValues } from './indicators.values.ts';

const TAGS = ['Indicators'];

const EXPRESSION_HELP =
  '`expressionParts` is a token list parsed with precedence, unary minus and parentheses. A malformed list, an unknown reference or placeholder, units that cannot be converted, `+`/`-` of different dimensions, an expression whose dimension is not the one of `unitId` (e.g. kWh × a factor without input unit in an emissions indicator) or a cycle between indicators is a 400 whose issue names the part (`expressionParts.N`). See docs/indicators.md.';

const WHO_CHANGES =
  'An indicator is calculated over every site: owners, and managers whose sites cover the whole organization, may create, change and delete indicators; a manager limited to some sites is refused (403).';

/** The 403 of the writes: the site limit is the example. */
const forbiddenWrite = () =>
  errorAnswer(
    'A manager limited to some sites (the example), or a role below MANAGER (“This needs the MANAGER role or higher; your role is COLLECTOR”)',
    'FORBIDDEN',
    INDICATORS_ORGANIZATION_WIDE,
  );

export const indicatorsRoutes: FastifyPluginAsyncTypebox<Services> = async (app) => {
  app.get(
    '/indicators',
    {
      config: { minRole: 'VIEWER' },
      schema: {
        operationId: 'indicators.list',
        tags: TAGS,
        summary: 'List the organization’s indicators (every member)',
        description:
          'Each item carries the coefficients it uses, the indicators that use it, widget usage and current issues (deleted elements, missing coefficients, unit mismatches). Definitions are organization-wide; values are limited to the caller’s sites by current-values.',
        response: { 200: Type.Array(Indicator), ...errors(400, 401, 403, 404) },
      },
    },
    (request) => request.tenant((tx, caller) => listIndicators(tx, caller)),
  );

  app.post(
    '/indicators',
    {
      config: { minRole: 'MANAGER' },
      schema: {
        operationId: 'indicators.create',
        tags: TAGS,
        summary: 'Create an indicator (managers and owners)',
        description: [EXPRESSION_HELP, WHO_CHANGES].join(' '),
        body: CreateIndicatorBody,
        response: { 200: Indicator, ...errors(400, 401), 403: forbiddenWrite() },
      },
    },
    (request) => request.tenant((tx, caller) => createIndicator(tx, caller, request.body)),
  );

  app.post(
    '/indicators/current-values',
    {
      config: { minRole: 'VIEWER' },
      schema: {
        operationId: 'indicators.currentValues',
        tags: TAGS,
        summary: 'Compute indicators over a scope of sites, years, periods and statuses',
        description:
          'Each operand is aggregated over the whole scope first (across sites values add up; over periods as the element’s `aggregation` says), then the formula is applied: a ratio of sums. `siteIds` include descendants and must be among the caller’s sites (403 otherwise); default: all of them. Years: `year`, or `startYear`..`endYear`; default the current year. `statuses` default to the organization’s defaultStatuses. A value that cannot be computed is null with an issue (`noData`, `divisionByZero`, `missingDatasetItem`, `unitMismatch`). `explain: true` adds each operand, coefficient, conversion and the scope.',
        body: CurrentValuesBody,
        response: { 200: CurrentValues, ...errors(400, 401, 403) },
      },
    },
    (request) =>
      request.tenant((tx, caller) => currentValues(tx, caller, request.body, request.server.clock())),
  );

  app.get(
    '/indicators/:id',
    {
      config: { minRole: 'VIEWER' },
      schema: {
        operationId: 'indicators.get',
        tags: TAGS,
        summary: 'Get an indicator (every member)',
        params: IdParams,
        response: { 200: Indicator, ...errors(401, 403, 404) },
      },
    },
    (request) => request.tenant((tx, caller) => getIndicator(tx, caller, request.params.id)),
  );

  app.put(
    '/indicators/:id',
    {
      config: { minRole: 'MANAGER' },
      schema: {
        operationId: 'indicators.update',
        tags: TAGS,
        summary: 'Change an indicator (managers and owners)',
        description: [`Each field sent replaces the stored one. ${EXPRESSION_HELP}`, WHO_CHANGES].join(' '),
        params: IdParams,
        body: UpdateIndicatorBody,
        response: { 200: Indicator, ...errors(400, 401, 404), 403: forbiddenWrite() },
      },
    },
    (request) => request.tenant((tx, caller) => updateIndicator(tx, caller, request.params.id, request.body)),
  );

  app.delete(
    '/indicators/:id',
    {
      config: { minRole: 'MANAGER' },
      schema: {
        operationId: 'indicators.delete',
        tags: TAGS,
        summary: 'Delete an indicator and its targets (managers and owners)',
        description: [
          'Refused (400, naming them) while another indicator or a widget uses it.',
          WHO_CHANGES,
        ].join(' '),
        params: IdParams,
        response: { 200: Indicator, ...errors(400, 401, 404), 403: forbiddenWrite() },
      },
    },
    (request) => request.tenant((tx, caller) => removeIndicator(tx, caller, request.params.id)),
  );
};
