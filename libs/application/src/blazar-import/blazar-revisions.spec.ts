import { describe, expect, it } from 'vitest';
import { checkRevision } from './blazar-revisions.js';

describe("Blazar's alembic revision", () => {
  it.each(['02e2f2186d98', '553383923ca0'])('%s (Zed to the current release) is read', (revision) => {
    expect(checkRevision([revision])).toBe(revision);
  });

  it.each([
    [null, /no alembic_version table: it is not a Blazar database/],
    [['f4084140f608'], /revision f4084140f608, older than Zed: upgrade Blazar/],
    [['0_1'], /revision 0_1, older than Zed/],
    [['abcdef123456'], /revision abcdef123456, which this Leasehold does not know/],
    [['02e2f2186d98', '553383923ca0'], /holds 2 revisions/],
  ])('%j is refused by name', (revisions, message) => {
    expect(() => checkRevision(revisions)).toThrow(message);
  });
});
