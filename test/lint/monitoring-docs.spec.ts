/**
 * The ready-made alert rules and dashboard in docs/ parse, have the shape Prometheus and Grafana
 * load, and use only metrics the processes export: a renamed metric fails here, not in an operator's
 * silent alert.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { processRegistry } from '#observability/metrics.js';
import { ROOT } from '../helpers/system.js';

// js-yaml (a devDependency, also eslint's own configuration reader): no YAML parser of our own to get wrong
const yaml = createRequire(import.meta.url)('js-yaml') as { load(text: string): unknown };

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts'))
    .map((entry) => join(entry.parentPath, entry.name));

/** Every `leasehold_…` metric name the code registers (as a string literal), and Node's process metrics. */
const exported = async (): Promise<ReadonlySet<string>> => {
  const names = new Set<string>();
  for (const file of [...sourceFiles(join(ROOT, 'apps')), ...sourceFiles(join(ROOT, 'libs'))]) {
    for (const match of readFileSync(file, 'utf8').matchAll(/name: '(leasehold_[a-z0-9_]+)'/g)) names.add(match[1] ?? '');
  }
  for (const metric of await processRegistry().getMetricsAsJSON()) names.add(metric.name);
  return names;
};

/** Metric names an expression reads (a histogram's series by their base name). */
const metricsIn = (expr: string): string[] =>
  [...expr.matchAll(/\b((?:leasehold|process|nodejs)_[a-z0-9_]+)/g)].map((m) => (m[1] ?? '').replace(/_(bucket|count|sum)$/, ''));

interface Rule {
  readonly alert: string;
  readonly expr: string;
  readonly for?: string;
  readonly labels: { readonly severity: string };
  readonly annotations: { readonly summary: string };
}

describe('docs/prometheus/leasehold-alerts.yml', () => {
  const document = yaml.load(readFileSync(join(ROOT, 'docs/prometheus/leasehold-alerts.yml'), 'utf8')) as {
    groups: { name: string; rules: Rule[] }[];
  };
  const rules = document.groups.flatMap((group) => group.rules);

  it('is a rules file: groups of alerts with an expression, a severity and a summary', () => {
    expect(document.groups.length).toBeGreaterThan(0);
    for (const group of document.groups) expect(group.name).toMatch(/^leasehold-/);
    for (const rule of rules) {
      expect(rule.alert).toMatch(/^Leasehold[A-Za-z]+$/);
      expect(typeof rule.expr).toBe('string');
      expect(['critical', 'warning']).toContain(rule.labels.severity);
      expect(rule.annotations.summary.length).toBeGreaterThan(0);
      if (rule.for !== undefined) expect(rule.for).toMatch(/^\d+[smh]$/);
    }
    expect(new Set(rules.map((rule) => rule.alert)).size).toBe(rules.length);
    expect(rules.map((rule) => rule.alert)).toContain('LeaseholdFreepoolExhausted');
  });

  it('reads only metrics the processes export', async () => {
    const names = await exported();
    const used = rules.flatMap((rule) => metricsIn(rule.expr));
    expect(used.length).toBeGreaterThan(rules.length - 1);
    expect(used.filter((name) => !names.has(name))).toEqual([]);
  });
});

describe('docs/grafana/leasehold-dashboard.json', () => {
  const dashboard = JSON.parse(readFileSync(join(ROOT, 'docs/grafana/leasehold-dashboard.json'), 'utf8')) as {
    uid: string;
    title: string;
    panels: { id: number; title: string; type: string; targets: { refId: string; expr: string }[] }[];
  };

  it('is a dashboard of panels, each with its own id and at least one Prometheus query', () => {
    expect(dashboard.uid).toBe('leasehold-overview');
    expect(new Set(dashboard.panels.map((panel) => panel.id)).size).toBe(dashboard.panels.length);
    for (const panel of dashboard.panels) {
      expect(panel.targets.length).toBeGreaterThan(0);
      for (const target of panel.targets) expect(metricsIn(target.expr).length).toBeGreaterThan(0);
    }
  });

  it('reads only metrics the processes export, and shows every one of Leasehold’s', async () => {
    const names = await exported();
    const used = new Set(dashboard.panels.flatMap((panel) => panel.targets.flatMap((target) => metricsIn(target.expr))));
    expect([...used].filter((name) => !names.has(name))).toEqual([]);
    expect([...names].filter((name) => name.startsWith('leasehold_') && !used.has(name))).toEqual([]);
  });
});
