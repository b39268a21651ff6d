/** How a usage report may group its lines; no imports, so that a command line can offer them without loading the report. */
export const GROUP_BY = ['project', 'lease', 'reservation', 'resource'] as const;
export type GroupBy = (typeof GROUP_BY)[number];

/** The key columns each grouping gives a line, first in every rendering of the report. */
export const GROUP_COLUMNS: Readonly<Record<GroupBy, readonly string[]>> = {
  project: ['project_id'],
  lease: ['project_id', 'lease_id'],
  reservation: ['project_id', 'lease_id', 'reservation_id'],
  resource: ['resource_id'],
};
