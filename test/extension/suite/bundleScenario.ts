import { readFileSync } from 'node:fs';
import type { BridgeClient } from '../../../src/client/bridgeClient';
import type { PrepareResult } from '../../../src/client/bundlesApi';

/** The invented excerpt: no page of any corpus book says this. */
export const INVENTED = 'Quantum marmalade orbits the seventh moon of a purple teapot every Tuesday.';

export interface BundleScenario {
  topicid: string;
  bookmd5: string;
  bundle: PrepareResult;
  /** Verbatim lines of the bundle's pages, with their page. */
  verbatim: Array<{ page: number; text: string }>;
  resultMarkdown: string;
}

/** A line a person would quote: long, mostly words, no page furniture. */
const quotable = (line: string) =>
  line.length >= 45 &&
  line.length <= 160 &&
  /^[A-Z]/.test(line) &&
  (line.match(/[a-z]/g)?.length ?? 0) > line.length * 0.6 &&
  !/[{}\\$_]/.test(line);

/**
 * What an agent does over HTTP: a set, the book uploaded into it, a small
 * synchronous bundle, and a result.md quoting two of its pages verbatim plus
 * one invented sentence (and one heading too deep to import).
 */
export async function prepareAsymptoteBundle(
  agent: BridgeClient,
  pdfPath: string,
  pages: [number, number],
): Promise<BundleScenario> {
  const set = await agent.createStudySet('Asymptote (split by an agent)');
  const up = await agent.uploadDocument(readFileSync(pdfPath), { filename: 'asymptote.pdf', topicid: set.topicid });
  const bundle = await agent.bundles.prepare({
    topicid: set.topicid,
    bookmd5: up.bookmd5,
    segments: [{ startPage: pages[0], endPage: pages[1] }],
    preset: 'book-breakdown',
    anchorMode: 'page_text',
    title: 'Asymptote: first chapters',
  });
  const read = await agent.pages(up.bookmd5, pages[0], pages[1]);
  const verbatim: Array<{ page: number; text: string }> = [];
  for (const p of read.pages) {
    const line = p.text
      .split('\n')
      .map((l) => l.trim())
      .find(quotable);
    if (line) verbatim.push({ page: p.page, text: line });
  }
  if (verbatim.length < 2)
    throw new Error(
      `fewer than two quotable lines on pages ${pages.join('–')}: ${JSON.stringify(read.pages.map((p) => p.text.slice(0, 200)))}`,
    );
  const [a, b] = verbatim;
  const resultMarkdown = [
    '# Asymptote',
    '',
    'A descriptive vector graphics language.',
    '',
    '## What it is',
    '',
    `[excerpt: ${a.text}]`,
    '',
    '## Drawing',
    '',
    `[excerpt: ${b.text}]`,
    '',
    `[excerpt: ${INVENTED}]`,
    '',
    '####### Too deep to be a card',
    '',
  ].join('\n');
  return { topicid: set.topicid, bookmd5: up.bookmd5, bundle, verbatim: [a, b], resultMarkdown };
}
