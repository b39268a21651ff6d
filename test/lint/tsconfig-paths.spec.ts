import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/system.js';

describe("tsconfig.json's paths", () => {
  it("mirror package.json's imports, alias for alias (tools that read tsconfig only follow them)", () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { imports: Record<string, { types: string }> };
    const { config } = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile) as {
      config: { compilerOptions: { paths: Record<string, string[]> } };
    };
    const imports = Object.fromEntries(Object.entries(manifest.imports).map(([alias, { types }]) => [alias, [types]]));
    expect(config.compilerOptions.paths).toEqual(imports);
  });
});
