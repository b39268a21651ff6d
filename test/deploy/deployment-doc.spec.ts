/**
 * docs/deployment.md keeps its promise (issue 36, line 6): every numbered step says which test exercises it
 * ("Exercised by:") or that none can and why ("Not exercised:"); every file those lines name exists, and every
 * test name they quote after a file is in that file; every `leasehold` command line it shows is one the CLI
 * accepts, its subcommand and each flag (and a flag's choice) as the CLI's own --help lists them, run in process
 * from apps/cli/src. The last tests feed the checks a broken copy of the document, to show each can fail.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../apps/cli/src/cli-program.js';
import { ROOT } from '../helpers/system.js';

const DOC = readFileSync(join(ROOT, 'docs', 'deployment.md'), 'utf8');

interface Section {
  readonly title: string;
  readonly body: string;
}

/** The `## N. Title` sections, in order. */
const sectionsOf = (text: string): Section[] =>
  text
    .split(/^(?=## \d+\. )/m)
    .filter((part) => part.startsWith('## '))
    .map((part) => ({ title: part.slice(3, part.indexOf('\n')), body: part }));

const EXERCISED = /^(Exercised by|Not exercised): \S/;

/** The paragraphs that say what exercises a step, whitespace made single spaces. */
const exercisedParagraphs = (section: Section): string[] =>
  section.body
    .split(/\n\s*\n/)
    .filter((paragraph) => EXERCISED.test(paragraph))
    .map((paragraph) => paragraph.replace(/\s+/g, ' '));

const unexercised = (text: string): string[] =>
  sectionsOf(text)
    .filter((section) => exercisedParagraphs(section).length === 0)
    .map((section) => section.title);

const REPOSITORY_PATH = /`((?:\.ci|apps|deploy|libs|scripts|test)\/[^\s`]*)`/g;

const pathsNamed = (paragraph: string): string[] => [...paragraph.matchAll(REPOSITORY_PATH)].map(([, path = '']) => path);

/** Files the "Exercised by" paragraphs name, and documents the text links, that are not in the repository. */
const missingFiles = (text: string): string[] => {
  const named = sectionsOf(text).flatMap((section) => exercisedParagraphs(section).flatMap(pathsNamed));
  const documents = [...text.matchAll(/\bdocs\/[\w.-]+\.md\b/g)].map(([path]) => path);
  return [...new Set([...named, ...documents])].filter((path) => !existsSync(join(ROOT, path)));
};

/** Each "quoted test name" of those paragraphs, with the test file named last before it. */
const quotedTestNames = (text: string): { readonly file: string; readonly name: string }[] =>
  sectionsOf(text)
    .flatMap(exercisedParagraphs)
    .flatMap((paragraph) =>
      paragraph.split(REPOSITORY_PATH).flatMap((part, i, parts) => {
        const file = i % 2 === 0 ? parts[i - 1] : undefined;
        if (file === undefined || !file.endsWith('.ts')) return [];
        return [...part.matchAll(/"([^"]+)"/g)].map(([, name = '']) => ({ file, name }));
      }),
    );

const missingTestNames = (text: string): string[] =>
  quotedTestNames(text)
    .filter(({ file, name }) => !existsSync(join(ROOT, file)) || !readFileSync(join(ROOT, file), 'utf8').includes(name))
    .map(({ file, name }) => `${file}: ${name}`);

/** Every `leasehold ...` line of the shell blocks and every inline `leasehold <command> ...`, as words, comments left out. */
const cliCalls = (text: string): string[][] => {
  const shellLines = [...text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].flatMap(([, block = '']) => block.split('\n'));
  const commands = shellLines.flatMap((line) =>
    line
      .replace(/\s#.*$/, '')
      .split(/&&|;|\|/)
      .map((part) => part.trim())
      .filter((part) => part.startsWith('leasehold ')),
  );
  const inline = [...text.matchAll(/`(leasehold [^`]+)`/g)].map(([, code = '']) => code);
  return [...commands, ...inline].map((command) => (command.match(/'[^']*'|"[^"]*"|\S+/g) ?? []).slice(1));
};

interface CliOption {
  readonly takesValue: boolean;
  readonly choices: readonly string[];
}
type CliOptions = ReadonlyMap<string, CliOption>;

interface CliInterface {
  readonly global: CliOptions;
  readonly commands: ReadonlyMap<string, CliOptions>;
}

const helpOf = async (...args: string[]): Promise<string> => {
  let text = '';
  const out = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  expect(await runCli([...args, '--help'], { env: {}, stdout: out, stderr: out })).toBe(0);
  return text;
};

/** The options of a --help: `-h, --help`, `--force`, `--on-conflict <choice>` with its `(choices: ...)`. */
const optionsOf = (help: string): CliOptions => {
  const section = help.slice(help.indexOf('\nOptions:\n'), help.includes('\nCommands:\n') ? help.indexOf('\nCommands:\n') : undefined);
  const entries = section.split(/\n(?= {2}-)/).flatMap((entry) => {
    const match = /^ {2}(?:(-\w), )?(--[\w-]+)( [<[])?/.exec(entry);
    if (match === null) return [];
    const [, short, long = '', value] = match;
    const choices = [
      ...(/\(choices: ([^)]*?)(?:, default: [^)]*)?\)/.exec(entry.replace(/\s+/g, ' '))?.[1]?.matchAll(/"([^"]+)"/g) ?? []),
    ].map(([, choice = '']) => choice);
    const option = { takesValue: value !== undefined, choices };
    return short === undefined ? [[long, option] as const] : [[long, option] as const, [short, option] as const];
  });
  return new Map(entries);
};

