import { sql } from 'kysely';
import { json, type Tx } from '../../db/client.ts';
import type { SourceImportStatus } from '../../db/schema/index.ts';
import type { IssueCode } from '../../domain/issue-codes.ts';
import type { Page } from '../../http/paging.ts';
import { chunks } from '../../lib/chunks.ts';
import type { RowIssue } from './imports.schemas.ts';

/** What the pipeline reads about the organization, each in one statement; runs and their issues. */
export const importsRepository = {
  sites(tx: Tx, organizationId: string) {
    return tx
      .selectFrom('sites')
      .select(['id', 'name', 'code', 'metadata'])
      .where('organization_id', '=', organizationId)
      .execute();
  },

  units(tx: Tx, organizationId: string) {
    return tx
      .selectFrom('units')
      .select(['id', 'symbol', 'dimension', 'factor_to_base', 'organization_id'])
      .where((eb) => eb.or([eb('organization_id', 'is', null), eb('organization_id', '=', organizationId)]))
      .execute();
  },

  formsById(tx: Tx, organizationId: string, ids: string[]) {
    if (ids.length === 0) return Promise.resolve([]);
    return tx
      .selectFrom('forms')
      .select(['id', 'name', 'period_type', 'metadata'])
      .where('organization_id', '=', organizationId)
      .where('id', 'in', ids)
      .where('deleted_at', 'is', null)
      .execute();
  },

  /** Live forms whose metadata field `key` has the text `value` (two at most: enough to tell). */
  formsByMetadata(tx: Tx, organizationId: string, key: string, value: string) {
    return tx
      .selectFrom('forms')
      .select(['id', 'name', 'period_type', 'metadata'])
      .where('organization_id', '=', organizationId)
      .where('deleted_at', 'is', null)
      .where(sql`metadata ->> ${key}`, '=', value)
      .limit(2)
      .execute();
  },

  activeFormSites(tx: Tx, organizationId: string, formIds: string[]) {
    if (formIds.length === 0) return Promise.resolve([]);
    return tx
      .selectFrom('form_sites')
      .select(['form_id', 'site_id', 'year'])
      .where('organization_id', '=', organizationId)
      .where('form_id', 'in', formIds)
      .where('active', '=', true)
      .execute();
  },

  findByKey(tx: Tx, organizationId: string, userId: string, key: string) {
    return tx
      .selectFrom('source_import_runs')
      .select(['id', 'fingerprint', 'response', 'status'])
      .where('organization_id', '=', organizationId)
      .where('user_id', '=', userId)
      .where('idempotency_key', '=', key)
      .executeTakeFirst();
  },

  /**
   * Claims the key with a new pending run. A concurrent transaction holding the same key makes
   * this wait until it ends; then undefined if it committed (the key is taken).
   */
  claim(
    tx: Tx,
    organizationId: string,
    run: {
      userId: string;
      key: string;
      fingerprint: string;
      definitionId: string;
      version: string;
      mode: 'preview' | 'execute';
    },
  ) {
    return tx
      .insertInto('source_import_runs')
      .values({
        organization_id: organizationId,
        user_id: run.userId,
        idempotency_key: run.key,
        fingerprint: run.fingerprint,
        source_adapter_definition_id: run.definitionId,
        adapter_version: run.version,
        mode: run.mode,
        status: 'pending',
        counts: json({}),
        response: null,
      })
      .onConflict((oc) => oc.columns(['organization_id', 'user_id', 'idempotency_key']).doNothing())
      .returning('id')
      .executeTakeFirst();
  },

  async setStatus(tx: Tx, organizationId: string, id: string, status: SourceImportStatus) {
    await tx
      .updateTable('source_import_runs')
      .set({ status, updated_at: sql`now()` })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .execute();
  },

  finish(
    tx: Tx,
    organizationId: string,
    id: string,
    fields: {
      status: SourceImportStatus;
      totalRows: number;
      draftCount: number;
      issueCount: number;
      activityWrites: number;
      formValueWrites: number;
      counts: Record<string, number>;
      error: string | null;
      processed: boolean;
      /** A failed run gives its key up, so that a retry can claim it. */
      releaseKey: boolean;
    },
  ) {
    return tx
      .updateTable('source_import_runs')
      .set({
        status: fields.status,
        total_rows: fields.totalRows,
        draft_count: fields.draftCount,
        issue_count: fields.issueCount,
        activity_write_count: fields.activityWrites,
        form_value_write_count: fields.formValueWrites,
        counts: json(fields.counts),
        error: fields.error,
        processed_at: fields.processed ? sql`now()` : null,
        updated_at: sql`now()`,
        ...(fields.releaseKey ? { idempotency_key: null } : {}),
      })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
  },

  async storeResponse(tx: Tx, organizationId: string, id: string, response: unknown) {
    await tx
      .updateTable('source_import_runs')
      .set({ response: json(response) })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .execute();
  },

  async insertIssues(tx: Tx, organizationId: string, runId: string, issues: RowIssue[]) {
    for (const [c, part] of chunks(issues).entries()) {
      await tx
        .insertInto('source_import_issues')
        .values(
          part.map((issue, i) => ({
            organization_id: organizationId,
            run_id: runId,
            seq: c * 1000 + i,
            sheet: issue.sheet,
            row_index: issue.rowIndex,
            column_name: issue.column ?? null,
            message: issue.message,
            code: issue.code ?? null,
            params: issue.params ? json(issue.params) : null,
          })),
        )
        .execute();
    }
  },

  find(tx: Tx, organizationId: string, id: string) {
    return tx
      .selectFrom('source_import_runs')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
  },

  async list(tx: Tx, organizationId: string, page: Page) {
    const base = tx
      .selectFrom('source_import_runs')
      .where('organization_id', '=', organizationId)
      .where('deleted_at', 'is', null);
    const [{ total }] = (await base.select((eb) => eb.fn.countAll<string>().as('total')).execute()) as [
      { total: string | number },
    ];
    const rows = await base
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .limit(page.limit)
      .offset(page.offset)
      .execute();
    return { total: Number(total), rows };
  },

  async issues(tx: Tx, organizationId: string, runId: string, page: Page) {
    const rows = await tx
      .selectFrom('source_import_issues')
      .select(['sheet', 'row_index', 'column_name', 'message', 'code', 'params'])
      .where('organization_id', '=', organizationId)
      .where('run_id', '=', runId)
      .orderBy('seq')
      .limit(page.limit)
      .offset(page.offset)
      .execute();
    return rows.map(
      (r): RowIssue => ({
        sheet: r.sheet,
        rowIndex: r.row_index,
        ...(r.column_name === null ? {} : { column: r.column_name }),
        message: r.message,
        ...(r.code === null ? {} : { code: r.code as IssueCode }),
        ...(r.params === null ? {} : { params: r.params }),
      }),
    );
  },

  /** Keeps an accepted import's request until its run finishes (decision 0234). */
  async saveRequest(
    tx: Tx,
    organizationId: string,
    runId: string,
    request: { caller: unknown; key: string; rows: number; body: string },
  ) {
    await tx
      .insertInto('source_import_requests')
      .values({
        run_id: runId,
        organization_id: organizationId,
        caller: json(request.caller),
        idempotency_key: request.key,
        row_count: request.rows,
        body: request.body,
      })
      .execute();
  },

  /** Who asked for an accepted import, its key and rows (undefined once its run finished). */
  findRequest(tx: Tx, organizationId: string, runId: string) {
    return tx
      .selectFrom('source_import_requests')
      .select(['caller', 'idempotency_key', 'row_count'])
      .where('organization_id', '=', organizationId)
      .where('run_id', '=', runId)
      .executeTakeFirst();
  },

  /** An accepted import's body, as JSON text. */
  async requestBody(tx: Tx, organizationId: string, runId: string): Promise<string | undefined> {
    const row = await tx
      .selectFrom('source_import_requests')
      .select('body')
      .where('organization_id', '=', organizationId)
      .where('run_id', '=', runId)
      .executeTakeFirst();
    return row?.body;
  },

  async dropRequest(tx: Tx, organizationId: string, runId: string) {
    await tx
      .deleteFrom('source_import_requests')
      .where('organization_id', '=', organizationId)
      .where('run_id', '=', runId)
      .execute();
  },

  /**
   * A claimed run's state, its row locked to the transaction's end: of two processes running the
   * same accepted import (one thought dead), the second waits, then finds it finished.
   */
  lockRun(tx: Tx, organizationId: string, runId: string) {
    return tx
      .selectFrom('source_import_runs')
      .select(['status', 'fingerprint', 'response'])
      .where('organization_id', '=', organizationId)
      .where('id', '=', runId)
      .forUpdate()
      .executeTakeFirst();
  },

  /**
   * Runs `fn` in a savepoint of the import's transaction: its writes stay when it ends with
   * `keep` true, and are undone when it ends otherwise or throws (the transaction goes on).
   */
  async inSavepoint<T>(tx: Tx, fn: () => Promise<{ keep: boolean; value: T }>): Promise<T> {
    await sql`savepoint source_import_write`.execute(tx);
    let outcome: { keep: boolean; value: T };
    try {
      outcome = await fn();
    } catch (e) {
      await sql`rollback to savepoint source_import_write`.execute(tx);
      throw e;
    }
    if (outcome.keep) await sql`release savepoint source_import_write`.execute(tx);
    else await sql`rollback to savepoint source_import_write`.execute(tx);
    return outcome.value;
  },
};
