import { describe, expect, it } from 'vitest';
import { mysqlConnection } from './mysql-url.js';

describe('mysqlConnection: the MariaDB/MySQL URL of [database]connection, its +driver already gone', () => {
  it('reads user, password, host, port and database; 3306 when no port is named', () => {
    expect(mysqlConnection('mysql://blazar:s%40cret%2Fx@db.example/blazar')).toEqual({
      host: 'db.example',
      port: 3306,
      user: 'blazar',
      password: 's@cret/x',
      database: 'blazar',
      socketPath: null,
      notes: [],
    });
    expect(mysqlConnection('mysql://blazar:pw@[fd00::5]:3307/blazar')).toMatchObject({ host: 'fd00::5', port: 3307 });
  });

  it('accepts ?charset=utf8 silently, takes unix_socket, and notes every other option as ignored', () => {
    const connection = mysqlConnection(
      'mysql://blazar:pw@localhost/blazar?charset=utf8&unix_socket=/run/mysqld/mysqld.sock&ssl_ca=/ca.pem',
    );
    expect(connection.socketPath).toBe('/run/mysqld/mysqld.sock');
    expect(connection.notes).toEqual([{ message: "the database URL's option ssl_ca is not used by the import: ignored" }]);
  });

  it('refuses a URL without its database, or one that is not a URL, with BAD_DATABASE_URL and no password in the message', () => {
    for (const url of [
      'mysql://blazar:topsecret@db.example',
      'mysql://blazar:topsecret@db.example/',
      'mysql://blazar:topsecret@db:notaport/x',
    ]) {
      expect(() => mysqlConnection(url)).toThrow(expect.objectContaining({ code: 'BAD_DATABASE_URL' }));
      expect(() => mysqlConnection(url)).not.toThrow(/topsecret/);
    }
  });
});
