import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import { AppError, badRequest, coded } from '../../domain/errors.ts';
import { policy, siteScope } from '../access/index.ts';
import type { UnitFactor } from '../units/index.ts';
import type { ElementTypeHandlers, PlannedValue, SubmissionTarget } from './element-types.ts';
import type { ValueIssue } from './values.issues.ts';
import { checkValues } from './values.plain.ts';
import type { SubmitBody } from './values.schemas.ts';
import { resolveElements, resolveTargets } from './values.targets.ts';

/** The values of one (form, site, year), resolved and checked: where they go and what to write. */
export interface ResolvedEntry {
  target: SubmissionTarget;
  /** The values that passed their checks (each with its index in the body's `values`). */
  planned: PlannedValue[];
  /** The values that did not (empty: every value passed). */
  issues: ValueIssue[];
}

/**
 * What `storeBatch` stores: one entry per (form, site, year), targets distinct. Submissions get it
 * from `resolveValues`; source imports build it from the rows they have checked.
 */
export interface ResolvedBatch {
  entries: ResolvedEntry[];
  /** The units of the elements and values (for messages that name a value's unit). */
  units?: Map<string, UnitFactor>;
}

/**
 * Resolves the bodies' targets (one statement for all) and checks each value once: the caller's
 * right to write on the site, the active form-site, each value's element, period, unit and its
 * type's `check`. A body whose form or site cannot be used throws what a request of that body
 * alone would (400, 403); the values' issues are returned, structured, in the entries.
 */
export async function resolveValues(
  tx: Tx,
  handlers: ElementTypeHandlers,
  caller: Caller,
  bodies: readonly SubmitBody[],
): Promise<ResolvedBatch> {
  const { targets, units } = await resolveTargets(tx, caller.organizationId, bodies);
  const scope = await siteScope(tx, caller);
  const entries = bodies.map((body, n): ResolvedEntry => {
    const resolved = targets[n]!;
    if ('error' in resolved) throw resolved.error;
    if (!policy.canWriteSiteData(caller, scope, resolved.siteId)) {
      const message = `You cannot report for ${resolved.siteName}`;
      throw new AppError('FORBIDDEN', message, [
        coded('site.outOfScope', message, { site: resolved.siteName }),
      ]);
    }
    if (!resolved.formSiteId) {
      const message = `The form is not active on this site for ${body.year}`;
      throw badRequest(message, [coded('value.formNotActive', message, { year: body.year }, 'year')]);
    }
    const elements = resolveElements(body.values, resolved.elements);
    const checked = checkValues(body.values, elements.resolved, {
      year: body.year,
      periodType: resolved.periodType,
      units,
      handlers,
    });
    return {
      target: {
        formId: resolved.formId,
        formSiteId: resolved.formSiteId,
        siteId: resolved.siteId,
        year: body.year,
        periodType: resolved.periodType,
      },
      planned: checked.planned,
      issues: [...elements.issues, ...checked.issues],
    };
  });
  return { entries, units };
}
