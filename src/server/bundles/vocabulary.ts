/** The closed vocabularies agents must use (reference-facts §3–§4). */
export const PRESETS = ['book-breakdown', 'source-structure', 'exam-general', 'dictionary'] as const;
export const ANCHOR_MODES = ['page_text', 'block'] as const;

/** fillIndex values: 0 does not mean "no fill"; 2 does. */
export const FILL_INDEX_SEMANTICS = {
  '-1': 'legacy_adaptive',
  '0': 'fill_and_stroke',
  '1': 'fill_only',
  '2': 'stroke_only',
} as const;
