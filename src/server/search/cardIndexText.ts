import type { Store } from '../store/store';
import { cjkIndexTail, cjkQueryTerms, foldCompat, hasCjk, splitCjk } from './cjk';

/**
 * What the card index (FTS4 `notes_fts.body`, tokenizer unicode61) is fed
 * and asked. unicode61 keeps a CJK run as one token, so the body carries,
 * after the card's text and a unit separator, every CJK run as bigrams
 * (cjk.ts); the separator lets a snippet show the text alone. Latin text is
 * fed and asked exactly as before.
 */
const TAIL = '\n\u001f';

/** The indexed body of a card's text (title, texts, #tags joined by newlines). */
export function cardIndexBody(text: string): string {
  const folded = foldCompat(text);
  if (!hasCjk(folded)) return text;
  return `${text}${TAIL}${cjkIndexTail(folded)}`;
}

/** The card's own text in an indexed body (for snippets). */
export function cardIndexText(body: string): string {
  const at = body.indexOf(TAIL);
  return at < 0 ? body : body.slice(0, at);
}

/**
 * The FTS4 query of a query's words: every word must match, each as a prefix;
 * a CJK run as the phrase of its bigrams (a lone character: as a prefix).
 * Words are letters and digits only, so no FTS syntax (quotes, -, OR, NEAR)
 * in what the user typed is read as an operator. A phrase goes without the
 * `body:` filter, which FTS4's standard syntax does not take for phrases;
 * the other columns hold ids, never CJK.
 */
export function cardFtsQuery(words: string[]): string | undefined {
  const parts: string[] = [];
  for (const w of words.map(foldCompat)) {
    if (!hasCjk(w)) {
      parts.push(`body:${w}*`);
      continue;
    }
    for (const part of splitCjk(w)) {
      if (!part.cjk) parts.push(`body:${part.text}*`);
      else {
        const { terms, single } = cjkQueryTerms(part.text);
        parts.push(single ? `body:${terms[0]}*` : terms.length === 1 ? `body:${terms[0]}` : `"${terms.join(' ')}"`);
      }
    }
  }
  return parts.length ? parts.join(' ') : undefined;
}

const UPGRADED = 'card_index_cjk';

/**
 * Data dirs indexed before CJK bigrams: rewrites the index rows of cards
 * holding CJK text, once (a meta key records it). Reads every body once, in
 * the first start after the upgrade; Latin rows are left as they are.
 */
export async function upgradeCardIndex(store: Store): Promise<number> {
  if (store.get(`SELECT value FROM meta WHERE key = ?`, [UPGRADED])) return 0;
  const rows = store
    .all<{ docid: number; noteid: string; topicid: string; body: string }>('SELECT docid, c0noteid AS noteid, c1topicid AS topicid, c2body AS body FROM notes_fts_content')
    .filter((r) => typeof r.body === 'string' && hasCjk(foldCompat(r.body)) && cardIndexText(r.body) === r.body);
  await store.write((tx) => {
    for (const r of rows) {
      tx.run('DELETE FROM notes_fts WHERE docid = ?', [r.docid]);
      tx.run('INSERT INTO notes_fts(docid, noteid, topicid, body) VALUES (?, ?, ?, ?)', [r.docid, r.noteid, r.topicid, cardIndexBody(r.body)]);
    }
    tx.run(`INSERT OR REPLACE INTO meta(key, value) VALUES (?, '1')`, [UPGRADED]);
  });
  return rows.length;
}
