/**
 * The cloze numbers of a note's field as Anki's cloze tokenizer reads them
 * (rslib cloze.rs): card generation makes a card of each, and the renderer
 * tells a card whose number is gone. Apart so both can import it.
 */

const CLOZE_OPEN = /\{\{c([\d,]*)::/y;

/** Anki's cloze numbers of a field: of each closed deletion and those nested in it (at most 10 open at once). */
export function clozeNumbersOf(field: string, into = new Set<number>()): Set<number> {
  const open: number[][] = [];
  for (let i = 0; i < field.length;) {
    CLOZE_OPEN.lastIndex = i;
    const m = CLOZE_OPEN.exec(field);
    const ords = m ? m[1].split(',').filter((s) => /^\d+$/.test(s) && Number(s) <= 65535) : [];
    if (m && ords.length) {
      if (open.length < 10) open.push(ords.map(Number).filter((n) => n !== 0));
      i += m[0].length;
    } else if (field.startsWith('}}', i)) {
      // A deletion counts once closed, with those closed inside it; one left open counts for nothing.
      const done = open.pop();
      if (done && open.length) open[open.length - 1].push(...done);
      else if (done) for (const n of done) into.add(n);
      i += 2;
    } else i++;
  }
  return into;
}
