import { isNativeImageType } from '../../../lib/protocol/attachments';
import type { AgentAttachment } from '../agents/agent';

/** ATT-2: the attachments an agent takes natively as images, and the rest, which it gets by path. */
export function splitAttachments(attachments: readonly AgentAttachment[] | undefined): {
  images: AgentAttachment[];
  files: AgentAttachment[];
} {
  const list = attachments ?? [];
  return {
    images: list.filter((a) => isNativeImageType(a.mimeType)),
    files: list.filter((a) => !isNativeImageType(a.mimeType)),
  };
}

/** The message text with the stored paths of attached files, so the agent can open them (ATT-2). */
export function textWithFilePaths(text: string, files: readonly AgentAttachment[]): string {
  if (files.length === 0) return text;
  const lines = files.map((file) => `- ${file.name} (${file.mimeType}, ${file.byteLength} bytes): ${file.path}`);
  return `${text}\n\nAttached files:\n${lines.join('\n')}`;
}

const shellQuote = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;

/**
 * ATT-2 for the shell agent: every attachment's stored path is appended to the command as a
 * quoted argument, as dropping a file on a terminal pastes its path.
 */
export function commandWithPaths(command: string, attachments: readonly AgentAttachment[] | undefined): string {
  if (!attachments || attachments.length === 0) return command;
  return `${command} ${attachments.map((a) => shellQuote(a.path)).join(' ')}`;
}

/** Codex `turn/start` input (ATT-2): the text (with file paths), then each image as a `localImage` item. */
export function codexUserInput(text: string, attachments: readonly AgentAttachment[] | undefined): unknown[] {
  const { images, files } = splitAttachments(attachments);
  return [
    { type: 'text', text: textWithFilePaths(text, files), text_elements: [] },
    ...images.map((image) => ({ type: 'localImage', path: image.path })),
  ];
}

/** The Claude host's run request fields (ATT-2): text with file paths, and the images for content blocks. */
export function claudeTurnInput(context: { text: string; attachments?: readonly AgentAttachment[] }): {
  text: string;
  images?: { path: string; mimeType: string }[];
} {
  const { images, files } = splitAttachments(context.attachments);
  const text = textWithFilePaths(context.text, files);
  return images.length === 0
    ? { text }
    : { text, images: images.map((image) => ({ path: image.path, mimeType: image.mimeType })) };
}
