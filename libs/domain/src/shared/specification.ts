/**
 * Test-only Given/When/Then helper for deciders (not exported from the package index).
 *
 *   const given = DeciderSpecification.for(leaseDecider);
 *   given([created]).when(command).then([expectedEvent]);
 */
import { expect } from 'vitest';
import type { Command, Decider, DomainEvent } from './decider.js';
import { DomainError } from './errors.js';

export interface DeciderThen<E extends DomainEvent> {
  /** The command yields exactly these events (deep equality). */
  readonly then: (expected: readonly E[]) => void;
  /** The command is refused with a DomainError of this exact code (and message containing the text, if given). */
  readonly thenThrows: (code: string, messageIncludes?: string) => void;
  /** The command is accepted but changes nothing. */
  readonly thenNothing: () => void;
}

export interface DeciderWhen<C extends Command, E extends DomainEvent> {
  readonly when: (command: C) => DeciderThen<E>;
}

const captureError = (run: () => unknown): unknown => {
  try {
    const result = run();
    return { notThrown: result };
  } catch (error: unknown) {
    return error;
  }
};

export const DeciderSpecification = {
  for:
    <S, C extends Command, E extends DomainEvent>(decider: Decider<S, C, E>) =>
    (givenEvents: readonly E[]): DeciderWhen<C, E> => ({
      when: (command: C): DeciderThen<E> => {
        const run = (): readonly E[] => {
          const state = givenEvents.reduce((current: S, event: E) => decider.evolve(current, event), decider.initialState());
          return decider.decide(command, state);
        };
        return {
          then: (expected) => {
            expect(run()).toEqual(expected);
          },
          thenThrows: (code, messageIncludes) => {
            const error = captureError(run);
            expect(error, `expected ${command.type} to throw DomainError ${code}`).toBeInstanceOf(DomainError);
            const domainError = error as DomainError;
            expect(domainError.code).toBe(code);
            if (messageIncludes !== undefined) expect(domainError.message).toContain(messageIncludes);
          },
          thenNothing: () => {
            expect(run()).toEqual([]);
          },
        };
      },
    }),
};
