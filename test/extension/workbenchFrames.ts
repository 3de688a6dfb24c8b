// What every driver of the workbench needs: waiting on a condition, the
// webview that shows a given page, and the Study Bridge status bar as rendered.
import type { FrameLocator, Page } from 'playwright-core';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Polls `probe` until it answers something; a probe that throws (a frame
 * being replaced) counts as "not yet", and its last error is in the timeout's message.
 */
export async function until<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs: number,
  what: string,
  everyMs = 150,
): Promise<T> {
  const t0 = Date.now();
  let lastError: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (e) {
      lastError = e;
    }
    if (Date.now() - t0 > timeoutMs) {
      const last = lastError instanceof Error ? lastError.message : String(lastError);
      const why = lastError ? ` (last error: ${last})` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${why}`);
    }
    await sleep(everyMs);
  }
}

/**
 * The content frame of the webview whose page has `marker` (VS Code nests each
 * webview as iframe.webview → iframe#active-frame). One in sight first: two
 * panels of a kind may be open, one in the background, and the one just opened
 * may not be ready yet. A hidden one is taken only when none in sight shows up
 * within `hiddenAfterMs` (never, when undefined).
 */
export async function webviewFrame(
  page: Page,
  marker: string,
  timeoutMs: number,
  hiddenAfterMs: number | undefined = Math.min(8_000, timeoutMs / 2),
): Promise<FrameLocator> {
  const t0 = Date.now();
  return until(
    async () => {
      const outer = page.locator('iframe.webview.ready');
      let hidden: FrameLocator | undefined;
      for (let i = (await outer.count()) - 1; i >= 0; i--) {
        const inner = outer.nth(i).contentFrame().frameLocator('#active-frame');
        if (
          !(await inner
            .locator(marker)
            .count()
            .catch(() => 0))
        )
          continue;
        if (
          await outer
            .nth(i)
            .isVisible()
            .catch(() => false)
        )
          return inner;
        hidden ??= inner;
      }
      return hiddenAfterMs !== undefined && Date.now() - t0 > hiddenAfterMs ? hidden : undefined;
    },
    timeoutMs,
    `a webview showing ${marker}`,
  );
}

/** Texts of the Study Bridge status bar items as rendered (text | aria-label). */
export async function statusBarTexts(page: Page): Promise<string[]> {
  const items = await page
    .locator('.statusbar-item')
    .evaluateAll((els) =>
      els.map((e) => `${(e as unknown as { innerText: string }).innerText} | ${e.getAttribute('aria-label') ?? ''}`),
    )
    .catch(() => [] as string[]);
  return items.filter((t) => t.includes('Study Bridge'));
}
