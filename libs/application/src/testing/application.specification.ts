import { expect } from 'vitest';
import type { EventStore } from '#event-store/event-store.port.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import type { ApplicationContext, ApplicationSettings } from '../application-context.js';
import { type Caller, userCaller } from '../caller.js';
import type { CommandMetadata } from '../command.js';
import { CommandHandler } from '../command-handler.js';
import { PolicyEnforcer } from '../policy/policy.enforcer.js';
import { WriteIndex } from '../write-model/write-index.js';
import { type StreamEvent, appendGiven } from './given-events.js';

export type { StreamEvent };

export const DEFAULT_SETTINGS: ApplicationSettings = {
  cleaningTimeMinutes: 0,
  minutesBeforeEnd: 60,
  allocationRatios: { cpu: 1, ram: 1, disk: 1 },
};

/** Keystone's default implied roles: an admin is also a member, a member also a reader. */
const IMPLIED: Readonly<Record<'admin' | 'member' | 'reader', readonly string[]>> = {
  admin: ['admin', 'member', 'reader'],
  member: ['member', 'reader'],
  reader: ['reader'],
};

/** A caller of upstream's default policy with Keystone's token roles: `admin`, or a `member`/`reader` of its project. */
export const testCaller = (role: 'admin' | 'member' | 'reader', projectId = 'project-1', userId = `${role}-user`): Caller =>
  userCaller({
    userId,
    projectId,
    roles: IMPLIED[role],
    credentials: { user_id: userId, project_id: projectId, roles: IMPLIED[role], is_admin: false },
    policy: PolicyEnforcer.fromRules(),
    token: null,
  });

export const commandMetadata = (actor: Caller, now: string): CommandMetadata => ({
  actor,
  correlationId: 'request-1',
  causationId: 'request-1',
  now,
});

interface Scenario<App> {
  readonly store: EventStore;
  readonly app: App;
  readonly head: number;
}

/**
 * Given / When / Then for the application layer without a transport, as emmett's ApiSpecification:
 * given events already in a real (in-memory SQLite) log, when a use case runs, then exactly these
 * events were appended, or it threw. Ids are `id-1`, `id-2`... in the order they are asked for.
 */
export const applicationSpecification = <App>(
  build: (context: ApplicationContext) => App,
  settings: ApplicationSettings = DEFAULT_SETTINGS,
) => {
  const arrange = async (given: readonly StreamEvent[]): Promise<Scenario<App>> => {
    const store = SqliteEventStore.open({ file: ':memory:' });
    const position = await appendGiven(store, given);
    let ids = 0;
    const app = build({ handler: new CommandHandler(store), index: new WriteIndex(store), settings, newId: () => `id-${++ids}` });
    return { store, app, head: position };
  };
  const appended = async ({ store, head }: Scenario<App>): Promise<StreamEvent[]> =>
    (await store.readAll({ from: head })).map(({ streamId, type, data }) => ({ streamId, type, data }));

  return {
    given: (given: readonly StreamEvent[] = []) => ({
      when: <R>(act: (app: App) => Promise<R>) => ({
        /** The events appended, in log order; resolves with the use case's answer for further checks. */
        then: async (expected: readonly StreamEvent[]): Promise<R> => {
          const scenario = await arrange(given);
          try {
            const result = await act(scenario.app);
            expect(await appended(scenario)).toEqual(expected);
            return result;
          } finally {
            await scenario.store.close();
          }
        },
        /** It threw `matching` (e.g. `{ code: 'POLICY_NOT_AUTHORIZED' }`) and appended nothing. */
        thenThrows: async (matching: Record<string, unknown>): Promise<void> => {
          const scenario = await arrange(given);
          try {
            await expect(act(scenario.app)).rejects.toMatchObject(matching);
            expect(await appended(scenario)).toEqual([]);
          } finally {
            await scenario.store.close();
          }
        },
      }),
    }),
  };
};
