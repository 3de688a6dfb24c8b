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
