import type { z } from 'zod';

/**
 * `text` parsed as JSON and checked with `schema`: the typed value, or null when the text is not
 * JSON or the value does not fit. The one way every realm reads JSON it did not just write.
 */
export function parseJsonWith<S extends z.ZodType>(schema: S, text: string): z.output<S> | null {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = schema.safeParse(json);
  return parsed.success ? parsed.data : null;
}
