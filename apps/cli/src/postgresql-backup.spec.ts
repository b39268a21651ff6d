import { describe, expect, it } from 'vitest';
import { ExternalLogError, pgDumpCommand, pgRestoreCommand, refuseExternalLog } from './postgresql-backup.js';

const URL_WITH_SECRET = "postgres://leasehold:pa'ss@db.example:5432/ledger?schema=books&sslmode=require";

describe('the PostgreSQL backup commands leasehold prints', () => {
  it('dumps the configured schema and its audit schema, without the password', () => {
    expect(pgDumpCommand(URL_WITH_SECRET, '/backups/ledger.dump')).toBe(
      "pg_dump --format=custom --schema=books --schema=books_audit --file=/backups/ledger.dump 'postgres://leasehold@db.example:5432/ledger?sslmode=require'",
    );
  });

  it("takes the store's default schema when the URL names none", () => {
    expect(pgDumpCommand('postgres://u@h/db', 'x.dump')).toContain('--schema=leasehold --schema=leasehold_audit');
  });

  it('quotes a file name the shell would split or expand', () => {
    expect(pgRestoreCommand(URL_WITH_SECRET, "/backups/it's a dump")).toBe(
      "pg_restore --exit-on-error --single-transaction --dbname='postgres://leasehold@db.example:5432/ledger?sslmode=require' '/backups/it'\\''s a dump'",
    );
  });

  it('lets the embedded store through, and refuses KurrentDB and PostgreSQL with what to run instead', () => {
    expect(() => refuseExternalLog({}, 'backup', 'x')).not.toThrow();
    expect(() => refuseExternalLog({ LEASEHOLD_EVENT_STORE_URL: 'kurrentdb://h:2113' }, 'restore', 'x')).toThrow(
      new ExternalLogError("the event log is on KurrentDB (LEASEHOLD_EVENT_STORE_URL): use KurrentDB's own restore"),
    );
    expect(() => refuseExternalLog({ LEASEHOLD_EVENT_STORE_URL: URL_WITH_SECRET }, 'backup', 'x')).toThrow(
      /\n {2}pg_dump --format=custom /,
    );
  });
});
