import { DomainError } from '#domain/index.js';
import { ALIASES, DEFAULT_RULES } from './policy-defaults.js';
import { readPolicyFile } from './policy-file.js';
import { type Credentials, PolicySyntaxError, type Rule, type Target, evaluate, parseRule, references } from './policy-rule.js';

/** Upstream's PolicyNotAuthorized (blazar/exceptions.py): 403 `Policy doesn't allow <action> to be performed`. */
export const policyNotAuthorized = (action: string): DomainError =>
  new DomainError('POLICY_NOT_AUTHORIZED', 'forbidden', `Policy doesn't allow ${action} to be performed`);

/**
 * Upstream's defaults, overridden rule by rule by the operator's policy file. An action without a
 * rule falls back to the rule named `default` if the file defines one, else it is denied.
 */
export class PolicyEnforcer {
  private constructor(private readonly rules: ReadonlyMap<string, Rule>) {}

  static fromRules(overrides: Readonly<Record<string, string>> = {}, source = 'policy'): PolicyEnforcer {
    const texts: Record<string, string> = { ...DEFAULT_RULES };
    for (const [alias, name] of Object.entries(ALIASES)) {
      const aliased = overrides[alias];
      if (aliased !== undefined && overrides[name] === undefined) texts[name] = aliased;
    }
    Object.assign(texts, overrides);
    const rules = new Map<string, Rule>();
    for (const [name, text] of Object.entries(texts)) {
      try {
        rules.set(name, parseRule(text));
      } catch (error) {
        if (error instanceof PolicySyntaxError) throw new Error(`${source}: rule "${name}": ${error.message}`);
        throw error;
      }
    }
    PolicyEnforcer.rejectCycles(rules, source);
    return new PolicyEnforcer(rules);
  }

  /** Defaults only (no file), or defaults overridden by `file` (JSON or YAML). */
  static load(file: string | null): PolicyEnforcer {
    return file === null ? PolicyEnforcer.fromRules() : PolicyEnforcer.fromRules(readPolicyFile(file), `policy file ${file}`);
  }

  private static rejectCycles(rules: ReadonlyMap<string, Rule>, source: string): void {
    const done = new Set<string>();
    const visit = (name: string, path: readonly string[]): void => {
      if (path.includes(name)) throw new Error(`${source}: rules refer to each other in a cycle: ${[...path, name].join(' -> ')}`);
      if (done.has(name)) return;
      const rule = rules.get(name);
      if (rule !== undefined) for (const next of references(rule)) visit(next, [...path, name]);
      done.add(name);
    };
    for (const name of rules.keys()) visit(name, []);
  }

  has(action: string): boolean {
    return this.rules.has(action);
  }

  check(action: string, credentials: Credentials, target: Target): boolean {
    const rule = this.rules.get(action) ?? this.rules.get('default');
    return rule !== undefined && evaluate(rule, credentials, target, (name) => this.rules.get(name));
  }

  /** Throws upstream's 403 when `credentials` may not perform `action` on `target`. */
  authorize(action: string, credentials: Credentials, target: Target): void {
    if (!this.check(action, credentials, target)) throw policyNotAuthorized(action);
  }
}
