import type { BridgeServices } from '../../services';
import { AnkiMedia } from './ankiMedia';
import { AnkiNotes } from './ankiNotes';
import { writeQueue } from './ankiDispatch';
import { ANKI_BODY_LIMIT } from './ankiLimits';
import { startAnkiServer, type AnkiServer } from './ankiServer';

/** Starts the AnkiConnect port on the bridge's services (bridge.ts calls it once the main port listens). */
export function startAnkiConnect(
  options: { port: number; allowedOrigins?: string[] },
  services: Pick<
    BridgeServices,
    'config' | 'store' | 'decks' | 'studySets' | 'ui' | 'tokens' | 'entitlements' | 'approvals'
  >,
  onError: ((e: unknown) => void) | undefined,
): Promise<AnkiServer> {
  const { config, store, decks, studySets, ui, tokens, entitlements, approvals } = services;
  const media = new AnkiMedia(config);
  const ask = ui.askAnkiConnectPermission?.bind(ui);
  return startAnkiServer(
    {
      port: options.port,
      allowedOrigins: options.allowedOrigins ?? [],
      bodyLimitBytes: ANKI_BODY_LIMIT,
      ...(ask ? { ask } : {}),
    },
    {
      store,
      decks,
      ui,
      media,
      tokens,
      entitlements,
      approvals,
      notes: new AnkiNotes({ store, decks, studySets, media }),
      serially: writeQueue(),
      onError: onError ?? (() => undefined),
    },
  );
}
