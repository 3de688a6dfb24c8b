import { makePng } from './cardImagesFixture';
import { BASIC_AND_REVERSED, buildApkg, crtDaysAgo, type BuildPackage } from '../helpers/ankiPackageBuilder';

/**
 * A package laid out as Anki exports a real deck: a 4-field vocabulary note
 * type with pictures, nested tags (`::`), a reviewed card whose FSRS memory
 * state Anki wrote in `data`, new cards, a Basic-and-reversed note (two
 * cards), and a Cloze note.
 */

export const CRT_DAYS_AGO = 30;
export const REVIEW_DUE_DAY = 40; // due in 10 days
export const REVIEW_IVL = 15;
export const FSRS_DATA = { s: 17.25, d: 4.3 };

export async function vocabPackage(
  opts: Partial<BuildPackage> = {},
): Promise<{ bytes: Uint8Array; crt: number; pictures: Record<string, Buffer>; pkg: BuildPackage }> {
  const crt = crtDaysAgo(CRT_DAYS_AGO);
  const cat = await makePng(64, 48, (ctx) => {
    ctx.fillStyle = '#d04020';
    ctx.fillRect(0, 0, 64, 48);
  });
  const dog = await makePng(40, 80, (ctx) => {
    ctx.fillStyle = '#2040d0';
    ctx.fillRect(0, 0, 40, 80);
  });
  const pictures = { 'gato.png': cat, 'perro 1.png': dog };
  const pkg: BuildPackage = {
    crt,
    models: [
      { name: 'Vocab (4 fields)', fields: ['Word', 'Meaning', 'Example', 'Picture'] },
      BASIC_AND_REVERSED,
      { name: 'Cloze', fields: ['Text', 'Back Extra'], cloze: true },
    ],
    decks: ['Spanish::Vocab'],
    notes: [
      {
        guid: 'Gx7#k2Lp9q',
        model: 'Vocab (4 fields)',
        fields: ['<b>el gato</b>', 'the cat', 'El gato&nbsp;duerme.<br>The cat sleeps.', '<img src="gato.png">'],
        tags: ['Lang::Spanish::Nouns', 'core'],
        cards: [
          {
            type: 2,
            queue: 2,
            due: REVIEW_DUE_DAY,
            ivl: REVIEW_IVL,
            reps: 5,
            lapses: 1,
            factor: 2500,
            data: JSON.stringify({ ...FSRS_DATA, dr: 0.9 }),
            reviews: [(crt + 25 * 86400) * 1000],
          },
        ],
      },
      {
        guid: 'Hm3&zQ1rT8',
        model: 'Vocab (4 fields)',
        fields: ['el perro', 'the dog', '', '<div><img src="perro%201.png" /></div>'],
        tags: ['Lang::Spanish::Nouns'],
        cards: [{ type: 0, queue: 0, due: 2 }],
      },
      {
        guid: 'Jr5*wE2uY4',
        model: 'Basic (and reversed card)',
        fields: ['hablar', 'to speak'],
        tags: ['Lang::Spanish::Verbs'],
        cards: [
          { ord: 0, type: 0, due: 3 },
          { ord: 1, type: 0, due: 3 },
        ],
      },
      {
        guid: 'Kc9!pA6sD1',
        model: 'Cloze',
        fields: ['La capital de España es {{c1::Madrid}}.', 'Since 1561'],
        cards: [{ ord: 0, type: 0, due: 4 }],
      },
    ],
    media: pictures,
    ...opts,
  };
  return { bytes: await buildApkg(pkg), crt, pictures, pkg };
}
