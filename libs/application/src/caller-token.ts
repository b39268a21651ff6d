import { inspect } from 'node:util';

const REDACTED = '[caller token]';

/**
 * A caller's own X-Auth-Token, kept for the few calls Leasehold makes as the caller (a lease's Keystone
 * trust). It never leaves in JSON, logs or errors: serializing or inspecting it shows a placeholder.
 */
export class CallerToken {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  /** The token itself, for the X-Auth-Token of a call made as the caller. */
  reveal(): string {
    return this.#value;
  }

  toJSON(): string {
    return REDACTED;
  }

  toString(): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return REDACTED;
  }
}
