import {
  type FastifyPluginAsyncTypebox,
  Type,
  type TypeBoxTypeProvider,
} from '@fastify/type-provider-typebox';
import { callerOf } from '../../http/auth.ts';
import { bodyFingerprint, registerOffLoopJsonBody } from '../../http/heavy-body.ts';
import { clientGone, tenantRun } from '../../http/request-scope.ts';
import { errors } from '../../http/schemas.ts';
import type { Services } from '../../http/services.ts';
import { bodyValidatedElsewhere } from '../../http/validation.ts';
import { acceptImport } from './imports.jobs.ts';
import { importLimits, importRunner } from './imports.offload.ts';
import {
  ImportAccepted,
  ImportBody,
  ImportHeaders,
  ImportResult,
  prefersAsync,
  RunDetail,
  RunPage,
  RunParams,
  RunQuery,
  RunsQuery,
} from './imports.schemas.ts';
import { getRun, listRuns } from './imports.service.ts';

const TAGS = ['Source imports'];

export const sourceImportsRoutes: FastifyPluginAsyncTypebox<Services> = async (
  app,
  { config, pipeline, heavy, importsOffLoop },
) => {
  const limits = importLimits(config);
  // On PostgreSQL a large import runs in a heavy worker on its own connection (decision 0233).
  const runImport = importRunner(heavy, importsOffLoop);
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
            'Synchronous by default; with `Prefer: respond-async`, answers 202 with the pending run and imports after the answer (poll its `Location`; a retry with the same key and body answers the same run, 202 with `replayed: true`; a synchronous retry of a run still running is 409). `mode` defaults to `preview`, which writes nothing but the run and its row issues; `execute` writes every ready draft in one transaction, or nothing. Rows on sites outside your scope fail. Retrying with the same `Idempotency-Key` and the same body returns the stored answer with `replayed: true` (also while the first is still running: the retry waits for it); the same key with another body is 409 CONFLICT. Keys are kept at least 24 hours (currently as long as the run). A run that failed while writing gives its key up for a retry. At most 10,000 rows and 10 MiB per request.',
          headers: ImportHeaders,
          body: ImportBody,
          response: {
            200: ImportResult,
            202: {
              ...ImportAccepted,
              description:
                'Accepted (`Prefer: respond-async`): the run, pending; the import runs after this answer. Poll the `Location` until the run is `completed`, `previewed` or `failed`',
              headers: {
                location: Type.String({ description: 'The run: GET /source-imports/{runId}' }),
                'preference-applied': Type.String({ enum: ['respond-async'] }),
              },
            },
            ...errors(400, 401, 403, 409, 413),
          },
        },
      },
      async (request, reply) => {
        const deps = {
          fingerprint: bodyFingerprint(request),
          pipeline,
          limits,
          log: (e: unknown) => request.log.error({ err: e }, 'source import failed while writing'),
        };
        const key = request.headers['idempotency-key'];
        if (!prefersAsync(request.headers.prefer))
          return runImport(tenantRun(request), callerOf(request), key, request.body, {
            ...deps,
            signal: clientGone(request, reply),
          });
        // Accepted: a job of the durable queue runs it, in any process (decision 0234).
        const answer = await acceptImport(tenantRun(request), callerOf(request), key, request.body, deps);
        if (!answer.replayed) app.jobs.poke();
        return reply
          .code(202)
          .header('location', `${request.url.split('?')[0]}/${answer.run.id}`)
          .header('preference-applied', 'respond-async')
          .send(answer);
      },
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
