/**
 * oslo.policy's rule language, the part Blazar's policies and operators' policy files use:
 *
 *   @  !  rule:<name>  role:<role>  <credential>:<literal | %(target_key)s>  '<literal>':%(target_key)s
 *   not <check>   <check> and <check>   <check> or <check>   ( ... )
 *
 * Precedence as in oslo.policy: `not` binds tighter than `and`, `and` tighter than `or`; the empty
 * rule allows everything. Unlike oslo.policy (which logs and denies), a rule that cannot be parsed is
 * an error, so a typo in a policy file stops the service at start instead of silently denying.
 */

export type Rule =
  | { readonly kind: 'true' }
  | { readonly kind: 'false' }
  | { readonly kind: 'not'; readonly rule: Rule }
  | { readonly kind: 'and'; readonly rules: readonly Rule[] }
  | { readonly kind: 'or'; readonly rules: readonly Rule[] }
  | { readonly kind: 'rule'; readonly name: string }
  | { readonly kind: 'role'; readonly match: string }
  | { readonly kind: 'generic'; readonly key: string; readonly match: string };

/** What the caller is (oslo.context's `to_policy_values()`): user_id, project_id, roles, is_admin... */
export type Credentials = Readonly<Record<string, string | boolean | null | readonly string[]>>;

/** What the call is about: `{project_id, user_id}` of the lease, or the caller's own for collections. */
export type Target = Readonly<Record<string, string | null | undefined>>;

export class PolicySyntaxError extends Error {
  constructor(rule: string, reason: string) {
    super(`invalid policy rule "${rule}": ${reason}`);
    this.name = 'PolicySyntaxError';
  }
}

const KEYWORDS = new Set(['and', 'or', 'not']);

/** Splits on whitespace; parentheses glued to a check (`(role:a`, `b)`) become tokens of their own. */
const tokenize = (text: string): string[] => {
  const tokens: string[] = [];
  for (const word of text.split(/\s+/).filter((w) => w.length > 0)) {
    let rest = word;
    while (rest.startsWith('(')) {
      tokens.push('(');
      rest = rest.slice(1);
    }
    let closing = 0;
    while (rest.endsWith(')')) {
      closing++;
      rest = rest.slice(0, -1);
    }
    if (rest.length > 0) tokens.push(rest);
    for (let i = 0; i < closing; i++) tokens.push(')');
  }
  return tokens;
};

const unquote = (value: string): string | null => {
  const quoted = value.length >= 2 && (value[0] === "'" || value[0] === '"') && value.at(-1) === value[0];
  return quoted ? value.slice(1, -1) : null;
};

const parseCheck = (token: string, source: string): Rule => {
  if (token === '@') return { kind: 'true' };
  if (token === '!') return { kind: 'false' };
  const colon = token.indexOf(':');
  if (colon <= 0 || colon === token.length - 1)
    throw new PolicySyntaxError(source, `"${token}" is not a check (expected kind:match, @ or !)`);
  const kind = token.slice(0, colon);
  const match = token.slice(colon + 1);
  if (kind === 'rule') return { kind: 'rule', name: match };
  if (kind === 'role') return { kind: 'role', match };
  if (kind === 'http' || kind === 'https') throw new PolicySyntaxError(source, 'http checks are not supported');
  return { kind: 'generic', key: kind, match };
};

export const parseRule = (source: string): Rule => {
  const tokens = tokenize(source);
  if (tokens.length === 0) return { kind: 'true' };
  let at = 0;
  const peek = (): string | undefined => tokens[at];
  const keyword = (word: string): boolean => peek()?.toLowerCase() === word;

  const atom = (): Rule => {
    const token = tokens[at++];
    if (token === undefined) throw new PolicySyntaxError(source, 'unexpected end');
    if (token === '(') {
      const inner = or();
      if (tokens[at++] !== ')') throw new PolicySyntaxError(source, 'missing )');
      return inner;
    }
    if (token === ')' || KEYWORDS.has(token.toLowerCase())) throw new PolicySyntaxError(source, `unexpected "${token}"`);
    return parseCheck(token, source);
  };
  const not = (): Rule => {
    if (!keyword('not')) return atom();
    at++;
    return { kind: 'not', rule: not() };
  };
  const and = (): Rule => {
    const rules = [not()];
    while (keyword('and')) {
      at++;
      rules.push(not());
    }
    return rules.length === 1 ? rules[0]! : { kind: 'and', rules };
  };
  const or = (): Rule => {
    const rules = [and()];
    while (keyword('or')) {
      at++;
      rules.push(and());
    }
    return rules.length === 1 ? rules[0]! : { kind: 'or', rules };
  };

  const rule = or();
  if (at !== tokens.length) throw new PolicySyntaxError(source, `unexpected "${tokens[at]}"`);
  return rule;
};

/** Python's str() of a credential value, as oslo.policy compares them. */
const pythonString = (value: string | boolean | number): string =>
  typeof value === 'boolean' ? (value ? 'True' : 'False') : String(value);

/** `%(key)s` substitutions from the target; null when a key is missing (the check is then false). */
const substitute = (match: string, target: Target): string | null => {
  let missing = false;
  const result = match.replace(/%\(([^)]+)\)s/g, (_all, key: string) => {
    const value = target[key];
    if (value === undefined || value === null) {
      missing = true;
      return '';
    }
    return value;
  });
  return missing ? null : result;
};

export type RuleLookup = (name: string) => Rule | undefined;

export const evaluate = (rule: Rule, credentials: Credentials, target: Target, lookup: RuleLookup, depth = 0): boolean => {
  if (depth > 50) return false; // a cycle of rule: references; rejected at load time, guarded here too
  switch (rule.kind) {
    case 'true':
      return true;
    case 'false':
      return false;
    case 'not':
      return !evaluate(rule.rule, credentials, target, lookup, depth + 1);
    case 'and':
      return rule.rules.every((r) => evaluate(r, credentials, target, lookup, depth + 1));
    case 'or':
      return rule.rules.some((r) => evaluate(r, credentials, target, lookup, depth + 1));
    case 'rule': {
      const named = lookup(rule.name);
      return named !== undefined && evaluate(named, credentials, target, lookup, depth + 1);
    }
    case 'role': {
      const wanted = substitute(rule.match, target);
      const roles = credentials.roles;
      return (
        wanted !== null &&
        Array.isArray(roles) &&
        (roles as readonly unknown[]).some((role) => typeof role === 'string' && role.toLowerCase() === wanted.toLowerCase())
      );
    }
    case 'generic': {
      const match = substitute(rule.match, target);
      if (match === null) return false;
      const literal = unquote(rule.key);
      if (literal !== null) return literal === match;
      const value = credentials[rule.key];
      if (value === undefined || value === null) return false;
      if (Array.isArray(value)) return value.includes(match);
      return pythonString(value as string | boolean) === match;
    }
  }
};

/** Names this rule refers to with `rule:`. */
export const references = (rule: Rule): string[] => {
  switch (rule.kind) {
    case 'rule':
      return [rule.name];
    case 'not':
      return references(rule.rule);
    case 'and':
    case 'or':
      return rule.rules.flatMap(references);
    default:
      return [];
  }
};
