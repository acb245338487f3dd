/** One `Range: bytes=…` request (RFC 9110 §14.1.2); several ranges are answered whole instead. */
export type RangeSpec = { kind: 'from'; start: number; end: number | null } | { kind: 'suffix'; length: number };

export function parseRangeHeader(header: string | null): RangeSpec | null {
  if (!header) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return null;
  const [, first = '', last = ''] = match;
  if (first === '') return last === '' ? null : { kind: 'suffix', length: Number(last) };
  const start = Number(first);
  const end = last === '' ? null : Number(last);
  if (end !== null && end < start) return null;
  return { kind: 'from', start, end };
}

/** The inclusive byte span a range selects in a file of `size` bytes, or null when unsatisfiable (416). */
export function resolveRange(spec: RangeSpec, size: number): { start: number; end: number } | null {
  if (spec.kind === 'suffix')
    return spec.length === 0 || size === 0 ? null : { start: Math.max(0, size - spec.length), end: size - 1 };
  if (spec.start >= size) return null;
  return { start: spec.start, end: Math.min(spec.end ?? size - 1, size - 1) };
}
