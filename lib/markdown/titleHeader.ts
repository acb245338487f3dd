import { markdownService } from './markdownService';

export interface PageDetails {
  title: string;
  byline: string | null;
  siteName: string | null;
  publishedTime: string | null;
  sourceUrl: string;
}

/** The header above a converted page (MD-1): title, then byline · site · published time, then the source. */
export function titleHeader(details: PageDetails): string {
  const escape = (text: string) => markdownService().escape(text.replace(/\s+/g, ' ').trim());
  const credits = [details.byline, details.siteName, details.publishedTime && publishedDate(details.publishedTime)]
    .filter((part): part is string => Boolean(part && part.trim()))
    .map(escape);
  const lines = [`# ${escape(details.title || details.sourceUrl || 'Untitled page')}`, ''];
  if (credits.length > 0) lines.push(credits.join(' · '), '');
  if (details.sourceUrl) lines.push(`Source: <${details.sourceUrl.replace(/[<>\s]/g, encodeURIComponent)}>`, '');
  lines.push('---', '', '');
  return lines.join('\n');
}

/** An ISO date as its day (2024-03-01), anything else as given. */
function publishedDate(value: string): string {
  const date = /^\d{4}-\d{2}-\d{2}/.exec(value.trim());
  return date ? date[0] : value;
}
