/** The closed vocabularies agents must use (docs/CONTRACT-CHOICES.md, "Agents' vocabulary"). */
export const PRESETS = ['book-breakdown', 'source-structure', 'exam-general', 'dictionary'] as const;
export const ANCHOR_MODES = ['page_text', 'block'] as const;
