import type { ImportPlan } from './blazar-import.plan.js';
import { SUPPORTED_REVISIONS } from './blazar-revisions.js';

const hostLines = ({ state }: ImportPlan): string[] =>
  state.hosts.map(
    (h) =>
      `  host ${h.hostId} ${h.info.hypervisorHostname} (zone ${h.info.availabilityZone}${h.reservable ? '' : ', not reservable'}, ` +
      `${Object.keys(h.capabilities).length} extra capabilities)`,
  );

const floatingIpLines = ({ state }: ImportPlan): string[] =>
  state.floatingIps.map((f) => `  floating IP ${f.floatingIpId} ${f.address} (network ${f.networkId})`);

const leaseLines = ({ state, leftOut }: ImportPlan): string[] =>
  state.leases.map((lease) => {
    const types = lease.reservations.map((r) => `${r.reservation.resourceType} ${r.reservation.id}`).join(', ');
    const left = leftOut.has(lease.leaseId) ? ' LEFT OUT' : '';
    return `  lease ${lease.leaseId} ${JSON.stringify(lease.name)} ${lease.status} ${lease.startDate} -> ${lease.endDate}: ${types || 'no reservations'}${left}`;
  });

const counts = (plan: ImportPlan): string => {
  const { state, leftOut } = plan;
  const leases = state.leases.filter((l) => !leftOut.has(l.leaseId)).length;
  const events = plan.appends.appends.flat().reduce((sum, request) => sum + request.events.length, 0);
  return (
    `${state.hosts.length} hosts, ${state.floatingIps.length} floating IPs, ${state.privateProperties.length} private properties, ` +
    `${leases} leases: ${events} events`
  );
};

/** What the import found and what it writes (or would): every problem and every lease it leaves out, named. */
export const importReport = (plan: ImportPlan, verb: 'would import' | 'imported' | 'already imported', detailed: boolean): string => {
  const { state } = plan;
  const lines = [`Blazar database at alembic revision ${state.revision} (${SUPPORTED_REVISIONS[state.revision] ?? 'unknown'})`];
  lines.push(plan.refused ? `refused: nothing written (--on-conflict=refuse)` : `${verb}: ${counts(plan)}`);
  if (detailed) lines.push(...hostLines(plan), ...floatingIpLines(plan), ...leaseLines(plan));
  if (state.problems.length > 0) {
    lines.push(`${state.problems.length} inconsistencies:`, ...state.problems.map((p) => `  ${p.kind}: ${p.message}`));
  }
  const leftOut = [...plan.leftOut].sort();
  if (!plan.refused && leftOut.length > 0)
    lines.push(`left out (--on-conflict=${plan.policy}): ${leftOut.map((id) => `lease ${id}`).join(', ')}`);
  if (state.notes.length > 0) lines.push('notes:', ...state.notes.map((n) => `  ${n.message}`));
  return `${lines.join('\n')}\n`;
};
