/// <reference lib="dom" />
// The few DOM helpers the hand-drawn pages (result.md preview, review) share.

/** A new element with a class and text (textContent: never parsed as HTML). */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  cls?: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

export function clear(e: HTMLElement): void {
  while (e.firstChild) e.removeChild(e.firstChild);
}

export const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The page's message line: hidden without text; `kind` styles it (info, warning, error). */
export function showMessage(target: HTMLElement, text: string | undefined, kind = 'info'): void {
  target.hidden = !text;
  target.className = `message ${kind}`;
  target.textContent = text || '';
}

/** A style attribute in a tag as the sanitiser writes it (text and attribute values never hold a raw `<` or `>`). */
const STYLE_ATTR = /(<[a-z][a-z0-9]*\b[^>]*?)\sstyle="/gi;

/**
 * Card HTML the bridge sanitised (server/domain/decks/cardHtml.ts), drawn as
 * HTML: parsed into an inert document (nothing in it runs or loads there),
 * each picture's media name swapped for its data: URL from `pictures` (one
 * without is named instead), then moved in. The page's CSP still holds; it
 * refuses style attributes, so the few styles the allow-list keeps are set
 * through the element's style object instead, which the CSP allows.
 */
export function drawCardHtml(into: HTMLElement, html: string, pictures: Record<string, string> = {}): void {
  // Even an inert document's style attributes meet the CSP: they come in under another name.
  const renamed = html.replace(STYLE_ATTR, '$1 data-card-style="');
  const doc = new DOMParser().parseFromString(`<!doctype html><body>${renamed}</body>`, 'text/html');
  for (const img of Array.from(doc.body.querySelectorAll('img'))) {
    const src = img.getAttribute('src') ?? '';
    if (src.startsWith('data:image/')) continue;
    const data = Object.prototype.hasOwnProperty.call(pictures, src) ? pictures[src] : undefined;
    if (data) img.setAttribute('src', data);
    else img.replaceWith(doc.createTextNode(`[picture ${src}]`));
  }
  const styled = Array.from(doc.body.querySelectorAll<HTMLElement>('[data-card-style]')).map((e) => {
    const style = e.getAttribute('data-card-style') ?? '';
    e.removeAttribute('data-card-style');
    return [e, style] as const;
  });
  into.classList.add('card-html');
  into.append(...Array.from(doc.body.childNodes));
  for (const [e, style] of styled)
    for (const decl of style.split(';')) {
      const at = decl.indexOf(':');
      if (at > 0) e.style.setProperty(decl.slice(0, at).trim(), decl.slice(at + 1).trim());
    }
}
