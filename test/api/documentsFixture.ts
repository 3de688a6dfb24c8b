/** Shared by the document API tests: a bridge with the corpus books uploaded and extracted once. */
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { uploadBook as upload } from '../helpers/libraryFixtures';

export { uploadBook as upload, type UploadAnswer } from '../helpers/libraryFixtures';

let shared: Promise<{ t: TestBridge; ids: Record<string, string> }> | undefined;

/** One bridge for the read-only document tests, books uploaded and fully extracted. */
export function sharedLibrary(): Promise<{ t: TestBridge; ids: Record<string, string> }> {
  shared ??= (async () => {
    const t = await startBridge();
    const ids: Record<string, string> = {};
    for (const name of ['4ti2_manual.pdf', 'asymptote.pdf', 'CAD.pdf', 'scanned-4ti2-p5-8.pdf'])
      ids[name] = (await upload(t, name)).bookmd5;
    for (const id of Object.values(ids)) await t.bridge.services.extraction.whenReady(id);
    return { t, ids };
  })();
  return shared;
}

export async function stopSharedLibrary(): Promise<void> {
  if (!shared) return;
  const s = shared;
  shared = undefined;
  await (await s).t.stop();
}
