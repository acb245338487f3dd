/**
 * `npm run markdown -- [--url URL] [--body-only] [--out DIR] FILE…`: converts saved HTML pages to
 * Markdown with the reader's own converter (lib/markdown, MD-1…MD-3). URL is the address the
 * pages came from, so their links and images become absolute; --body-only leaves out the title
 * header; with --out DIR, FILE.html becomes DIR/FILE.md, else the Markdown goes to standard output.
 * A file that cannot be read or converted is reported and the exit code is 1; the others still convert.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { convertPage } from '../lib/markdown/convertPage';

const USAGE = 'usage: npm run markdown -- [--url URL] [--body-only] [--out DIR] FILE…';

function outputName(file: string): string {
  return path.basename(file).replace(/\.x?html?$/i, '') + '.md';
}

function main(argv: string[]): number {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        url: { type: 'string' },
        'body-only': { type: 'boolean' },
        out: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    process.stderr.write(`markdown: ${error instanceof Error ? error.message : String(error)}\n${USAGE}\n`);
    return 2;
  }
  const { values, positionals: files } = parsed;
  if (values.help) {
    process.stdout.write(USAGE + '\n');
    return 0;
  }
  if (files.length === 0) {
    process.stderr.write(`markdown: no FILE given\n${USAGE}\n`);
    return 2;
  }
  const url = values.url ?? '';
  if (url && !/^https?:\/\//i.test(url)) {
    process.stderr.write(`markdown: --url must be an http(s) address, not ${JSON.stringify(url)}\n`);
    return 2;
  }
  if (values.out) fs.mkdirSync(values.out, { recursive: true });
  let failed = 0;
  for (const file of files) {
    let html: string;
    try {
      html = fs.readFileSync(file, 'utf8');
    } catch (error) {
      failed++;
      process.stderr.write(
        `markdown: cannot read ${file}: ${error instanceof Error ? error.message : String(error)}\n`,
      );
      continue;
    }
    try {
      const { markdown } = convertPage(html, url, { bodyOnly: values['body-only'] ?? false });
      if (values.out) fs.writeFileSync(path.join(values.out, outputName(file)), markdown);
      else process.stdout.write(markdown + (files.length > 1 ? '\n' : ''));
    } catch (error) {
      failed++;
      process.stderr.write(
        `markdown: cannot convert ${file}: ${error instanceof Error ? error.message : String(error)}\n`,
      );
    }
  }
  return failed > 0 ? 1 : 0;
}

process.exitCode = main(process.argv.slice(2));