/** The CLI as its own --help describes it. */
const cliInterface = async (): Promise<CliInterface> => {
  const root = await helpOf();
  const names = [...root.slice(root.indexOf('\nCommands:\n')).matchAll(/^ {2}([a-z][\w-]*)/gm)]
    .map(([, name = '']) => name)
    .filter((name) => name !== 'help');
  const commands = await Promise.all(names.map(async (name) => [name, optionsOf(await helpOf(name))] as const));
  return { global: optionsOf(root), commands: new Map(commands) };
};

/** What is wrong with one call: an unknown command, flag or choice; undefined when the CLI accepts it. */
const problemOf = (words: readonly string[], cli: CliInterface): string | undefined => {
  let options = cli.global;
  let command: string | undefined;
  for (let i = 0; i < words.length; i += 1) {
    const word = words[i] ?? '';
    if (!word.startsWith('-')) {
      if (command !== undefined) continue;
      command = word;
      const own = cli.commands.get(word);
      if (own === undefined) return `no command ${word}`;
      options = new Map([...cli.global, ...own]);
      continue;
    }
    const [flag = '', inlineValue] = word.split('=');
    const option = options.get(flag);
    if (option === undefined) return `${command ?? 'leasehold'} has no ${flag}`;
    if (!option.takesValue) continue;
    const value = inlineValue ?? words[(i += 1)];
    if (option.choices.length > 0 && !option.choices.includes(value ?? ''))
      return `${flag} takes ${option.choices.join(', ')}, not ${value}`;
  }
  return command === undefined ? 'no command' : undefined;
};

const badCalls = (text: string, cli: CliInterface): string[] =>
  cliCalls(text).flatMap((words) => {
    const problem = problemOf(words, cli);
    return problem === undefined ? [] : [`leasehold ${words.join(' ')}: ${problem}`];
  });

describe('docs/deployment.md', () => {
  it('has its steps in the order an operator follows, numbered from 1', () => {
    expect(sectionsOf(DOC).map(({ title }) => title)).toEqual([
      '1. Install',
      '2. The environment file',
      '3. TLS',
      '4. The systemd units',
      '5. Registering in Keystone',
      '6. Checking it',
      '7. Backing up and restoring',
      '8. Migrating from Blazar',
      '9. Upgrading',
    ]);
  });

  it('says for every step which test exercises it, or why none does', () => {
    expect(unexercised(DOC)).toEqual([]);
  });

  it('names only files that exist, and test names that are in the file named before them', () => {
    expect(missingFiles(DOC)).toEqual([]);
    expect(quotedTestNames(DOC).length).toBeGreaterThan(20);
    expect(missingTestNames(DOC)).toEqual([]);
  });

  it('shows only `leasehold` commands, flags and choices the CLI has', async () => {
    const cli = await cliInterface();
    expect([...cli.commands.keys()]).toEqual(expect.arrayContaining(['backup', 'restore', 'verify', 'import-blazar']));
    const used = new Set(cliCalls(DOC).map((words) => words.find((word) => cli.commands.has(word))));
    expect([...used]).toEqual(expect.arrayContaining(['backup', 'restore', 'verify', 'import-blazar']));
    expect(cliCalls(DOC).length).toBeGreaterThanOrEqual(10);
    expect(badCalls(DOC, cli)).toEqual([]);
  });
});

describe('the checks above fail on a broken copy of the document', () => {
  it('a step that loses its "Exercised by" line', () => {
    const broken = DOC.replace(/^Exercised by: `test\/e2e\/import-blazar/m, 'Tested in `test/e2e/import-blazar');
    expect(unexercised(broken)).toEqual(['8. Migrating from Blazar']);
  });

  it('a file or a document that is not there, and a test name its file does not hold', () => {
    const broken = DOC.replace('`test/e2e/tls.e2e.spec.ts`', '`test/e2e/tls-gone.e2e.spec.ts`')
      .replace('docs/upgrades.md', 'docs/upgrading.md')
      .replace('"a double booking is reported and', '"a double booking is found and');
    expect(missingFiles(broken)).toEqual(['test/e2e/tls-gone.e2e.spec.ts', 'docs/upgrading.md']);
    expect(missingTestNames(broken)).toEqual([
      'test/e2e/import-blazar.e2e.spec.ts: a double booking is found and, by default, nothing is written',
    ]);
  });

  it('a command, a flag or a choice the CLI does not have', async () => {
    const cli = await cliInterface();
    const broken = [
      '```sh',
      'leasehold backups /tmp/x',
      'leasehold backup --overwrite /tmp/x',
      "leasehold import-blazar --database 'sqlite:///b.db' --on-conflict keep-last",
      'leasehold --data-dir /srv/x restore --to-position 12 /tmp/x   # accepted: no problem',
      '```',
    ].join('\n');
    expect(badCalls(broken, cli)).toEqual([
      'leasehold backups /tmp/x: no command backups',
      'leasehold backup --overwrite /tmp/x: backup has no --overwrite',
      "leasehold import-blazar --database 'sqlite:///b.db' --on-conflict keep-last: --on-conflict takes refuse, keep-first, skip-all, not keep-last",
    ]);
  });
});
