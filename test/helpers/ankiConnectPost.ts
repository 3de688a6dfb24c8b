/** One AnkiConnect call on the real port: the HTTP status and AnkiConnect's `{ result, error }` body. */
export async function post(port: number, body: unknown) {
  const res = await fetch(`http://127.0.0.1:${port}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as { result: any; error: string | null } };
}
