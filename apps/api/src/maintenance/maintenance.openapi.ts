import { type AnyMaintainedKind, MAINTAINED_KINDS } from '#application/maintenance/maintained-kinds.js';
import { ref } from '../openapi/json-schema.js';
import type { OperationDoc } from '../openapi/operation-doc.js';
import { envelope, listOf } from '../openapi/response-schemas.js';

/** The document's tag of a kind's routes (`os-hosts` are `hosts`). */
const tagOf = (kind: AnyMaintainedKind): string => kind.route.replace(/^os-/, '');

/** A kind's four maintenance routes, documented from its declaration (as maintenanceController makes them). */
const operationsOf = (kind: AnyMaintainedKind): Record<string, OperationDoc> => {
  const { title, noun, route, idParam, policy } = kind;
  const tag = tagOf(kind);
  const windows = listOf('maintenance_windows', `${title}MaintenanceWindow`);
  const bare = noun.replace(/^an? /, '');
  const id = { [idParam]: `The ${bare} id.` };
  return {
    [`GET /v1/${route}/maintenance`]: {
      operationId: `listAll${title}MaintenanceWindows`,
      tag,
      summary: `The maintenance windows of every ${bare}`,
      description: `Windows not cancelled, ended ones included, by resource then start (a Leasehold extension, \`${policy.list}\`, default admin; docs/maintenance.md).`,
      response: { description: 'The windows.', schema: windows },
    },
    [`GET /v1/${route}/:${idParam}/maintenance`]: {
      operationId: `list${title}MaintenanceWindows`,
      tag,
      summary: `The maintenance windows of ${noun}`,
      description: `Windows not cancelled, ended ones included, by start (\`${policy.list}\`, default admin).`,
      parameters: id,
      response: { description: 'The windows.', schema: windows },
      errors: [404],
    },
    [`POST /v1/${route}/:${idParam}/maintenance`]: {
      operationId: `schedule${title}Maintenance`,
      tag,
      summary: `Schedule a maintenance window on ${noun}`,
      description: `From then on it is offered to no new lease, and no lease moves or grows onto it, for any instant of [start, end) (cleaning time included); reservations already holding it are left as they are. Refused (409) when it overlaps another of its windows (\`${policy.schedule}\`, default admin).`,
      parameters: id,
      body: { schema: ref('ScheduleMaintenanceDto'), required: true },
      response: { description: 'The window.', schema: envelope('maintenance_window', ref(`${title}MaintenanceWindow`)) },
      errors: [404, 409],
    },
    [`DELETE /v1/${route}/:${idParam}/maintenance/:windowId`]: {
      operationId: `cancel${title}Maintenance`,
      tag,
      summary: 'Cancel a maintenance window',
      description: `It is offered again for the window; one that has ended is refused (409) (\`${policy.cancel}\`, default admin).`,
      parameters: { ...id, windowId: 'The window id.' },
      response: { description: 'Cancelled.' },
      errors: [404, 409],
    },
  };
};

/** Every maintained kind's routes (docs/maintenance.md). */
export const MAINTENANCE_OPERATIONS: Readonly<Record<string, OperationDoc>> = Object.fromEntries(
  MAINTAINED_KINDS.flatMap((kind) => Object.entries(operationsOf(kind))),
);
