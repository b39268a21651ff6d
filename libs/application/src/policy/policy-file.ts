import { readFileSync } from 'node:fs';
import { describeError } from '#domain/index.js';

/**
 * Reads an oslo.policy-style policy file: JSON (`{"rule": "check string"}`) or the YAML subset
 * oslopolicy-sample-generator writes (one `"name": "check string"` per line, `#` comments). Anything
 * else (nesting, lists, multi-line values, duplicate names) is an error that names the line.
 */
export class PolicyFileError extends Error {
  constructor(file: string, reason: string) {
    super(`policy file ${file}: ${reason}`);
    this.name = 'PolicyFileError';
  }
}

const fromJson = (text: string, file: string): Record<string, string> => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new PolicyFileError(file, `invalid JSON (${describeError(error)})`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new PolicyFileError(file, 'expected an object of rule names to check strings');
  const rules: Record<string, string> = {};
  for (const [name, value] of Object.entries(parsed)) {
    if (typeof value !== 'string')
      throw new PolicyFileError(file, `rule "${name}" must be a string (oslo.policy's list form is not supported)`);
    rules[name] = value;
  }
  return rules;
};

/** A quoted YAML scalar at the start of `text`: its value and what follows the closing quote. */
const quoted = (text: string, file: string, line: number): { value: string; rest: string } => {
  const quote = text[0];
  if (quote === "'") {
    let value = '';
    for (let i = 1; i < text.length; i++) {
      if (text[i] === "'") {
        if (text[i + 1] === "'") {
          value += "'";
          i++;
          continue;
        }
        return { value, rest: text.slice(i + 1) };
      }
      value += text[i];
    }
  } else {
    let value = '';
    for (let i = 1; i < text.length; i++) {
      const c = text[i];
      if (c === '\\') {
        const next = text[i + 1];
        const escapes: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', n: '\n', t: '\t' };
        if (next === undefined || escapes[next] === undefined) throw new PolicyFileError(file, `line ${line}: unsupported escape`);
        value += escapes[next];
        i++;
        continue;
      }
      if (c === '"') return { value, rest: text.slice(i + 1) };
      value += c;
    }
  }
  throw new PolicyFileError(file, `line ${line}: unterminated quoted string`);
};

const stripComment = (text: string): string => {
  const hash = text.search(/(^|\s)#/);
  return (hash < 0 ? text : text.slice(0, hash)).trim();
};

const fromYaml = (text: string, file: string): Record<string, string> => {
  const rules: Record<string, string> = {};
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = index + 1;
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#') || trimmed === '---' || trimmed === '...') return;
    if (/^\s/.test(raw)) throw new PolicyFileError(file, `line ${line}: nested values are not supported (one "name": "rule" per line)`);
    if (trimmed === '{}') return;
    let name: string;
    let rest: string;
    if (trimmed.startsWith('"') || trimmed.startsWith("'")) {
      ({ value: name, rest } = quoted(trimmed, file, line));
      rest = rest.trimStart();
      if (!rest.startsWith(':')) throw new PolicyFileError(file, `line ${line}: expected ":" after the rule name`);
      rest = rest.slice(1);
    } else {
      const separator = trimmed.search(/:(\s|$)/);
      if (separator <= 0) throw new PolicyFileError(file, `line ${line}: expected "name: rule"`);
      name = trimmed.slice(0, separator);
      rest = trimmed.slice(separator + 1);
    }
    rest = rest.trim();
    let value: string;
    if (rest.startsWith('"') || rest.startsWith("'")) {
      const parsed = quoted(rest, file, line);
      if (stripComment(parsed.rest) !== '') throw new PolicyFileError(file, `line ${line}: unexpected text after the rule`);
      value = parsed.value;
    } else {
      value = stripComment(rest);
      if (value === '')
        throw new PolicyFileError(file, `line ${line}: rule "${name}" has no value (write "" to allow everyone, "!" to deny)`);
      if (/^[[{|>&*!%@`]/.test(value) && value !== '!' && value !== '@') {
        throw new PolicyFileError(file, `line ${line}: quote the rule of "${name}"`);
      }
    }
    if (Object.hasOwn(rules, name)) throw new PolicyFileError(file, `line ${line}: rule "${name}" is defined twice`);
    rules[name] = value;
  });
  return rules;
};

export const parsePolicyDocument = (text: string, file = '(inline)'): Record<string, string> =>
  text.trimStart().startsWith('{') ? fromJson(text, file) : fromYaml(text, file);

export const readPolicyFile = (file: string): Record<string, string> => {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new PolicyFileError(file, `cannot be read (${describeError(error)})`);
  }
  return parsePolicyDocument(text, file);
};
