import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/system.js';

describe('architecture rules', () => {
  it('libs/domain and the plugin policies import no framework, I/O, clock or randomness', async () => {
    const eslint = new ESLint({ cwd: ROOT });
    const results = await eslint.lintFiles(['libs/domain/src', 'libs/plugins/src/query', 'libs/plugins/src/physical-host']);
    const problems = results.flatMap((result) => result.messages.map((m) => `${result.filePath}:${m.line} ${m.message}`));
    expect(problems).toEqual([]);
  }, 60_000);
});
