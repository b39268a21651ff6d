import { describe, expect, it } from 'vitest';
import { foldEvents } from '../shared/decider.js';
import { DeciderSpecification } from '../shared/specification.js';
import type { EnrollmentOutcome, RecordHostEnrollment } from './host.commands.js';
import { hostDecider } from './host.decide.js';
import type { HostEvent } from './host.events.js';
import { HOST_ID, at, hostRegistered } from './testing/host.fixtures.js';

// ---------------------------------------------------------------------------------------------
// Host 7 entering the cloud's free pool after registration, and leaving it after removal.
// ---------------------------------------------------------------------------------------------

const given = DeciderSpecification.for(hostDecider);

const EFFECTS = [{ operation: 'add_host', aggregate: 'freepool', host: 'compute-7' }];
const ok: EnrollmentOutcome = { ok: true, effects: EFFECTS };
const ERROR = 'no resource provider compute-7 in Placement';
const failed: EnrollmentOutcome = { ok: false, error: ERROR, effects: EFFECTS };

const record = (direction: 'enroll' | 'unenroll', outcome: EnrollmentOutcome, hostId = HOST_ID): RecordHostEnrollment => ({
  type: 'RecordHostEnrollment',
  data: { hostId, direction, outcome, now: at(9) },
});

const unregistered: HostEvent = {
  type: 'Host.Unregistered',
  data: { hostId: HOST_ID, hypervisorHostname: 'compute-7', unregisteredAt: at(8) },
};

describe('RecordHostEnrollment', () => {
  it('Given a registered host, When enrollment succeeded, Then it is enrolled with the effects', () => {
    given([hostRegistered()])
      .when(record('enroll', ok))
      .then([{ type: 'Host.Enrolled', data: { hostId: HOST_ID, effects: EFFECTS, enrolledAt: at(9) } }]);
  });

  it('Given a registered host, When enrollment failed, Then the failure is recorded with the cloud error', () => {
    given([hostRegistered()])
      .when(record('enroll', failed))
      .then([{ type: 'Host.EnrollmentFailed', data: { hostId: HOST_ID, error: ERROR, effects: EFFECTS, failedAt: at(9) } }]);
  });

  it('Given a removed host, When un-enrollment succeeded, Then it is unenrolled', () => {
    given([hostRegistered(), unregistered])
      .when(record('unenroll', ok))
      .then([{ type: 'Host.Unenrolled', data: { hostId: HOST_ID, effects: EFFECTS, unenrolledAt: at(9) } }]);
  });

  it('Given a removed host, When un-enrollment failed, Then the failure is recorded', () => {
    given([hostRegistered(), unregistered])
      .when(record('unenroll', failed))
      .then([{ type: 'Host.UnenrollmentFailed', data: { hostId: HOST_ID, error: ERROR, effects: EFFECTS, failedAt: at(9) } }]);
  });

  it('Given no host, When an outcome is recorded, Then HOST_NOT_FOUND', () => {
    given([]).when(record('enroll', ok)).thenThrows('HOST_NOT_FOUND');
  });

  it('Given another host id than the stream holds, When an outcome is recorded, Then HOST_NOT_FOUND', () => {
    given([hostRegistered()])
      .when(record('enroll', ok, '8'))
      .thenThrows('HOST_NOT_FOUND');
  });

  it('Given a removed host, When an enrollment outcome arrives, Then HOST_ENROLLMENT_STALE', () => {
    given([hostRegistered(), unregistered]).when(record('enroll', ok)).thenThrows('HOST_ENROLLMENT_STALE', 'removed');
  });

  it('Given a registered host, When an un-enrollment outcome arrives, Then HOST_ENROLLMENT_STALE', () => {
    given([hostRegistered()]).when(record('unenroll', ok)).thenThrows('HOST_ENROLLMENT_STALE', 'registered');
  });

  it('leaves the host state as it was (enrollment is the cloud’s business, not the calendar’s)', () => {
    const registered = foldEvents(hostDecider, [hostRegistered()]);
    const enrolled: HostEvent = { type: 'Host.Enrolled', data: { hostId: HOST_ID, effects: EFFECTS, enrolledAt: at(9) } };
    const failure: HostEvent = { type: 'Host.EnrollmentFailed', data: { hostId: HOST_ID, error: 'x', effects: [], failedAt: at(9) } };
    expect(foldEvents(hostDecider, [enrolled, failure], registered)).toEqual(registered);
    const removed = foldEvents(hostDecider, [hostRegistered(), unregistered]);
    const unenrolled: HostEvent = { type: 'Host.Unenrolled', data: { hostId: HOST_ID, effects: [], unenrolledAt: at(9) } };
    const unenrollFailure: HostEvent = {
      type: 'Host.UnenrollmentFailed',
      data: { hostId: HOST_ID, error: 'x', effects: [], failedAt: at(9) },
    };
    expect(foldEvents(hostDecider, [unenrolled, unenrollFailure], removed)).toEqual(removed);
  });
});
