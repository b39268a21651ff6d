import { describe, expect, it } from 'vitest';
import { foldEvents } from '../shared/decider.js';
import { DeciderSpecification } from '../shared/specification.js';
import { type HostRegistryCommand, type HostRegistryEvent, hostRegistryDecider } from './host-registry.js';

const added = (hostId: string, hypervisorHostname: string): HostRegistryEvent => ({
  type: 'HostRegistry.HostAdded',
  data: { hostId, hypervisorHostname },
});

const removed = (hostId: string, hypervisorHostname: string): HostRegistryEvent => ({
  type: 'HostRegistry.HostRemoved',
  data: { hostId, hypervisorHostname },
});

const add = (hypervisorHostname: string): HostRegistryCommand => ({ type: 'AddHostToRegistry', data: { hypervisorHostname } });

const remove = (hostId: string, hypervisorHostname: string): HostRegistryCommand => ({
  type: 'RemoveHostFromRegistry',
  data: { hostId, hypervisorHostname },
});

const given = DeciderSpecification.for(hostRegistryDecider);

/** Runs commands one after another, recording each one's events, as the write side would. */
const run = (commands: readonly HostRegistryCommand[], history: readonly HostRegistryEvent[] = []): HostRegistryEvent[] => {
  const events = [...history];
  for (const command of commands) {
    events.push(...hostRegistryDecider.decide(command, foldEvents(hostRegistryDecider, events)));
  }
  return events.slice(history.length);
};

describe('AddHostToRegistry', () => {
  describe('When empty', () => {
    it('hands out id 1 first', () => {
      given([])
        .when(add('compute-1'))
        .then([added('1', 'compute-1')]);
    });

    it('hands out ids 1, 2, 3 in order', () => {
      expect(run([add('compute-a'), add('compute-b'), add('compute-c')])).toEqual([
        added('1', 'compute-a'),
        added('2', 'compute-b'),
        added('3', 'compute-c'),
      ]);
    });
  });

  describe('When hosts are registered', () => {
    it('hands out the next id', () => {
      given([added('1', 'compute-1'), added('2', 'compute-2')])
        .when(add('compute-3'))
        .then([added('3', 'compute-3')]);
    });

    it('refuses a hypervisor hostname that is already registered', () => {
      given([added('1', 'compute-1'), added('2', 'compute-2')])
        .when(add('compute-2'))
        .thenThrows('HOST_ALREADY_REGISTERED', 'Host compute-2 is already registered with id 2');
    });
  });

  describe('When hosts were removed', () => {
    it('does not reuse the id of a removed host', () => {
      given([added('1', 'compute-1'), added('2', 'compute-2'), removed('2', 'compute-2')])
        .when(add('compute-3'))
        .then([added('3', 'compute-3')]);
    });

    it('does not reuse ids even when every host was removed', () => {
      given([added('1', 'compute-1'), removed('1', 'compute-1')])
        .when(add('compute-2'))
        .then([added('2', 'compute-2')]);
    });

    it('re-adds a removed hostname under a new id', () => {
      given([added('1', 'compute-1'), added('2', 'compute-2'), removed('1', 'compute-1')])
        .when(add('compute-1'))
        .then([added('3', 'compute-1')]);
    });

    it('refuses a re-added hostname a second time', () => {
      given([added('1', 'compute-1'), removed('1', 'compute-1'), added('2', 'compute-1')])
        .when(add('compute-1'))
        .thenThrows('HOST_ALREADY_REGISTERED', 'with id 2');
    });
  });
});

describe('RemoveHostFromRegistry', () => {
  describe('When empty', () => {
    it('does nothing for an unknown host', () => {
      given([]).when(remove('1', 'compute-1')).thenNothing();
    });
  });

  describe('When hosts are registered', () => {
    const history = (): HostRegistryEvent[] => [added('1', 'compute-1'), added('2', 'compute-2')];

    it('removes a registered host', () => {
      given(history())
        .when(remove('2', 'compute-2'))
        .then([removed('2', 'compute-2')]);
    });

    it('does nothing for an unknown hostname', () => {
      given(history()).when(remove('3', 'compute-3')).thenNothing();
    });

    it('does nothing when the id does not match the hostname', () => {
      given(history()).when(remove('1', 'compute-2')).thenNothing();
    });

    it('does nothing for a host already removed', () => {
      given([...history(), removed('2', 'compute-2')])
        .when(remove('2', 'compute-2'))
        .thenNothing();
    });

    it('does nothing for the old id of a re-added hostname', () => {
      given([...history(), removed('1', 'compute-1'), added('3', 'compute-1')])
        .when(remove('1', 'compute-1'))
        .thenNothing();
    });
  });
});

describe('evolve', () => {
  it('starts with no hosts and last id 0', () => {
    const state = hostRegistryDecider.initialState();
    expect(state.lastHostId).toBe(0);
    expect([...state.byName]).toEqual([]);
  });

  it('tracks registered names and the highest id handed out', () => {
    const state = foldEvents(hostRegistryDecider, [added('1', 'compute-1'), added('2', 'compute-2'), removed('2', 'compute-2')]);
    expect(state.lastHostId).toBe(2);
    expect([...state.byName]).toEqual([['compute-1', '1']]);
  });

  it('never lowers the last id when replaying an older id', () => {
    const state = foldEvents(hostRegistryDecider, [added('5', 'compute-5'), added('3', 'compute-3')]);
    expect(state.lastHostId).toBe(5);
  });

  it('does not mutate the previous state', () => {
    const before = foldEvents(hostRegistryDecider, [added('1', 'compute-1')]);
    hostRegistryDecider.evolve(before, removed('1', 'compute-1'));
    expect([...before.byName]).toEqual([['compute-1', '1']]);
  });
});

describe('evolve over many hosts', () => {
  const names = Array.from({ length: 2000 }, (_, i) => `compute-${i + 1}`);
  const history = names.map((name, i) => added(String(i + 1), name));

  it('knows every registered name, and each earlier state only the names registered before it', () => {
    const states = [hostRegistryDecider.initialState()];
    for (const event of history) states.push(hostRegistryDecider.evolve(states.at(-1)!, event));
    const last = states.at(-1)!;
    expect(last.byName.size).toBe(2000);
    for (const [i, name] of names.entries()) expect(last.byName.get(name)).toBe(String(i + 1));
    expect(states[1000]!.byName.size).toBe(1000);
    expect(states[1000]!.byName.get('compute-1000')).toBe('1000');
    expect(states[1000]!.byName.has('compute-1001')).toBe(false);
  });

  it('decides on a state whose names are a plain Map (as a snapshot gives it back) as on the folded one', () => {
    const folded = foldEvents(hostRegistryDecider, history);
    const restored = { lastHostId: folded.lastHostId, byName: new Map(folded.byName) };
    expect(() => hostRegistryDecider.decide(add('compute-7'), restored)).toThrow(/already registered with id 7/);
    expect(hostRegistryDecider.decide(add('compute-new'), restored)).toEqual([added('2001', 'compute-new')]);
    const next = hostRegistryDecider.evolve(restored, removed('7', 'compute-7'));
    expect(next.byName.has('compute-7')).toBe(false);
    expect(next.byName.size).toBe(1999);
    expect(restored.byName.get('compute-7')).toBe('7');
  });
});
