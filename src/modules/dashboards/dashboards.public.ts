import type { Database } from '../../db/client.ts';
import { isUuid } from '../../lib/ids.ts';
import { dashboardsRepository as repo } from './dashboards.repository.ts';

/** What the public page needs before it may show anything: the dashboard's name and its gates. */
export interface PublicHead {
  id: string;
  name: string;
  description: string | null;
  requiresPassword: boolean;
  requiresEmail: boolean;
}

type Row = NonNullable<Awaited<ReturnType<typeof repo.findAnyOrganization>>>;

export const requiresPassword = (row: Pick<Row, 'password_hash'>) => row.password_hash !== null;
export const requiresEmail = (row: Pick<Row, 'public_access_emails' | 'public_access_domains'>) =>
  row.public_access_emails.length > 0 || row.public_access_domains.length > 0;

/** The public dashboard of this id (any organization); undefined when unknown or not public. */
export async function findPublicDashboard(database: Database, id: string): Promise<Row | undefined> {
  if (!isUuid(id)) return undefined;
  const row = await database.system((tx) => repo.findAnyOrganization(tx, id));
  return row?.is_public ? row : undefined;
}

/** null when the dashboard does not exist, is deleted or is not public. */
export async function publicHead(database: Database, id: string): Promise<PublicHead | null> {
  const row = await findPublicDashboard(database, id);
  if (!row) return null;
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    requiresPassword: requiresPassword(row),
    requiresEmail: requiresEmail(row),
  };
}
