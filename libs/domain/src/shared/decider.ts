/** Domain events and commands are plain readonly data; metadata is added by the application layer. */
export type DomainEvent<Type extends string = string, Data = unknown> = Readonly<{ type: Type; data: Data }>;

export type Command<Type extends string = string, Data = unknown> = Readonly<{ type: Type; data: Data }>;

export interface Decider<State, Cmd extends Command, Evt extends DomainEvent> {
  readonly initialState: () => State;
  /** Validates the command against the state; returns the new events or throws a DomainError. */
  readonly decide: (command: Cmd, state: State) => readonly Evt[];
  /** Applies a recorded event; trusts history and never throws. */
  readonly evolve: (state: State, event: Evt) => State;
}

export const foldEvents = <State, Evt extends DomainEvent>(
  decider: Pick<Decider<State, Command, Evt>, 'initialState' | 'evolve'>,
  events: readonly Evt[],
  from: State = decider.initialState(),
): State => events.reduce(decider.evolve, from);
