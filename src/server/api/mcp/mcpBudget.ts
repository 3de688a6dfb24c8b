/** The largest MCP message POST /mcp reads (its route's body limit). */
export const MCP_MESSAGE_BYTES = 4 * 1024 * 1024;

/**
 * The largest `bodyBase64` study_call sends on (≈ 2.25 MiB of file): well
 * under the message limit, so a larger one still arrives and is answered with
 * the way that has no such limit (study_upload) instead of a bare 413.
 */
export const BODY_BASE64_MAX_CHARS = 3 * 1024 * 1024;

/** PDFs a route answers are embedded up to this size; larger ones are read over HTTP. */
export const PDF_EMBED_LIMIT = 8 * 1024 * 1024;

/**
 * study_call's text budget per result (both text blocks together, UTF-8
 * bytes): 24 KB by default, well under the ~25k tokens at which common MCP
 * clients cut a tool result; `maxBytes` may ask for 2 KB–100 KB.
 */
export const DEFAULT_RESULT_BYTES = 24 * 1024;
export const MIN_RESULT_BYTES = 2 * 1024;
export const MAX_RESULT_BYTES = 100 * 1024;

/** Images are sent within this many pixels on the long edge (what vision models take in unscaled); `imageMaxPx` may ask for 64–4096. */
export const DEFAULT_IMAGE_MAX_PX = 1568;
export const IMAGE_MAX_PX_RANGE: readonly [number, number] = [64, 4096];

/**
 * A card as POST /notes/batch-get answers it, made the usual way (a title, one
 * excerpt anchored on a page, a sentence or two of text): 1.7–1.9 KB measured
 * on the corpus books (test/api/mcpBatchGet.test.ts measures it again).
 */
export const TYPICAL_CARD_BYTES = 1800;

/** Cards of typical size that fit in one study_call result of `budget` bytes, beside the answer's envelope and the note. */
export const cardsPerResult = (budget = DEFAULT_RESULT_BYTES) => Math.floor((budget - 1024) / TYPICAL_CARD_BYTES);
