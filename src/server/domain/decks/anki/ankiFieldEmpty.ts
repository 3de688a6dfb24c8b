/**
 * Anki's field_is_empty (rslib template.rs): only ASCII whitespace and empty br/div tags. Its own file so
 * card generation and the template renderer share it without importing each other.
 */
export const fieldIsEmpty = (html: string) => /^(?:[\t\n\v\f\r ]|<\/?(?:br|div) ?\/?>)*$/i.test(html);
