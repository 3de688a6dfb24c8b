/** The closed vocabularies agents must use (docs/ARCHITECTURE.md, "Agents' vocabulary"). */
export const PRESETS = ['book-breakdown', 'source-structure', 'exam-general', 'dictionary'] as const;
export const ANCHOR_MODES = ['page_text', 'block'] as const;
