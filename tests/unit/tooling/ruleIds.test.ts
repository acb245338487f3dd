import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../server/runtime/paths';
import {
  citedRuleIds,
  definedRuleIds,
  plannedRuleIds,
  ruleIdCitations,
  uncitedRuleIds,
  undefinedRuleIds,
} from '../../fixtures/ruleIds';

const spec = fs.readFileSync(path.join(REPO_ROOT, 'docs', 'spec.md'), 'utf8');

describe('docs/spec.md defines every rule id the repository cites, and the code cites every rule it defines', () => {
  it('every id cited in code, tests, benchmarks and docs is defined', () => {
    const missing = undefinedRuleIds(definedRuleIds(spec), ruleIdCitations(REPO_ROOT));
    expect(Object.fromEntries(missing)).toEqual({});
  });

  it('every id defined is cited by code, tests, benchmarks, scripts or migrations, not only by docs', () => {
    expect(uncitedRuleIds(definedRuleIds(spec), ruleIdCitations(REPO_ROOT), plannedRuleIds(spec))).toEqual([]);
  });

  it('each id is defined once', () => {
    const twice = [...definedRuleIds(spec)].filter(([, count]) => count > 1).map(([id]) => id);
    expect(twice).toEqual([]);
  });

  it('the check finds an id that is cited but not defined', () => {
    // Built from parts, so this file does not cite it itself.
    const unknown = ['OUT', '99'].join('-');
    const citations = new Map([...ruleIdCitations(REPO_ROOT), [unknown, ['server/example.ts']]]);
    expect(undefinedRuleIds(definedRuleIds(spec), citations)).toEqual(new Map([[unknown, ['server/example.ts']]]));
  });

  it('the check finds an id that is defined but cited only by docs, or not at all, unless its rule is planned', () => {
    const [docsOnly, inCode, nowhere, planned] = ['98', '97', '96', '95'].map((n) => ['OUT', n].join('-')) as [
      string,
      string,
      string,
      string,
    ];
    const defined = new Map([docsOnly, inCode, nowhere, planned].map((id) => [id, 1]));
    const citations = new Map([
      [docsOnly, ['docs/spec.md', 'docs/architecture.md']],
      [inCode, ['docs/spec.md', 'server/example.ts']],
    ]);
    const rules = `**${planned}** Something agreed.\n*Planned.*\n\n**${nowhere}** Something built.\n`;
    expect(plannedRuleIds(rules)).toEqual(new Set([planned]));
    expect(uncitedRuleIds(defined, citations, plannedRuleIds(rules))).toEqual([docsOnly, nowhere]);
  });

  it('standard names shaped like ids (UTF-8, SHA-256, ACME challenge types) are not rule ids', () => {
    expect([...citedRuleIds('UTF-8 text, its SHA-256 and ISO-8859-1 (OUT-2, PRV-7)')]).toEqual(['OUT-2', 'PRV-7']);
    expect([...citedRuleIds('ACME by TLS-ALPN-01, not HTTP-01 or DNS-01')]).toEqual([]);
  });
});
