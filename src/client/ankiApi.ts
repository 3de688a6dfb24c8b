import type { RouteResponse } from '../server/api/http/routeTable';
import type { deckImportResponse } from '../server/api/routes/ankiPackages';
import type { Requester } from './requester';

/** Anki packages in and out of review decks (POST /decks/import, GET /decks/{id}/apkg). */
export type AnkiImportResult = RouteResponse<typeof deckImportResponse>;

export class AnkiApi {
  constructor(private readonly http: Requester) {}

  /** Imports .apkg bytes (confirmed); the same package again updates the deck it made. */
  importPackage(bytes: Uint8Array, filename: string) {
    return this.http.request<AnkiImportResult>('POST', '/decks/import', { bytes, query: { filename, confirm: 1 } });
  }

  /** The deck as .apkg bytes and the file name the bridge suggests. */
  async exportPackage(deckId: string): Promise<{ bytes: Buffer; filename: string }> {
    const res = await this.http.raw('GET', `/decks/${encodeURIComponent(deckId)}/apkg`);
    // A refusal is JSON: asked again through request(), it throws the usual BridgeClientError with its code.
    if (res.status !== 200) await this.http.request('GET', `/decks/${encodeURIComponent(deckId)}/apkg`);
    const cd = res.headers.get('Content-Disposition') ?? '';
    const star = /filename\*=UTF-8''([^;]+)/i.exec(cd)?.[1];
    const plain = /filename="([^"]*)"/i.exec(cd)?.[1];
    return { bytes: res.bytes, filename: star ? decodeURIComponent(star) : (plain ?? 'deck.apkg') };
  }
}
