import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { callerOf } from '../../http/auth.ts';
import { bodyFingerprint, registerOffLoopJsonBody } from '../../http/heavy-body.ts';
import { clientGone, tenantRun } from '../../http/request-scope.ts';
import { errors } from '../../http/schemas.ts';
import type { Services } from '../../http/services.ts';
import { bodyValidatedElsewhere } from '../../http/validation.ts';
import {
  ImportBody,
  ImportHeaders,
  ImportResult,
  RunDetail,
  RunPage,
  RunParams,
  RunQuery,
  RunsQuery,
} from './imports.schemas.ts';
import { getRun, listRuns, runImport } from './imports.service.ts';

const TAGS = ['Source imports'];

/** An import's calculations may take this long in all (or the configured request budget, if longer). */
const IMPORT_CALC_BUDGET_MS = 120_000;

export const sourceImportsRoutes: FastifyPluginAsyncTypebox<Services> = async (
  app,
  { config, pipeline, heavy },
) => {
  const limits = { budgetMs: Math.max(config.calcRequestBudgetMs, IMPORT_CALC_BUDGET_MS) };
  // The body (up to 10 MiB) is parsed, validated and hashed in the heavy-work pool, as a job of
  // the caller's organization (decision 0177): the same answers, without holding the event loop.
  await app.register(async (plain) => {
    const child = plain.withTypeProvider<TypeBoxTypeProvider>();
    registerOffLoopJsonBody(child, heavy, { schemaKey: 'sourceImports.run', schema: ImportBody, hash: true });
    child.post(
      '/source-imports',
      {
        config: { minRole: 'COLLECTOR' },
        bodyLimit: config.largeBodyLimitBytes,
        validatorCompiler: bodyValidatedElsewhere(),
        schema: {
          operationId: 'sourceImports.run',
          tags: TAGS,
          summary: 'Preview or execute an import of sheets through a source adapter (collectors)',
          description:
            'Synchronous. `mode` defaults to `preview`, which writes nothing but the run and its row issues; `execute` writes every ready draft in one transaction, or nothing. Rows on sites outside your scope fail. Retrying with the same `Idempotency-Key` and the same body returns the stored answer with `replayed: true` (also while the first is still running: the retry waits for it); the same key with another body is 409 CONFLICT. Keys are kept at least 24 hours (currently as long as the run). A run that failed while writing gives its key up for a retry. At most 10,000 rows and 10 MiB per request.',
          headers: ImportHeaders,
          body: ImportBody,
          response: { 200: ImportResult, ...errors(400, 401, 403, 409, 413) },
        },
      },
      (request, reply) =>
        runImport(tenantRun(request), callerOf(request), request.headers['idempotency-key'], request.body, {
          fingerprint: bodyFingerprint(request),
          signal: clientGone(request, reply),
          pipeline,
          limits,
          log: (e) => request.log.error({ err: e }, 'source import failed while writing'),
        }),
    );
  });

  app.get(
    '/source-imports',
    {
      config: { minRole: 'COLLECTOR' },
      schema: {
        operationId: 'sourceImports.list',
        tags: TAGS,
        summary: 'List import runs of the organization, newest first',
        querystring: RunsQuery,
        response: { 200: RunPage, ...errors(400, 401, 403) },
      },
    },
    (request) => request.tenant((tx, caller) => listRuns(tx, caller, request.query)),
  );

  app.get(
    '/source-imports/:runId',
    {
      config: { minRole: 'COLLECTOR' },
      schema: {
        operationId: 'sourceImports.get',
        tags: TAGS,
        summary: 'Get an import run with its counts and a page of its row issues',
        params: RunParams,
        querystring: RunQuery,
        response: { 200: RunDetail, ...errors(400, 401, 403, 404) },
      },
    },
    (request) => request.tenant((tx, caller) => getRun(tx, caller, request.params.runId, request.query)),
  );
};
