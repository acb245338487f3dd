import { describe, expect, it } from 'vitest';
import {
  removeBoilerplate,
  removeFurnitureElements,
  removeLinkLists,
  removeLinkParagraphs,
  removeNamedFurniture,
  removeShortFurnitureBlocks,
} from '../../../lib/markdown/articleBoilerplate';
import { convertPage } from '../../../lib/markdown/convertPage';
import { nameWords } from '../../../lib/markdown/boilerplateSignals';
import { parsePageDocument, type MarkupElement } from '../../../lib/markdown/pageDocument';

// MD-4: each rule that takes page furniture out of an extracted article, on small articles: the
// furniture goes, and article text that looks like it stays.

const STORY = Array.from(
  { length: 6 },
  (_, i) =>
    `<p>Paragraph ${i} of the story tells what the council decided on Monday, who voted for it and why the residents of the valley had asked for it for years.</p>`,
).join('');

function article(inner: string): MarkupElement {
  return parsePageDocument(
    `<!doctype html><html><body><article id="story">${STORY}${inner}</article></body></html>`,
  ).querySelector('#story')!;
}

const text = (element: MarkupElement) => (element.textContent ?? '').replace(/\s+/g, ' ').trim();
const always = () => true;

describe('MD-4 page furniture inside an extracted article', () => {
  it('MD-4 navigation, asides, forms, footers and landmark roles go; a page wrapped in a form keeps its story', () => {
    const content = article(
      '<nav>Home News Sport</nav><aside>Most read today</aside><form>Your email</form><footer>About us</footer><div role="complementary">Trending now</div><figure><img src="a.jpg"><figcaption>The valley at dawn</figcaption></figure>',
    );
    removeFurnitureElements(content, always);
    for (const furniture of [
      'Home News Sport',
      'Most read today',
      'Your email',
      'About us',
      'Trending now',
      'The valley at dawn',
    ])
      expect(text(content)).not.toContain(furniture);
    expect(content.querySelectorAll('img')).toHaveLength(1);
    expect(content.querySelectorAll('p')).toHaveLength(6);

    const wrapped = parsePageDocument(
      `<body><div id="page"><form id="aspnet">${STORY}</form></div></body>`,
    ).querySelector('#page')!;
    removeBoilerplate(wrapped);
    expect(wrapped.querySelectorAll('p')).toHaveLength(6);
  });

  it('MD-4 parts named as sharing, related stories, adverts, bylines and captions go; containers named otherwise stay', () => {
    const content = article(
      '<div class="share-buttons">Share on Facebook</div><div class="sdc-article-related-stories">Other stories</div><div class="adSlot">Buy now</div><span class="article__byline">By A. Writer</span><span class="media-caption__text">A caption</span><p class="signupTitle___15fvr">Breaking News Emails</p><div class="article-body"><p>The headline writer wrote about shared gardens and related families.</p></div><div class="item no_caption"><h2>The lede of the story, in a block that has no caption.</h2></div><div class="hidden-xs hidden-print"><p>A paragraph shown on wide screens only.</p></div>',
    );
    removeNamedFurniture(content, always);
    for (const furniture of [
      'Share on Facebook',
      'Other stories',
      'Buy now',
      'By A. Writer',
      'A caption',
      'Breaking News Emails',
    ])
      expect(text(content)).not.toContain(furniture);
    expect(text(content)).toContain('shared gardens and related families');
    expect(text(content)).toContain('The lede of the story');
    expect(text(content)).toContain('shown on wide screens only');
    expect(nameWords('articleBody__mediaCaption--wide')).toEqual(['article', 'body', 'media', 'caption', 'wide']);
    // "shared" and "header" are not the words "share" and "ad".
    expect(nameWords('shared-header')).not.toContain('share');
  });

  it('MD-4 a container named as furniture that holds most of the story stays', () => {
    const content = parsePageDocument(
      `<body><div id="root"><div class="story has-related">${STORY}</div></div></body>`,
    ).querySelector('#root')!;
    removeBoilerplate(content);
    expect(content.querySelectorAll('p')).toHaveLength(6);
  });

  it('MD-4 short label, credit, dateline and prompt blocks go; sentences that start alike stay', () => {
    const content = article(
      [
        '<p>Advertisement</p>',
        '<p>(Image: GETTY )</p>',
        '<p>Updated Nov 19, 6:55 AM; Posted Nov 19, 6:51 AM</p>',
        '<p><strong><em>Like this story? Share it with a friend!</em></strong></p>',
        '<p>You may also like...</p>',
        '<p>Updated guidance was published by the ministry on Monday, telling schools that they must open their playgrounds to the public at weekends from next spring.</p>',
        '<p>Image: the word the mayor used most, in a speech that went on for two hours, was "together", and she said it forty times.</p>',
        '<p>Related research from the university, published in March, found that the river had flooded the valley eleven times since 1900.</p>',
      ].join(''),
    );
    removeShortFurnitureBlocks(content);
    for (const furniture of [
      'Advertisement',
      'GETTY',
      'Nov 19, 6:55 AM',
      'Share it with a friend',
      'You may also like',
    ])
      expect(text(content)).not.toContain(furniture);
    for (const kept of [
      'Updated guidance was published',
      'Image: the word the mayor used',
      'Related research from the university',
    ])
      expect(text(content)).toContain(kept);
  });

  it('MD-4 lists of links to other stories go with their label; links inside sentences and lists with prose stay', () => {
    const content = article(
      [
        '<h3>More from UK</h3><ul><li><a href="/a">Prince Andrew abandons ties</a></li><li><a href="/b">Maternity scandal report</a></li><li><a href="/c">Jackpot prize won</a></li></ul>',
        '<p>The council met <a href="/x">on Monday</a> <a href="/y">and Tuesday</a> to vote.</p>',
        '<ul><li><a href="/m">Minutes</a> of the meeting, which the clerk published the same evening for everyone to read.</li><li><a href="/n">The budget</a>, as the treasurer presented it and as the council then amended it twice.</li></ul>',
        '<p>The council fixed these complaints:</p><ul><li><a href="https://bugs.example/1">Complaint 1677080 – the bridge lights stay on</a></li><li><a href="https://bugs.example/2">Complaint 1677107 – the bins are too small</a></li></ul>',
        '<div class="cards"><div><a href="/s1"><img src="1.jpg"><h4>Storm hits the coast</h4></a></div><div><a href="/s2"><img src="2.jpg"><h4>Schools close early</h4></a></div></div>',
      ].join(''),
    );
    removeLinkLists(content, always);
    for (const furniture of [
      'More from UK',
      'Prince Andrew',
      'Maternity scandal',
      'Jackpot prize',
      'Storm hits the coast',
      'Schools close early',
    ])
      expect(text(content)).not.toContain(furniture);
    for (const kept of [
      'on Monday and Tuesday to vote',
      'Minutes of the meeting',
      'The budget, as the treasurer',
      'the bridge lights stay on',
      'the bins are too small',
    ])
      expect(text(content)).toContain(kept);
  });

  it("MD-4 an unlabelled list of links to the page's own site goes; the same list to another site stays", () => {
    const list = (host: string) =>
      `<ul><li><a href="https://${host}/news/storm">Storm hits the coast overnight</a></li><li><a href="https://${host}/news/schools">Schools close early for winter</a></li></ul>`;
    const own = article(list('www.news.example'));
    removeLinkLists(own, always, new URL('https://news.example/valley'));
    expect(text(own)).not.toContain('Storm hits the coast');
    const elsewhere = article(list('other.example'));
    removeLinkLists(elsewhere, always, new URL('https://news.example/valley'));
    expect(text(elsewhere)).toContain('Storm hits the coast');
  });

  it('MD-4 a paragraph that is only a link goes; a paragraph with a link in its sentence stays', () => {
    const content = article(
      '<p><strong><a href="/other">SEAN SPICER ELIMINATED FROM THE SHOW</a></strong></p><p>Readers can find <a href="/report">the full report</a> on the council website, with the tables of every vote.</p>',
    );
    removeLinkParagraphs(content);
    expect(text(content)).not.toContain('SEAN SPICER');
    expect(text(content)).toContain('Readers can find the full report on the council website');
  });

  it('MD-4 the reader shows the story without its furniture, and numbered lines keep their numbers', () => {
    const html = `<!doctype html><html><head><title>Valley vote</title></head><body><nav><a href="/">Home</a> <a href="/news">News</a></nav><article><h1>Valley vote</h1>${STORY}<p>1) First, the bridge.</p><div class="social-share"><a href="/s">Share this story</a></div><h3>Related stories</h3><ul><li><a href="/r1">Another vote elsewhere</a></li><li><a href="/r2">A second story</a></li></ul></article></body></html>`;
    const page = convertPage(html, 'https://news.example/valley');
    expect(page.view).toBe('article');
    expect(page.markdown).toContain('Paragraph 5 of the story');
    expect(page.markdown).toContain('1\\) First, the bridge.');
    for (const furniture of ['Share this story', 'Related stories', 'Another vote elsewhere'])
      expect(page.markdown).not.toContain(furniture);
  });
});
