import type { Zippable } from 'fflate';
import { excerptPart, type ExcerptRenderDeps } from '../../cards/cardImages';
import { partPicture } from '../../cards/noteContent';
import type { Store } from '../../../ground/store/store';
import type { ExportCard } from './ankiExportRead';
import { extOfMime } from './ankiMediaTypes';
import { BASIC_MODEL_ID, CLOZE_MODEL_ID } from './ankiSchema';
import { clozeNumbers, hasAnkiCloze, htmlToText, textToHtml } from './ankiText';

/** A card of ours as an Anki note's fields (ankiExport.ts), and the media files those fields name. */

/** Longer edge of an excerpt region drawn for Anki. */
const EXCERPT_EDGE = 1200;
export interface Media {
  names: string[];
  files: Zippable;
  add(name: string, bytes: Uint8Array): string;
}

export function mediaSet(): Media {
  const names: string[] = [];
  const files: Zippable = {};
  const seen = new Set<string>();
  return {
    names,
    files,
    add(name, bytes) {
      if (!seen.has(name)) {
        seen.add(name);
        files[String(names.length)] = [bytes, { level: 0 }];
        names.push(name);
      }
      return name;
    },
  };
}

const img = (name: string) => `<img src="${name.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}">`;

/** The fields, note type and card ordinal of one review card. */
export async function fieldsOf(
  deps: ExcerptRenderDeps & { store: Store },
  c: ExportCard,
  media: Media,
): Promise<{ mid: number; ord: number; fields: string[] }> {
  const pictures: string[] = [];
  let front: string | undefined;
  for (const p of c.pictures) {
    const name = media.add(`sb-${p.contentId}.${extOfMime(p.mimeType)}`, p.blob);
    if (c.questionContentId === p.contentId) front = img(name);
    else pictures.push(img(name));
  }
  if (c.excerptNote) {
    const part = excerptPart(deps.store, c.excerptNote);
    if (part) {
      try {
        const pic = await partPicture(deps, part, EXCERPT_EDGE, false);
        const name = media.add(`sb-excerpt-${c.excerptNote.noteid}.png`, pic.png);
        if (c.questionContentId === part.contentId) front = img(name);
        else pictures.unshift(img(name));
      } catch {
        // The book is gone or unreadable: the card goes out with its text alone.
      }
    }
  }
  const back = [c.body, ...c.comments].filter(Boolean).map(textToHtml).join('<br><br>');
  const answer = [back, ...pictures].filter(Boolean).join('<br>');
  const question = c.question ?? '';
  if (/\{\{\s*cloze\s*\}\}/i.test(question) || hasAnkiCloze(question)) {
    // {{cloze}} hides the card's title; {{cN::…}} is Anki's own markup and stays.
    const text = textToHtml(
      question.replace(/\{\{\s*cloze\s*\}\}/gi, () => `{{c1::${c.title.replace(/\}\}/g, '} }')}}}`),
    );
    const ord = Math.max(0, (clozeNumbers(htmlToText(text))[0] ?? 1) - 1);
    return { mid: CLOZE_MODEL_ID, ord, fields: [text, answer] };
  }
  return { mid: BASIC_MODEL_ID, ord: 0, fields: [front ?? textToHtml(c.question ?? c.title), answer] };
}
