import mysql from 'mysql2/promise';
import type { TestDatabase } from './pg-database.js';

const onServer = async (serverUrl: string, statement: string): Promise<void> => {
  const admin = await mysql.createConnection(serverUrl);
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
};

/**
 * A new empty database on the MariaDB/MySQL server of `serverUrl` (LEASEHOLD_TEST_MYSQL_URL), so that a test file
 * owns its tables; drop() removes it.
 */
export const createMysqlTestDatabase = async (serverUrl: string, prefix: string): Promise<TestDatabase> => {
  const name = `${prefix}_${process.pid}_${Date.now().toString(36)}`;
  await onServer(serverUrl, `create database \`${name}\``);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => onServer(serverUrl, `drop database if exists \`${name}\``) };
};
