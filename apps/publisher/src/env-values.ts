/** The process environment as the publisher's configuration reads it. */
export type Env = Readonly<Record<string, string | undefined>>;

/** A variable's trimmed value; unset and blank are the same (absent). */
export const text = (env: Env, name: string): string | undefined => {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
};

/** A switch: true/1/yes/on or false/0/no/off; anything else stops the publisher naming the variable. */
export const flag = (env: Env, name: string, fallback: boolean): boolean => {
  const value = text(env, name);
  if (value === undefined) return fallback;
  if (['true', '1', 'yes', 'on'].includes(value)) return true;
  if (['false', '0', 'no', 'off'].includes(value)) return false;
  throw new Error(`${name} must be true or false, got '${value}'`);
};
