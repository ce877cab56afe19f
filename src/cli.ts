import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config.ts';
import { backupEmbedded, restoreEmbedded } from './db/backup.ts';
import { migrate } from './db/migrate.ts';
import { acquireDataDirLock } from './lib/data-dir-lock.ts';
import { randomBase62 } from './lib/secrets.ts';
import { verifyAllCompleteness } from './modules/completeness/index.ts';
import { loadVerifyKey, verifyAuditPack } from './modules/exports/index.ts';
import { verifyAllTotals } from './modules/indicators/index.ts';
import { createOrganizationWithKey } from './modules/organizations/index.ts';
import { embeddedDataDir, openConfiguredDatabase, serve } from './server.ts';

const USAGE = `Usage: sdcs <command> [options]

Commands:
  serve                 start the API (default)
  migrate               apply database migrations and exit
  init --org NAME --email EMAIL [--name NAME] [--password PASSWORD]  (without one, a password is generated and printed)
                        create an organization and its owner, print an API key
  backup FILE           write a copy of the embedded database to FILE (stop the server first)
  restore FILE          replace the embedded database with the copy in FILE (stop the server
                        first; the current database is kept beside it)
  verify-aggregates [--org ID] [--repair]
                        recompute the pre-aggregated indicator totals and the kept
                        completeness from the data and list every difference (exit status 1
                        when there is one); --repair rebuilds the organizations that differ
  verify-pack FILE --key KEY
                        check an audit pack offline: the signature of its manifest.json with
                        the service's public key KEY (a PEM file, the JSON of GET
                        /api/v1/exports/signing-key saved to a file, or that URL), and the
                        SHA-256 of every file; exit status 1 naming each file that differs
  With DATABASE_URL, back up and restore with pg_dump and pg_restore instead (see the README).

Configuration comes from the environment (PORT, HOST, DATABASE_URL, SDCS_DATA_DIR, ...);
see the README.`;

