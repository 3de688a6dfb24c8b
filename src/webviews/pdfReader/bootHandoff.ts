/// <reference lib="dom" />
// What the reader's first script (boot.ts) hands to the big one (main.ts). No code of either here: each
// bundle imports this file, and boot.ts's side effects must not run twice.
import type { PageChannel } from '../channel/pageChannel';
import type { OpeningImage } from './openingImage';
import type { OpenPhases, ReaderProtocol } from './protocol';

export interface ReaderBoot {
  /** performance.now() when boot.ts started: the page's figures count from there. */
  started: number;
  phases: OpenPhases;
  host: PageChannel<ReaderProtocol>;
  opening: OpeningImage;
  workerPort: Promise<Worker>;
  /** pdf.js's viewer stylesheet loaded (or failed): the viewer lays out its pages by it. */
  viewerStyles: Promise<void>;
}

const KEY = 'studyBridgeReaderBoot';

export const handBoot = (boot: ReaderBoot) => void ((globalThis as Record<string, unknown>)[KEY] = boot);

export function takeBoot(): ReaderBoot {
  const boot = (globalThis as Record<string, unknown>)[KEY] as ReaderBoot | undefined;
  if (!boot) throw new Error('pdfReader.js ran before pdfReaderBoot.js');
  return boot;
}
