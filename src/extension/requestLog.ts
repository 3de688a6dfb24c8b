/**
 * The request log never carries credentials: values of query parameters that
 * are (or may be) secrets are replaced. Paths themselves carry only ids.
 */
const SECRET_PARAMS = /([?&](?:code|token|access_token|key|secret|pairingCode)=)[^&#]*/gi;

export function redactPath(path: string): string {
  return path.replace(SECRET_PARAMS, '$1…');
}
