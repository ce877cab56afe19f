import type { ActivitiesTable, ActivityHistoryTable, NoActivityMarkersTable } from './activities.ts';
import type { ActivityDefinitionsTable } from './activity-definitions.ts';
import type { DatasetItemHistoryTable, DatasetItemsTable, DatasetsTable } from './datasets.ts';
import type {
  FormElementSubmissionsTable,
  FormElementsTable,
  FormSitesTable,
  FormSubmissionsTable,
  FormsTable,
  FormValueHistoryTable,
} from './forms.ts';
import type {
  AccessTokensTable,
  ApiKeysTable,
  MembershipsTable,
  OrganizationsTable,
  UsersTable,
} from './identity.ts';
import type { IndicatorsTable, TargetsTable } from './indicators.ts';
import type { InvitationsTable } from './invitations.ts';
import type { MembershipSitesTable, SitesTable, UnitsTable } from './structure.ts';

export type * from './activities.ts';
export type * from './activity-definitions.ts';
export type * from './datasets.ts';
export type * from './forms.ts';
export type * from './identity.ts';
export type * from './indicators.ts';
export type * from './invitations.ts';
export type * from './structure.ts';

/** Every table the query builder knows, by SQL name. Each module adds its tables here. */
export interface DB {
  organizations: OrganizationsTable;
  users: UsersTable;
  memberships: MembershipsTable;
  access_tokens: AccessTokensTable;
  api_keys: ApiKeysTable;
  sites: SitesTable;
  membership_sites: MembershipSitesTable;
  units: UnitsTable;
  forms: FormsTable;
  form_elements: FormElementsTable;
  form_sites: FormSitesTable;
  form_submissions: FormSubmissionsTable;
  form_element_submissions: FormElementSubmissionsTable;
  form_value_history: FormValueHistoryTable;
  datasets: DatasetsTable;
  dataset_items: DatasetItemsTable;
  dataset_item_history: DatasetItemHistoryTable;
  invitations: InvitationsTable;
  activity_definitions: ActivityDefinitionsTable;
  activities: ActivitiesTable;
  activity_history: ActivityHistoryTable;
  no_activity_markers: NoActivityMarkersTable;
  indicators: IndicatorsTable;
  targets: TargetsTable;
}
