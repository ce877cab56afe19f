import type {
  ActivitiesTable,
  ActivityHistoryTable,
  ActivityPlacesTable,
  NoActivityMarkersTable,
} from './activities.ts';
import type { ActivityCalcCodeVersionsTable, ActivityDefinitionsTable } from './activity-definitions.ts';
import type { CompletenessRemindersTable, FormLocksTable } from './completeness.ts';
import type {
  DashboardAccessAttemptsTable,
  DashboardAccessCodesTable,
  DashboardGrantsTable,
  DashboardsTable,
  DashboardWidgetsTable,
} from './dashboards.ts';
import type { DatasetItemHistoryTable, DatasetItemsTable, DatasetsTable } from './datasets.ts';
import type {
  FormElementSubmissionsTable,
  FormElementsTable,
  FormSitesTable,
  FormSubmissionCountsTable,
  FormSubmissionKeysTable,
  FormSubmissionsTable,
  FormsTable,
  FormValueHistoryTable,
} from './forms.ts';
import type {
  AccessTokensTable,
  ApiKeysTable,
  MembershipsTable,
  OidcHandoffsTable,
  OidcLoginsTable,
  OrganizationSsoTable,
  OrganizationsTable,
  UsersTable,
} from './identity.ts';
import type { IndicatorsTable, TargetsTable } from './indicators.ts';
import type { InvitationsTable } from './invitations.ts';
import type { MediaTable } from './media.ts';
import type {
  SourceAdapterDefinitionsTable,
  SourceAdapterVersionsTable,
  SourceImportIssuesTable,
  SourceImportRequestsTable,
  SourceImportRunsTable,
} from './source-imports.ts';
import type { MembershipSitesTable, SitesTable, UnitsTable } from './structure.ts';

export type * from './activities.ts';
export type * from './activity-definitions.ts';
export type * from './completeness.ts';
export type * from './dashboards.ts';
export type * from './datasets.ts';
export type * from './forms.ts';
export type * from './identity.ts';
export type * from './indicators.ts';
export type * from './invitations.ts';
export type * from './media.ts';
export type * from './source-imports.ts';
export type * from './structure.ts';

/** Every table the query builder knows, by SQL name. Each module adds its tables here. */
export interface DB {
  organizations: OrganizationsTable;
  users: UsersTable;
  memberships: MembershipsTable;
  access_tokens: AccessTokensTable;
  api_keys: ApiKeysTable;
  organization_sso: OrganizationSsoTable;
  oidc_logins: OidcLoginsTable;
  oidc_handoffs: OidcHandoffsTable;
  sites: SitesTable;
  membership_sites: MembershipSitesTable;
  units: UnitsTable;
  forms: FormsTable;
  form_elements: FormElementsTable;
  form_sites: FormSitesTable;
  form_submissions: FormSubmissionsTable;
  form_submission_keys: FormSubmissionKeysTable;
  form_submission_counts: FormSubmissionCountsTable;
  form_element_submissions: FormElementSubmissionsTable;
  form_value_history: FormValueHistoryTable;
  datasets: DatasetsTable;
  dataset_items: DatasetItemsTable;
  dataset_item_history: DatasetItemHistoryTable;
  invitations: InvitationsTable;
  activity_definitions: ActivityDefinitionsTable;
  activity_calc_code_versions: ActivityCalcCodeVersionsTable;
  activities: ActivitiesTable;
  activity_history: ActivityHistoryTable;
  no_activity_markers: NoActivityMarkersTable;
  media: MediaTable;
  source_adapter_definitions: SourceAdapterDefinitionsTable;
  source_adapter_versions: SourceAdapterVersionsTable;
  source_import_runs: SourceImportRunsTable;
  source_import_issues: SourceImportIssuesTable;
  source_import_requests: SourceImportRequestsTable;
  indicators: IndicatorsTable;
  targets: TargetsTable;
  form_locks: FormLocksTable;
  completeness_reminders: CompletenessRemindersTable;
  dashboards: DashboardsTable;
  dashboard_widgets: DashboardWidgetsTable;
  dashboard_grants: DashboardGrantsTable;
  dashboard_access_codes: DashboardAccessCodesTable;
  dashboard_access_attempts: DashboardAccessAttemptsTable;
  activity_places: ActivityPlacesTable;
}