async function main(argv: string[]): Promise<void> {
  const [command = 'serve', ...rest] = argv;
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (command === 'verify-pack') {
    await verifyPack(rest);
    return;
  }
  const config = loadConfig();
  if (command === 'serve') {
    if (!config.databaseUrl) await acquireDataDirLock(config.dataDir);
    await serve(config);
    return;
  }
  if (command === 'backup' || command === 'restore') {
    const file = rest[0];
    if (!file || rest.length > 1) throw new ConfigError(`${command} needs one FILE\n\n${USAGE}`);
    if (config.databaseUrl) {
      throw new ConfigError(
        `${command} is for the embedded database; with DATABASE_URL use pg_dump / pg_restore (see the README)`,
      );
    }
    await acquireDataDirLock(config.dataDir, {
      waitMs: 1_000,
      purpose: `stop the server before ${command === 'backup' ? 'a backup' : 'a restore'} (it needs the database to itself)`,
    });
    const pgliteDir = embeddedDataDir(config);
    if (command === 'backup') {
      if (!existsSync(pgliteDir)) throw new ConfigError(`there is no embedded database in ${pgliteDir}`);
      const bytes = await backupEmbedded(pgliteDir, resolve(file));
      process.stdout.write(`Backed up ${pgliteDir} to ${resolve(file)} (${bytes} bytes)\n`);
    } else {
      if (!existsSync(file)) throw new ConfigError(`no such file: ${file}`);
      const kept = await restoreEmbedded(pgliteDir, resolve(file));
      process.stdout.write(
        `Restored ${pgliteDir} from ${resolve(file)}${kept ? `; the previous database is kept in ${kept}` : ''}\n` +
          'The next start applies any newer migrations.\n',
      );
    }
    return;
  }
  if (command === 'migrate' || command === 'init') {
    if (!config.databaseUrl) await acquireDataDirLock(config.dataDir);
    const database = await openConfiguredDatabase(config);
    try {
      const applied = await migrate(database);
      if (command === 'migrate') {
        process.stdout.write(applied.length ? `Applied: ${applied.join(', ')}\n` : 'Already up to date\n');
        return;
      }
      const { values } = parseArgs({
        args: rest,
        options: {
          org: { type: 'string' },
          email: { type: 'string' },
          name: { type: 'string' },
          password: { type: 'string' },
        },
      });
      if (!values.org || !values.email) throw new ConfigError('init needs --org NAME and --email EMAIL');
      if (values.password !== undefined && values.password.length < 8) {
        throw new ConfigError('--password must be at least 8 characters');
      }
      // Without --password a new owner gets a generated one, so that they can sign in.
      const password = values.password ?? randomBase62(16);
      const created = await createOrganizationWithKey(database, {
        organizationName: values.org,
        email: values.email,
        name: values.name ?? values.email.split('@')[0] ?? values.email,
        password,
      });
      if (!created) throw new Error('organization was not created');
      const login = !created.passwordSet
        ? `${created.user.email} signs in with the password they already have.\n`
        : values.password
          ? `${created.user.email} signs in with the password given.\n`
          : `Owner login (password shown only now): ${created.user.email} / ${password}\n`;
      process.stdout.write(
        `Created organization "${created.organization.name}" (${created.organization.id}) with owner ${created.user.email}.\n` +
          `API key (shown only now): ${created.apiKey}\n${login}`,
      );
    } finally {
      await database.close();
    }
    return;
  }
  if (command === 'verify-aggregates') {
    const { values } = parseArgs({
      args: rest,
      options: { org: { type: 'string' }, repair: { type: 'boolean' } },
    });
    if (!config.databaseUrl) await acquireDataDirLock(config.dataDir);
    const database = await openConfiguredDatabase(config);
    try {
      await migrate(database);
      const report = await verifyAllTotals(database, {
        ...(values.org ? { organizationId: values.org } : {}),
        repair: values.repair === true,
      });
      for (const d of report.differences.slice(0, 100))
        process.stdout.write(
          `difference: organization ${d.organizationId} site ${d.siteId} element ${d.elementId} ${d.year} ${d.status} period ${d.periodUnit}: stored ${d.stored.total} (${d.stored.count} values), computed ${d.computed.total} (${d.computed.count} values)\n`,
        );
      if (report.differences.length > 100)
        process.stdout.write(`... and ${report.differences.length - 100} more\n`);
      for (const d of report.statsDifferences.slice(0, 100))
        process.stdout.write(
          `difference: organization ${d.organizationId} ${d.table} statistics site ${d.siteId} element ${d.elementId} ${d.year} period ${d.periodUnit}: stored ${d.stored ?? 'none'}, computed ${d.computed ?? 'none'}\n`,
        );
      if (report.statsDifferences.length > 100)
        process.stdout.write(`... and ${report.statsDifferences.length - 100} more\n`);
      const completeness = await verifyAllCompleteness(database, {
        ...(values.org ? { organizationId: values.org } : {}),
        repair: values.repair === true,
      });
      for (const d of completeness.differences.slice(0, 100))
        process.stdout.write(
          `difference: organization ${d.organizationId} completeness ${d.table} ${d.key}: stored ${d.stored ?? 'none'}, computed ${d.computed ?? 'none'}\n`,
        );
      if (completeness.differences.length > 100)
        process.stdout.write(`... and ${completeness.differences.length - 100} more\n`);
      const count =
        report.differences.length + report.statsDifferences.length + completeness.differences.length;
      const repaired = new Set([...report.repaired, ...completeness.repaired]).size;
      process.stdout.write(
        `Checked ${report.organizations} organization(s): ${count} difference(s)` +
          (repaired > 0 ? `; rebuilt ${repaired} organization(s)` : '') +
          '\n',
      );
      if (count > 0 && repaired === 0) process.exitCode = 1;
    } finally {
      await database.close();
    }
    return;
  }
  throw new ConfigError(`unknown command "${command}"\n\n${USAGE}`);
}

/** sdcs verify-pack FILE --key KEY: needs no configuration, database or network (unless KEY is a URL). */
async function verifyPack(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    options: { key: { type: 'string' } },
    allowPositionals: true,
  });
  const file = positionals[0];
  if (!file || positionals.length > 1) throw new ConfigError(`verify-pack needs one FILE\n\n${USAGE}`);
  if (!values.key)
    throw new ConfigError(
      'verify-pack needs --key: the service’s public key (GET /api/v1/exports/signing-key), not one taken from the pack',
    );
  if (!existsSync(file)) throw new ConfigError(`no such file: ${file}`);
  const key = await loadVerifyKey(values.key);
  const check = await verifyAuditPack(resolve(file), key);
  process.stdout.write(`Checked ${file} with signing key ${check.keyId}\n`);
  for (const problem of check.problems) process.stdout.write(`FAILED ${problem}\n`);
  if (check.problems.length > 0) {
    process.stdout.write(`${check.problems.length} problem(s): the pack is not as the service made it\n`);
    process.exitCode = 1;
  } else {
    process.stdout.write(`OK: signature valid, ${check.files} files match the manifest\n`);
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`sdcs: ${message}\n`);
  process.exit(1);
});
