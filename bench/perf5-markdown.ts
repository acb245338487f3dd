import { Readability } from '@mozilla/readability';
import { JSDOM, VirtualConsole } from 'jsdom';
import type TurndownService from 'turndown';
import { convertPage } from '../lib/markdown/convertPage';
import { markdownService } from '../lib/markdown/markdownService';
import { READABILITY_PAGE_URL, readabilityCases, type ReadabilityCase } from '../tests/fixtures/readabilityCorpus';
import type { Benchmark, Comparison } from './lib/report';
import { median, now } from './lib/rounds';

/**
 * PERF-5: median conversion time per page over Readability's test pages. Ours is the reader's
 * converter (lib/markdown/convertPage: linkedom, Readability, Turndown + GFM rules, title header),
 * the same code and DOM library the Markdown worker runs, timed here in Node. The reference is the
 * usual pipeline on jsdom: parse, Readability, Turndown with the same rules on the article element.
 */
const DEFAULT_ROUNDS = 3;
/** jsdom reports every stylesheet it cannot parse; the benchmark's output is not the place. */
const quietConsole = new VirtualConsole();

function referenceConversion(page: ReadabilityCase): string {
  const { document } = new JSDOM(page.source, { url: READABILITY_PAGE_URL, virtualConsole: quietConsole }).window;
  const article = new Readability<unknown>(document, { serializer: (node) => node }).parse();
  return article?.content ? markdownService().turndown(article.content as TurndownService.Node) : '';
}

function ourConversion(page: ReadabilityCase): string {
  return convertPage(page.source, READABILITY_PAGE_URL).markdown;
}

function timeOnce(convert: (page: ReadabilityCase) => string, page: ReadabilityCase): number {
  const started = now();
  const markdown = convert(page);
  const elapsed = now() - started;
  if (markdown.length === 0 && page.expected.length > 100) throw new Error(`${page.name} converted to nothing`);
  return elapsed;
}

export const perf5Markdown: Benchmark = {
  name: 'perf5-markdown',
  async run(progress) {
    // Rounds per page: HBCODE_BENCH_ROUNDS, as for the other benchmarks.
    const rounds = Number(process.env.HBCODE_BENCH_ROUNDS ?? DEFAULT_ROUNDS);
    if (!Number.isSafeInteger(rounds) || rounds <= 0)
      throw new Error(`HBCODE_BENCH_ROUNDS must be a positive integer, not ${process.env.HBCODE_BENCH_ROUNDS}`);
    const pages = readabilityCases();
    // Warm both paths (JIT, lazy module state) on a few pages before timing anything.
    for (const page of pages.slice(0, 5)) {
      ourConversion(page);
      referenceConversion(page);
    }
    const perPage: { name: string; oursMs: number; referenceMs: number }[] = [];
    const skipped: { name: string; reason: string }[] = [];
    for (const page of pages) {
      // NOTE: jsdom's CSS code throws on some pages; those are left out of both medians, and listed.
      try {
        referenceConversion(page);
      } catch (error) {
        skipped.push({ name: page.name, reason: `jsdom: ${error instanceof Error ? error.message : String(error)}` });
        progress(`  ${page.name}: skipped, the reference fails on it (${skipped.at(-1)!.reason})`);
        continue;
      }
      const ours: number[] = [];
      const reference: number[] = [];
      for (let round = 0; round < rounds; round++) {
        // Alternate who goes first, so neither always gets the warmer caches.
        if (round % 2 === 0) {
          ours.push(timeOnce(ourConversion, page));
          reference.push(timeOnce(referenceConversion, page));
        } else {
          reference.push(timeOnce(referenceConversion, page));
          ours.push(timeOnce(ourConversion, page));
        }
      }
      perPage.push({ name: page.name, oursMs: median(ours), referenceMs: median(reference) });
      progress(`  ${page.name}: ours ${median(ours).toFixed(1)} ms, jsdom ${median(reference).toFixed(1)} ms`);
    }
    const comparisons: Comparison[] = [
      {
        rule: 'PERF-5',
        label: `median conversion time per page (${perPage.length} of ${pages.length} pages)`,
        unit: 'ms',
        better: 'lower',
        oursName: 'linkedom (worker DOM)',
        referenceName: 'jsdom',
        ours: median(perPage.map((p) => p.oursMs)),
        reference: median(perPage.map((p) => p.referenceMs)),
        target: 1.0,
      },
    ];
    return {
      comparisons,
      parameters: { pages: pages.length, rounds },
      measurements: { perPage, skipped },
      notes: [
        'Ours runs lib/markdown/convertPage in Node on linkedom, the DOM library and code the Markdown worker runs; the worker adds only message passing.',
        'Ours also pins the base address, drops non-content elements, makes links absolute and writes the title header; the reference does not.',
      ],
    };
  },
};
