// The image program (FILE-10, FILE-11): one image rendition made by sharp in its own process, so a
// huge, hostile or damaged image can stall or crash only this child, never the runtime. The
// runtime starts it per rendition (at most a few at a time) and kills it past its time limit.
import { IMAGE_EXIT_CODES, ImageJobSchema } from './imageJob';
import { makeImageRendition } from './imageRendition';

async function main(): Promise<number> {
  const job = ImageJobSchema.parse(JSON.parse(process.argv[2] ?? ''));
  try {
    await makeImageRendition(job);
    return 0;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`${message}\n`);
    if (/pixel limit/i.test(message)) return IMAGE_EXIT_CODES.tooManyPixels;
    if (/timeout/i.test(message)) return IMAGE_EXIT_CODES.timeout;
    return IMAGE_EXIT_CODES.decodeFailed;
  }
}

process.exitCode = await main();
