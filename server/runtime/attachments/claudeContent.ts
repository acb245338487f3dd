import fs from 'node:fs';

export interface ClaudeImage {
  path: string;
  mimeType: string;
}

/**
 * ATT-2: the user message's content for Claude: the text, then each image as a base64 image
 * content block (the Messages API form), read from its stored file by the agent host. Without
 * images the content stays the plain text, as before.
 */
export function claudeUserContent(text: string, images: readonly ClaudeImage[] | undefined): string | unknown[] {
  if (!images || images.length === 0) return text;
  return [
    { type: 'text', text },
    ...images.map((image) => ({
      type: 'image',
      source: { type: 'base64', media_type: image.mimeType, data: fs.readFileSync(image.path).toString('base64') },
    })),
  ];
}
