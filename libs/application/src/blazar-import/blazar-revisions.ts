import { invalid } from '#domain/index.js';

/**
 * Heads of Blazar's alembic history the import reads, and the releases that ship them: 02e2f2186d98
 * (resource_properties, Yoga) is the head of Zed through 2024.1; 553383923ca0 (host inventories and
 * traits, which the import does not read) is the head from 2024.2 to the current release.
 */
export const SUPPORTED_REVISIONS: Readonly<Record<string, string>> = {
  '02e2f2186d98': 'Zed to 2024.1 (Caracal)',
  '553383923ca0': '2024.2 (Dalmatian) to the current release',
};

/** Older revisions of Blazar's history: named in the refusal, so the operator knows to upgrade Blazar first. */
const OLDER_REVISIONS: readonly string[] = [
  '0_1',
  '10e34bba18e8',
  '2bcfe76b0474',
  '23d6240b51b2',
  '1fd6c2eded89',
  '7f1a7bbb2cd2',
  '8805be233864',
  'ba75b766b64e',
  '6bfd1c23aa18',
  '97d2cad1504e',
  'e66f199a5414',
  '75a74e4539cb',
  'c0ae6b08b0d7',
  '35b314cd39ee',
  '9593f3656974',
  'e069c014356d',
  'f4084140f608',
];

const supported = Object.entries(SUPPORTED_REVISIONS)
  .map(([revision, releases]) => `${revision} (${releases})`)
  .join(' or ');

/** The one revision of the source, if the import can read it; a clear refusal naming it otherwise. */
export const checkRevision = (revisions: readonly string[] | null): string => {
  if (revisions === null) throw invalid('NOT_A_BLAZAR_DATABASE', 'The database has no alembic_version table: it is not a Blazar database');
  if (revisions.length !== 1) {
    throw invalid(
      'UNKNOWN_BLAZAR_REVISION',
      `Blazar's alembic_version holds ${revisions.length} revisions (${revisions.join(', ')}); expected one`,
    );
  }
  const revision = revisions[0] as string;
  if (Object.hasOwn(SUPPORTED_REVISIONS, revision)) return revision;
  if (OLDER_REVISIONS.includes(revision)) {
    throw invalid(
      'UNSUPPORTED_BLAZAR_REVISION',
      `Blazar's database is at alembic revision ${revision}, older than Zed: upgrade Blazar (blazar-db-manage upgrade head) to ${supported} first`,
    );
  }
  throw invalid(
    'UNKNOWN_BLAZAR_REVISION',
    `Blazar's database is at alembic revision ${revision}, which this Leasehold does not know: it reads ${supported}`,
  );
};
