import { z } from 'zod';

const PathSchema = z.union([
  z.object({ type: z.literal('path'), path: z.string() }),
  z.object({ type: z.literal('glob_pattern'), pattern: z.string() }),
  z.object({
    type: z.literal('special'),
    value: z
      .object({ kind: z.string(), subpath: z.string().nullable().optional(), path: z.string().optional() })
      .passthrough(),
  }),
]);
const AskedSchema = z.object({
  network: z.object({ enabled: z.boolean().nullable() }).passthrough().nullable().optional(),
  fileSystem: z
    .object({
      read: z.array(z.string()).nullable().optional(),
      write: z.array(z.string()).nullable().optional(),
      entries: z.array(z.object({ path: PathSchema, access: z.string() }).passthrough()).optional(),
    })
    .passthrough()
    .nullable()
    .optional(),
});

const ACCESS: Record<string, string> = { read: 'Read', write: 'Write', deny: 'No access to' };

function pathText(p: z.infer<typeof PathSchema>): string {
  if (p.type === 'path') return p.path;
  if (p.type === 'glob_pattern') return p.pattern;
  return [p.value.path, p.value.kind, p.value.subpath].filter(Boolean).join(' ');
}

/**
 * The permissions Codex asks for (ACC-4), one per line in words ("Write: /path", "Network
 * access"), for the approval card; what it cannot read is shown as JSON rather than hidden.
 * Codex lists each path twice (the older read/write lists and `entries`): the entries win.
 */
export function describePermissions(asked: unknown): string {
  const parsed = AskedSchema.safeParse(asked);
  if (!parsed.success) return JSON.stringify(asked, null, 2);
  const { network, fileSystem } = parsed.data;
  const lines: string[] = [];
  if (network?.enabled) lines.push('Network access');
  if (fileSystem?.entries?.length) {
    for (const entry of fileSystem.entries)
      lines.push(`${ACCESS[entry.access] ?? entry.access}: ${pathText(entry.path)}`);
  } else {
    for (const p of fileSystem?.read ?? []) lines.push(`Read: ${p}`);
    for (const p of fileSystem?.write ?? []) lines.push(`Write: ${p}`);
  }
  return lines.length > 0 ? lines.join('\n') : JSON.stringify(asked, null, 2);
}
