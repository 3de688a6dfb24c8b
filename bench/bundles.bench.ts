// Bundles: prepare of 60 real pages to "prepared" (goal ≤ 1 s), check (goal ≤ 300 ms) and submit (goal ≤ 1 s) of a 2,000-card result.md,
// anchoring recall on verbatim excerpts from every corpus book (goal ≥ 99 %) and false anchors on invented
// sentences (goal 0), each with its count.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBridge } from '../src/server/bridge';
import { BridgeClient } from '../src/client/bridgeClient';
import { AnchorIndex } from '../src/server/ground/text/anchorIndex';
import { foldKey as textKey } from '../src/server/ground/text/fold';
import { corpusFile } from '../test/unit/pdfCorpus';
import { printTable } from './table';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Seeded PRNG (mulberry32), so every run samples the same excerpts. */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What an agent copies: whole sentences of 40..240 characters with letters, written on one line, hyphenation joined. */
function sentencesOf(text: string): { raw: string; written: string }[] {
  return (text.match(/[A-Z][^.!?]{38,238}[.!?]/g) ?? [])
    .filter((s) => (s.match(/\p{L}/gu) ?? []).length >= 25)
    .map((raw) => ({ raw, written: raw.replace(/([a-z])-\n([a-z])/g, '$1$2').replace(/\s+/g, ' ') }));
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'sb-bench-bundles-'));
  const bridge = await createBridge({ dataDir, port: 0 });
  const client = new BridgeClient({ baseUrl: bridge.baseUrl, token: bridge.token });
  const docs = bridge.services.pages;
  const rows: (string | number)[][] = [];
  try {
    const books: Record<string, string> = {};
    for (const name of ['asymptote.pdf', '4ti2_manual.pdf', 'CAD.pdf', 'scanned-4ti2-p5-8.pdf']) {
      const up = await client.request<{ bookmd5: string }>('POST', '/library/documents/upload', {
        bytes: readFileSync(corpusFile(name)),
        query: { filename: name, confirm: '1' },
      });
      books[name] = up.bookmd5;
    }
    for (const id of Object.values(books)) await bridge.services.extraction.whenReady(id);
    const set = await client.createStudySet('Bench');
    const asy = books['asymptote.pdf'];

    // 1. prepare of 60 real pages (pages already extracted, as after an upload has finished).
    const prepMs: number[] = [];
    let bundleId = '';
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      const p = await client.request<{ bundleId: string }>('POST', '/bundles/prepare', {
        body: { topicid: set.topicid, bookmd5: asy, segments: [{ startPage: 29, endPage: 88 }], async: true },
      });
      await bridge.services.bundles.runner.running?.done;
      const l = await client.request<{ bundles: { bundleId: string; state: string }[] }>('GET', '/bundles');
      if (l.bundles.find((b) => b.bundleId === p.bundleId)?.state !== 'prepared')
        throw new Error('prepare did not reach prepared');
      prepMs.push(performance.now() - t0);
      if (i < 4) await client.request('POST', `/bundles/${p.bundleId}/discard`);
      bundleId = p.bundleId;
    }
    rows.push([
      'prepare 60 pages (asymptote 29–88) → prepared, median of 5',
      median(prepMs),
      '≤ 1000',
      `min ${Math.min(...prepMs).toFixed(0)} ms`,
    ]);

    // 2. submit of a 2,000-card result.md: 2,000 headings, each with a verbatim excerpt of the bundle's pages (link mode).
    const source = JSON.parse(
      (await client.raw('GET', `/bundles/${bundleId}/files`, { query: { path: 'source.json' } })).text(),
    ) as { pages: { page: number; text: string }[] };
    const pool = source.pages.flatMap((p) => sentencesOf(p.text).map((s) => s.written));
    const md = Array.from(
      { length: 2000 },
      (_, i) => `${i % 20 === 0 ? '#' : '##'} Card ${i}\n[excerpt: ${pool[i % pool.length]}]\n`,
    ).join('\n');
    // Check first: the first one anchors every excerpt (and builds the bundle's index); later ones are the editor's
    // keystroke path, where the excerpts anchored before are known.
    const checkMs: number[] = [];
    for (let i = 0; i < 6; i++) {
      const t0 = performance.now();
      await client.request('POST', `/bundles/${bundleId}/check`, { body: { resultMarkdown: md } });
      checkMs.push(performance.now() - t0);
    }
    rows.push([
      'check of the 2,000-card result.md, median of 5 (editor keystroke path)',
      median(checkMs.slice(1)),
      '≤ 300',
      `first check ${checkMs[0].toFixed(0)} ms (anchors all); parse + anchor, nothing written`,
    ]);
    const submitMs: number[] = [];
    let receipt:
      | { receipt: unknown[]; parsed: { excerptsTotal: number; excerptsAnchored: number; importedCards: number } }
      | undefined;
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      receipt = await client.request('POST', `/bundles/${bundleId}/submit`, {
        body: { resultMarkdown: md, excerptMode: 'link' },
      });
      submitMs.push(performance.now() - t0);
    }
    rows.push([
      'submit 2,000-card result.md (2,000 excerpts, replace), median of 3',
      median(submitMs),
      '≤ 1000',
      `${receipt!.parsed.importedCards} cards, ${receipt!.parsed.excerptsAnchored}/${receipt!.parsed.excerptsTotal} anchored, first ${submitMs[0].toFixed(0)} ms; ` +
        // The same bench at 8d73380 (2026-11-25, this machine), before the card index stopped indexing ids (cardIndexRebuild.ts).
        'before: 872-1074 ms',
    ]);

    // 3. recall on verbatim excerpts from every corpus book, and 4. false anchors on invented sentences,
    // each against 60-page windows (what one bundle holds).
    const random = rng(42);
    let total = 0;
    let hit = 0;
    let invented = 0;
    let falseAnchors = 0;
    const misses: string[] = [];
    const perBook: string[] = [];
    for (const [name, id] of Object.entries(books)) {
      const count = bridge.services.documents.get(id).page_count;
      let bookTotal = 0;
      let bookHit = 0;
      for (let start = 1; start <= count; start += 60) {
        const pages = await docs.storedPages(id, start, Math.min(count, start + 59));
        const index = new AnchorIndex(pages);
        const words: string[] = [];
        for (const p of pages) {
          const ss = sentencesOf(p.text);
          for (const s of ss) words.push(...s.written.split(' '));
          // Up to 3 sentences per page, chosen by the seeded PRNG.
          for (let k = 0; k < Math.min(3, ss.length); k++) {
            const s = ss[Math.floor(random() * ss.length)];
            const r = index.anchor(s.written);
            total++;
            bookTotal++;
            // A sentence printed on two pages is rightly anchored to either.
            const onPage = (n: number | undefined) =>
              n === p.page ||
              (n !== undefined && textKey(pages.find((x) => x.page === n)?.text ?? '').includes(textKey(s.written)));
            if (r.anchored && onPage(r.page)) {
              hit++;
              bookHit++;
            } else if (misses.length < 5)
              misses.push(`${name} p${p.page}: ${r.reason ?? `page ${r.page}`} «${s.written.slice(0, 60)}»`);
          }
        }
        // Invented: the window's own words in a random order (same vocabulary, never a real sentence), 8–20 words.
        for (let k = 0; k < Math.min(50, words.length / 10); k++) {
          const n = 8 + Math.floor(random() * 13);
          const sentence = Array.from({ length: n }, () => words[Math.floor(random() * words.length)]).join(' ');
          invented++;
          if (index.anchor(sentence).anchored) falseAnchors++;
        }
      }
      perBook.push(`${name.replace('.pdf', '')} ${bookHit}/${bookTotal}`);
    }
    rows.push([
      'anchoring recall, verbatim sentences of every corpus book',
      (100 * hit) / total,
      '≥ 99 %',
      `${hit}/${total} (${perBook.join(', ')})`,
    ]);
    rows.push(['false anchors, invented sentences from the same words', falseAnchors, '0', `of ${invented}`]);
    printTable(['measure', 'ms / % / count', 'goal', 'notes'], rows);
    if (misses.length) process.stdout.write(`\nmisses: ${misses.join('; ')}\n`);
  } finally {
    await bridge.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

void main().catch((e) => {
  console.error(e);
  process.exit(1);
});
