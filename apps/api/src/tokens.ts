export const EVENT_STORE = Symbol('EVENT_STORE');
export const READ_MODEL_ORM = Symbol('READ_MODEL_ORM');
export const CLOCK = Symbol('CLOCK');
export const APPLICATION_CONTEXT = Symbol('APPLICATION_CONTEXT');
