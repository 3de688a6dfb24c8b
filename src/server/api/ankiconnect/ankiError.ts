/**
 * A refusal of one AnkiConnect action: answered as AnkiConnect does, HTTP 200
 * with `{result: null, error: message}` (inside `multi`, as that action's
 * entry). The message is what tools like Yomitan show the person.
 */
export class AnkiError extends Error {
  override name = 'AnkiError';
}
