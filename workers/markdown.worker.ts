// The Markdown converter in a Web Worker (MD-1, MD-2): a thin Comlink shell around the pure
// module, so the page's thread never parses a hostile page.
import { expose } from 'comlink';
import { convertPage } from '../lib/markdown/convertPage';
import type { MarkdownWorkerApi } from '../lib/markdown/convertedPage';

const api: MarkdownWorkerApi = {
  async convert(html, url, options) {
    return convertPage(html, url, options);
  },
};

expose(api);
