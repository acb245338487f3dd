import { z } from 'zod';

/**
 * DEV-3: characters a name shown to people may not hold: control characters (newlines, escapes)
 * and the bidirectional controls that make a name read differently from what it is (U+202E
 * "right-to-left override" turns `exe.txt` into `txt.exe`).
 */
const UNSAFE_NAME_CHARACTERS = /[\p{Cc}\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069\u2028\u2029]/u;

/** A device's name (DEV-3): trimmed, 1–64 characters, no control or bidi-control characters, no markup brackets. */
export const DeviceNameSchema = z
  .string()
  .trim()
  .min(1, 'A device name cannot be empty.')
  .max(64, 'A device name is at most 64 characters.')
  .refine(
    (name) => !UNSAFE_NAME_CHARACTERS.test(name),
    'A device name cannot hold control characters, line breaks or text-direction overrides.',
  )
  .refine((name) => !/[<>]/.test(name), 'A device name cannot hold < or >.');

/**
 * A model name (DEV-3): what agents call their models (`gpt-5.1-codex`, `claude-sonnet-4-5`,
 * `openai/gpt-oss:20b`): up to 128 letters, digits and `. _ - : @ +`, in `/`-separated parts that
 * each start with a letter or digit, so `..`, a leading `/` and anything path-like or multi-line is refused.
 */
export const ModelNameSchema = z
  .string()
  .max(128, 'A model name is at most 128 characters.')
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._:@+-]*(\/[A-Za-z0-9][A-Za-z0-9._:@+-]*)*$/,
    'A model name is letters, digits and . _ - : @ +, in parts separated by / that each start with a letter or digit.',
  );
