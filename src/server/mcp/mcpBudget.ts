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
