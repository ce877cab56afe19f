import type { SelectOption } from '../../db/schema/index.ts';
import { iso } from '../../domain/time.ts';
import type { formsRepository as repo } from './forms.repository.ts';
import type { Form } from './forms.schemas.ts';

export type FormRow = Awaited<ReturnType<typeof repo.list>>[number];
export type ElementRow = Awaited<ReturnType<typeof repo.elements>>[number];

export function presentForm(form: FormRow, elements: ElementRow[]): Form {
  return {
    id: form.id,
    organizationId: form.organization_id,
    name: form.name,
    names: form.names,
    description: form.description,
    periodType: form.period_type,
    metadata: form.metadata,
    dueDays: form.due_days,
    elements: elements.map((e) => ({
      id: e.id,
      key: e.key,
      label: e.label,
      labels: e.labels,
      helpTexts: e.help_texts,
      type: e.type,
      required: e.required,
      unitId: e.unit_id,
      options: e.options as SelectOption[] | null,
      activityDefinitionId: e.activity_definition_id,
      aggregation: e.aggregation,
      minValue: e.min_value,
      maxValue: e.max_value,
      integer: e.integer_only,
      warnChangeFactor: e.warn_change_factor,
      metadata: e.metadata,
      order: e.position,
    })),
    createdAt: iso(form.created_at),
    updatedAt: iso(form.updated_at),
  };
}
