import { describe, expect, it } from 'vitest';
import { renditionAskFor } from '../../../../lib/client/files/renditionChunks';

const ref = { projectDirectory: '/p', path: 'a' };
const phone = { width: 390, height: 844, pixelRatio: 3 };

describe('FILE-10 the rendition a screen asks for', () => {
  it('FILE-10 an image asks for WebP in the screen box in device pixels, rounded up to 256', () => {
    expect(renditionAskFor(ref, 'image', phone, () => true)).toEqual({
      ...ref,
      maxWidth: 1280,
      maxHeight: 2560,
      kind: 'webp',
    });
    expect(renditionAskFor(ref, 'image', { width: 100, height: 100, pixelRatio: 1 }, () => true)).toMatchObject({
      maxWidth: 256,
      maxHeight: 256,
    });
    expect(renditionAskFor(ref, 'image', { width: 5000, height: 5000, pixelRatio: 2 }, () => true)).toMatchObject({
      maxWidth: 8192,
      maxHeight: 8192,
    });
  });

  it('FILE-10 video and audio ask for MP4 where the browser plays H.264 or AAC, else WebM', () => {
    expect(renditionAskFor(ref, 'video', phone, () => true).kind).toBe('mp4');
    expect(renditionAskFor(ref, 'video', phone, () => false).kind).toBe('webm');
    expect(renditionAskFor(ref, 'audio', phone, (type) => type.startsWith('audio/mp4')).kind).toBe('mp4');
  });
});
