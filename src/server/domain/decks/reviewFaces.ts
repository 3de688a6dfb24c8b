import type { Db } from '../cards/noteRows';
import { modeOf, type DeckCardRow } from './deckCardRows';
import { displayTitle } from '../cards/displayTitle';
import { ankiFaceHtml, facePictures, type FacePicture } from './anki/ankiFaceHtml';
import { sanitizeCardHtml, textAsHtml } from './cardHtml';
import type { FaceReads } from './faceReads';

/**
 * The two sides of a review card as the person sees them: the question
 * (the source card's title, a custom text with `{{cloze}}` hidden, or a
 * content part of the card) and the answer (the source card's body and
 * comments). Read from the card a review card resolves to. Each side also
 * comes as HTML, always through the allow-list of cardHtml.ts: an imported
 * Anki card's template rendered (while it reads as imported), else the text.
 */

export interface ReviewQuestion {
  /** title: automatic; cloze: custom text with a hidden part; text: custom text without one; content_part: a part of the card. */
  kind: 'title' | 'cloze' | 'text' | 'content_part';
  /** What to show: `{{cloze}}` replaced by `[…]`. */
  text: string;
  /** The same as sanitised HTML (the cloze mask as `<span class="cloze">`); empty for a content part. */
  html: string;
  /** content_part: the part's id and kind (text, image…). */
  contentId?: string;
  contentKind?: string | null;
}

export interface ReviewAnswer {
  /** The source card's title (also the question of an automatic card). */
  title: string;
  /** Its body (note_texts index 0); empty when the source is gone. */
  body: string;
  /** Whether the body is an excerpt of a page, and which. */
  excerpt: boolean;
  page: number | null;
  /** Its comments (index 1..N) in order. */
  comments: string[];
  /** The body as sanitised HTML (an imported Anki card: what its template's back adds). */
  html: string;
}

/** What `{{cloze}}` becomes on the question side. */
export const CLOZE_MASK = '[…]';
// Ours ({{cloze}}) and Anki's ({{c1::answer}} or {{c1::answer::hint}}, as imported from a package).
const CLOZE = /\{\{\s*cloze\s*\}\}|\{\{c(?=[\d,]*\d)[\d,]+::[\s\S]*?(?:::([\s\S]*?))?\}\}/gi;

/** Text as HTML with each cloze drawn as its mask (or hint) in a `cloze` span. */
const clozeHtml = (text: string) =>
  textAsHtml(text).replace(
    CLOZE,
    (_m, hint?: string) => `<span class="cloze">${hint ? `[${hint}]` : CLOZE_MASK}</span>`,
  );

export function hideCloze(text: string): { text: string; hidden: boolean } {
  let hidden = false;
  const out = text.replace(CLOZE, (_m, hint?: string) => {
    hidden = true;
    return hint ? `[${hint}]` : CLOZE_MASK;
  });
  return { text: out, hidden };
}

/**
 * Both sides of `row`; `resolvedNoteId` is the card it reads, `alive` whether that card is visible,
 * `reads` what it reads of that card (faceReads.ts, read for many cards at once).
 */
export function facesOf(
  db: Db,
  row: DeckCardRow,
  resolvedNoteId: string,
  alive: boolean,
  reads: FaceReads,
): { question: ReviewQuestion; answer: ReviewAnswer; pictures: FacePicture[] } {
  const faces = textFaces(row, alive, reads);
  // Only a card an Anki card reads as can have a template (ankiFaceHtml finds nothing for the others).
  const anki =
    alive && reads.anki && faces.question.kind !== 'content_part' ? ankiFaceHtml(db, resolvedNoteId) : undefined;
  if (anki) [faces.question.html, faces.answer.html] = [anki.question, anki.answer];
  // The one place a face's HTML is made safe: every side goes through the allow-list.
  faces.question.html = sanitizeCardHtml(faces.question.html);
  faces.answer.html = sanitizeCardHtml(faces.answer.html);
  const pictures = anki ? facePictures(db, resolvedNoteId, [faces.question.html, faces.answer.html]) : [];
  return { ...faces, pictures };
}

/** Both sides as text, and that text as HTML (not yet sanitised). */
function textFaces(
  row: DeckCardRow,
  alive: boolean,
  reads: FaceReads,
): { question: ReviewQuestion; answer: ReviewAnswer } {
  const note = alive ? reads.note : undefined;
  const texts = alive ? reads.texts : [];
  const body = texts.find((t) => t.idx === 0);
  const title = note?.title ?? '';
  const answer: ReviewAnswer = {
    title,
    body: body?.text ?? '',
    excerpt: !!body?.excerpt,
    page: body?.excerpt ? (note?.source_page ?? null) : null,
    comments: texts.filter((t) => t.idx > 0).map((t) => t.text),
    html: textAsHtml(body?.text ?? ''),
  };
  const mode = modeOf(row);
  if (mode === 'custom_text') {
    const { text, hidden } = hideCloze(row.question!);
    return { question: { kind: hidden ? 'cloze' : 'text', text, html: clozeHtml(row.question!) }, answer };
  }
  if (mode === 'content_part') {
    return {
      question: {
        kind: 'content_part',
        text: row.question_content_id!,
        html: '',
        contentId: row.question_content_id!,
        contentKind: reads.partKind ?? null,
      },
      answer,
    };
  }
  // Automatic: the source's title; the review card's own title when the source is gone.
  // An untitled source (an excerpt card) asks with the first words of its excerpt or body.
  const text = title || row.title || displayTitle('', body?.text);
  return { question: { kind: 'title', text, html: textAsHtml(text) }, answer };
}
