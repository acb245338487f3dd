import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../../lib/protocol/errors';
import { REPO_ROOT } from '../../../server/runtime/paths';

const read = (file: string) => fs.readFileSync(path.join(REPO_ROOT, 'docs', file), 'utf8');

/** The `data.code` names in RPC-3's parenthesised list in docs/spec.md. */
function specErrorCodes(spec: string): string[] {
  const rule = /^\*\*RPC-3\*\*[\s\S]*?(?=\n\n)/m.exec(spec)?.[0] ?? '';
  const list = /stable `data\.code` \(([^)]*)\)/.exec(rule.replace(/\s+/g, ' '))?.[1] ?? '';
  return [...list.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!);
}

/** The first column of the error table in docs/protocol.md. */
function protocolErrorCodes(protocol: string): string[] {
  const section = protocol.slice(protocol.indexOf('## Errors'), protocol.indexOf('## Methods'));
  return [...section.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]!);
}

describe('RPC-3 the docs name every stable error code, and no other', () => {
  it('RPC-3 docs/spec.md lists the codes of lib/protocol/errors.ts', () => {
    expect(specErrorCodes(read('spec.md')).sort()).toEqual([...ERROR_CODES].sort());
  });

  it('RPC-3 docs/protocol.md has a row for each code of lib/protocol/errors.ts', () => {
    expect(protocolErrorCodes(read('protocol.md')).sort()).toEqual([...ERROR_CODES].sort());
  });

  it('RPC-3 the check finds a missing code', () => {
    expect(
      specErrorCodes(
        '**RPC-3** Bad input gets an error with a stable `data.code` (`invalid_params`, `not_found`) and a sentence.\n\n',
      ),
    ).toEqual(['invalid_params', 'not_found']);
  });
});
