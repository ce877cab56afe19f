import { iso } from '../../domain/time.ts';
import type { DefinitionRow } from './activity-definitions.repository.ts';
import type { ActivityDefinition } from './activity-definitions.schemas.ts';

export function presentDefinition(row: DefinitionRow, unitSymbol: string | null): ActivityDefinition {
  return {
    id: row.id,
    key: row.key,
    name: row.name,
    description: row.description,
    uiCode: row.ui_code,
    calcCode: row.calc_code,
    inputs: row.inputs,
    organizationId: row.organization_id,
    metadataSchema: row.metadata_schema,
    isCommon: row.is_common,
    unitId: row.unit_id,
    unitSymbol,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}
