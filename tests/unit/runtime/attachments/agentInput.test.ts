import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeUserContent } from '../../../../server/runtime/attachments/claudeContent';
import { claudeTurnInput, codexUserInput, commandWithPaths } from '../../../../server/runtime/attachments/agentInput';
import { storedFileName } from '../../../../server/runtime/attachments/attachmentFiles';
import { hasImageSignature } from '../../../../server/runtime/attachments/imageSignature';
import { noisePng } from '../../../fixtures/noisePng';
import { makeTempDir } from '../../../fixtures/tempDir';

const image = { path: '/data/pasted-images/s/u1/shot.png', name: 'shot.png', mimeType: 'image/png', byteLength: 10 };
const file = { path: "/data/pasted-images/s/u2/it's.txt", name: "it's.txt", mimeType: 'text/plain', byteLength: 3 };

describe('ATT-2 what each agent is given', () => {
  it('ATT-2 Codex: the text with file paths, then each image as a localImage item', () => {
    expect(codexUserInput('Look', [image, file])).toEqual([
      {
        type: 'text',
        text: `Look\n\nAttached files:\n- it's.txt (text/plain, 3 bytes): ${file.path}`,
        text_elements: [],
      },
      { type: 'localImage', path: image.path },
    ]);
    expect(codexUserInput('Look', undefined)).toEqual([{ type: 'text', text: 'Look', text_elements: [] }]);
  });

  it('ATT-2 Claude: images as base64 image blocks read from their files, files by path in the text', () => {
    const dir = makeTempDir('hbcode-claude-content-');
    const png = noisePng(3, 2, 1);
    fs.writeFileSync(path.join(dir, 'a.png'), png);
    const input = claudeTurnInput({ text: 'Look', attachments: [{ ...image, path: path.join(dir, 'a.png') }, file] });
    expect(input.text).toContain(file.path);
    expect(claudeUserContent(input.text, input.images)).toEqual([
      { type: 'text', text: input.text },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png.toString('base64') } },
    ]);
    expect(claudeUserContent('plain', undefined)).toBe('plain');
  });

  it('ATT-2 shell: every stored path is appended as one quoted argument', () => {
    expect(commandWithPaths('wc -c', [image, file])).toBe(
      `wc -c '${image.path}' '/data/pasted-images/s/u2/it'\\''s.txt'`,
    );
    expect(commandWithPaths('ls', [])).toBe('ls');
  });
});

describe('ATT-1 stored names and image signatures', () => {
  it('ATT-1 a stored name is never hidden, empty or a path', () => {
    expect(storedFileName('photo 1.png')).toBe('photo 1.png');
    expect(storedFileName('..hidden')).toBe('hidden');
    expect(storedFileName('a;rm -rf $HOME.png')).toBe('a_rm -rf _HOME.png');
    expect(storedFileName('...')).toBe('attachment');
  });

  it('ATT-2 each image type is recognised by its first bytes and only by them', () => {
    expect(hasImageSignature('image/png', noisePng(1, 1, 1))).toBe(true);
    expect(hasImageSignature('image/jpeg', Uint8Array.from([0xff, 0xd8, 0xff, 0xe0]))).toBe(true);
    expect(hasImageSignature('image/gif', new TextEncoder().encode('GIF89a...'))).toBe(true);
    expect(hasImageSignature('image/webp', new TextEncoder().encode('RIFF\u0000\u0000\u0000\u0000WEBPVP8 '))).toBe(
      true,
    );
    expect(hasImageSignature('image/png', Uint8Array.from([0xff, 0xd8, 0xff, 0xe0]))).toBe(false);
    expect(hasImageSignature('image/gif', new TextEncoder().encode('GIF87b'))).toBe(false);
    expect(hasImageSignature('image/webp', new TextEncoder().encode('RIFF\u0000\u0000\u0000\u0000WAVE'))).toBe(false);
  });
});
