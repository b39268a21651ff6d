import { describe, expect, it } from 'vitest';
import type { Command, Decider, DomainEvent } from './decider.js';
import { conflict } from './errors.js';
import { DeciderSpecification } from './specification.js';

/** A counter that can be incremented (refused past 2), or reset (no-op at 0). */
type CounterEvent = DomainEvent<'Incremented', { readonly by: number }> | DomainEvent<'Reset', Record<string, never>>;
type CounterCommand = Command<'Increment', { readonly by: number }> | Command<'Reset', Record<string, never>> | Command<'Explode', null>;

const counter: Decider<number, CounterCommand, CounterEvent> = {
  initialState: () => 0,
  decide: (command, state) => {
    switch (command.type) {
      case 'Increment':
        if (state + command.data.by > 2) throw conflict('TOO_BIG', `Counter ${state} cannot grow by ${command.data.by}`);
        return [{ type: 'Incremented', data: { by: command.data.by } }];
      case 'Reset':
        return state === 0 ? [] : [{ type: 'Reset', data: {} }];
      case 'Explode':
        throw new Error('not a domain error');
      default:
        return [];
    }
  },
  evolve: (state, event) => (event.type === 'Incremented' ? state + event.data.by : 0),
};

const given = DeciderSpecification.for(counter);
const inc = (by: number): CounterCommand => ({ type: 'Increment', data: { by } });
const incremented = (by: number): CounterEvent => ({ type: 'Incremented', data: { by } });
const reset: CounterCommand = { type: 'Reset', data: {} };

describe('DeciderSpecification', () => {
  it('folds the given events before deciding', () => {
    given([incremented(1), incremented(1)])
      .when(inc(1))
      .thenThrows('TOO_BIG', 'Counter 2 cannot grow by 1');
    given([incremented(1)])
      .when(inc(1))
      .then([incremented(1)]);
  });

  it('then fails when the events differ', () => {
    expect(() =>
      given([])
        .when(inc(1))
        .then([incremented(2)]),
    ).toThrow();
    expect(() => given([]).when(inc(1)).then([])).toThrow();
  });

  it('then fails when the decider throws', () => {
    expect(() =>
      given([incremented(2)])
        .when(inc(1))
        .then([incremented(1)]),
    ).toThrow(/cannot grow/);
  });

  it('thenThrows fails when nothing is thrown', () => {
    expect(() => given([]).when(inc(1)).thenThrows('TOO_BIG')).toThrow();
  });

  it('thenThrows fails on another code', () => {
    expect(() =>
      given([incremented(2)])
        .when(inc(1))
        .thenThrows('OTHER'),
    ).toThrow();
  });

  it('thenThrows fails when the message lacks the text', () => {
    expect(() =>
      given([incremented(2)])
        .when(inc(1))
        .thenThrows('TOO_BIG', 'something else'),
    ).toThrow();
  });

  it('thenThrows fails on an error that is not a DomainError', () => {
    expect(() => given([]).when({ type: 'Explode', data: null }).thenThrows('TOO_BIG')).toThrow();
  });

  it('thenNothing passes on an empty list and fails otherwise', () => {
    given([]).when(reset).thenNothing();
    expect(() =>
      given([incremented(1)])
        .when(reset)
        .thenNothing(),
    ).toThrow();
  });
});
