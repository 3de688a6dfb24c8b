/**
 * Who asked for a change: the person in VS Code ('user') or a coding agent
 * ('agent'). The operation log records it, and restore refuses to overwrite
 * the person's own edits. The HTTP layer reads it from a request header
 * (routeTable.ts); the domain only ever sees this value.
 */
export type Actor = 'agent' | 'user';
