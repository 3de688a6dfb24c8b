// The runner's hands in the workbench: the UI actions a suite asks for by
// signal (test/extension/suite/signals.ts), done as a person would.
import { join } from 'node:path';
import type { FrameLocator, Locator, Page } from 'playwright-core';
import { sleep, statusBarTexts, until, webviewFrame } from './workbenchFrames';

/** Where screenshots go, and the runner's log. */
export interface RunnerIo {
  out: string;
  log: (m: string) => void;
}

/**
 * Driving the workbench like a person (each request names its action; the
 * signal name only has to be unique):
 * - rows:         wait until the sidebar renders rows containing every `expect` text
 * - screenshot:   the same, then save the sidebar (and the page) as `file`
 * - context-menu: right-click the row labelled `row`, pick `item`; with `input`,
 *                 answer the input box it opens (its prefilled value is returned)
 * (rows, screenshot and context-menu first open the rows labelled `expand`, in order, where a reveal left them closed)
 * - webview:      in the webview whose page has `marker` (a CSS selector), type
 *                 each `fill` value into its selector's field, click `click`
 *                 (answering the input box it opens with `input`),
 *                 wait for `waitFor` and for every `expect` text, save
 *                 the window as `screenshot`; returns the texts of `read` selectors
 * (Modal dialogs cannot be driven: VS Code refuses them under extension tests.)
 */
export type UiAction =
  | { action: 'rows'; expect: string[]; timeoutMs?: number; expand?: string[] }
  | { action: 'screenshot'; file: string; expect: string[]; sidebarWidth?: number; expand?: string[] }
  | { action: 'context-menu'; row: string; item: string; input?: string; expand?: string[] }
  | {
      action: 'webview';
      marker: string;
      fill?: Record<string, string>;
      click?: string;
      input?: string;
      clickShows?: string[];
      waitFor?: string;
      expect?: string[];
      read?: string[];
      screenshot?: string;
      timeoutMs?: number;
    }
  | {
      action: 'notification';
      expect: string[];
      file: string;
      statusFile?: string;
      statusExpect?: string;
      click?: string;
    };

export async function serveUiAction(page: Page, a: UiAction, io: RunnerIo): Promise<unknown> {
  const { out, log } = io;
  const sidebarRows = () =>
    page
      .locator('.part.sidebar .monaco-list-row')
      .allInnerTexts()
      .catch(() => [] as string[]);
  /** `scroll`: for a row to right-click only (a 'rows' wait that scrolled missed an imported tree twice on 1.139). */
  const waitRows = async (expect: string[], timeoutMs = 20_000, scroll = false) => {
    let last: string[] = [];
    const t0 = Date.now();
    let wheels = 0;
    try {
      return await until(
        async () => {
          last = await sidebarRows();
          if (expect.every((t) => last.some((r) => r.includes(t)))) return last;
          // A view draws only the rows in its pane (a virtual list): after the earlier suites' sets and decks,
          // the row may be below (or above) what is drawn. After 6 s (a reveal or refresh in flight has landed by
          // then) a person scrolls the views to find it.
          if (scroll && Date.now() - t0 > 6_000) await scrollSidebarLists(page, wheels++);
          return undefined;
        },
        timeoutMs,
        `sidebar rows with ${JSON.stringify(expect)}`,
      );
    } catch (e) {
      await page.screenshot({ path: join(out, `rows-timeout-${Date.now()}.png`) });
      throw new Error(`${(e as Error).message}; rendered rows: ${JSON.stringify(last)}`, { cause: e });
    }
  };
  /**
   * Rows labelled exactly `label` that open (aria-expanded): every sidebar view draws into `.part.sidebar`, each
   * list numbering its own rows, and the Bundles view has a leaf row named like the imported root card. Matching
   * that leaf first (its list drawn before the Study Sets one had redrawn) left the root unopened (1.139, twice).
   */
  const expandable = (label: string, index?: number) =>
    page.locator(
      `.part.sidebar .monaco-list-row[aria-expanded]${index === undefined ? '' : `[data-index="${index}"]`}`,
      {
        has: page.locator('.label-name', { hasText: new RegExp(`^${escapeRe(label)}$`) }),
      },
    );
  // A person opens what the extension's reveal left closed (a view refresh in flight can undo an expand).
  const expandRows = async (labels: string[] = []) => {
    let after = -1; // each label is looked for below the one before it (another set has a 'Documents' row too)
    let parent: Locator | undefined;
    for (const label of labels) {
      const t0 = Date.now();
      let wheels = 0;
      const row = await until(
        async () => {
          const rows = expandable(label);
          for (let i = 0; i < (await rows.count()); i++) {
            if (Number(await rows.nth(i).getAttribute('data-index')) > after) return rows.nth(i);
          }
          // Not drawn after 6 s: a refresh folded the row above again (open it again), or the row lies below the
          // pane's edge, where a virtual list draws nothing (scroll), as a person would (1.139: a 20 s wait for
          // an imported tree's second row once).
          if (Date.now() - t0 > 6_000) {
            if (parent && (await parent.getAttribute('aria-expanded', { timeout: 500 }).catch(() => null)) === 'false')
              await parent
                .locator('.monaco-tl-twistie')
                .click({ timeout: 1_000 })
                .catch(() => undefined);
            else await scrollSidebarLists(page, wheels++);
          }
          return undefined;
        },
        30_000,
        `the row ${label}`,
      ).catch(async (e: Error) => {
        await page.screenshot({ path: join(out, `rows-timeout-${Date.now()}.png`) });
        throw new Error(`${e.message}; rendered rows: ${JSON.stringify(await sidebarRows())}`, { cause: e });
      });
      after = Number(await row.getAttribute('data-index'));
      parent = expandable(label, after).first();
      for (let attempt = 1; (await row.getAttribute('aria-expanded')) === 'false' && attempt <= 3; attempt++) {
        log(`expanding ${label} (attempt ${attempt})`);
        await row.locator('.monaco-tl-twistie').click();
        await until(
          async () => ((await row.getAttribute('aria-expanded')) === 'true' ? true : undefined),
          3_000,
          `${label} expanded`,
        ).catch(() => undefined);
      }
    }
  };
  switch (a.action) {
    case 'rows':
      await expandRows(a.expand);
      return { rows: await waitRows(a.expect, a.timeoutMs) };
    case 'screenshot': {
      if (a.sidebarWidth) await widenSidebar(page, a.sidebarWidth);
      await expandRows(a.expand);
      const rows = await waitRows(a.expect);
      await sleep(300); // icons and descriptions settle
      const file = join(out, a.file);
      await page.locator('.part.sidebar').first().screenshot({ path: file });
      await page.screenshot({ path: file.replace(/\.png$/, '-window.png') });
      log(`screenshot ${file}`);
      return { path: file, rows };
    }
    case 'webview':
      return serveWebview(page, a, out, log);
    case 'notification':
      return serveNotification(page, a, out, log);
    case 'context-menu': {
      const box = page.locator('.quick-input-widget .quick-input-box input').first();
      // A view refresh landing between the right-click and the menu's click hands the command a stale
      // tree item (no input box then): the person would simply right-click again, and so does the runner.
      for (let attempt = 1; ; attempt++) {
        await closeDialog(page, log); // before the wait: a modal takes the wheel that brings the row in too
        await expandRows(a.expand);
        await waitRows([a.row], undefined, true);
        const row = sidebarRow(page, a.row);
        if (!(await bringIntoReach(page, row))) {
          // Seen once on 1.139 (CI): the rows' text held the deck's name, yet no row labelled exactly so was in the
          // page for the next 60 s. What the window showed is kept; the person looks again (up to three times).
          const rows = await sidebarRows();
          await page.screenshot({ path: join(out, `context-menu-unreached-${Date.now()}.png`) }).catch(() => undefined);
          log(`context-menu ${a.item}: ${a.row} not within reach (attempt ${attempt}); rows ${JSON.stringify(rows)}`);
          if (attempt < 3) continue;
        }
        await row.click({ button: 'right' });
        const item = page
          .locator('.monaco-menu .action-item .action-label', { hasText: new RegExp(`^${escapeRe(a.item)}$`) })
          .first();
        await item.waitFor({ state: 'visible', timeout: 10_000 });
        await item.click();
        // A click can land while the menu is still settling and be lost: the menu stays open with the item
        // highlighted (seen for Open Mind Map, and likely Rename Card's flake). Enter runs the highlighted item.
        const menu = page.locator('.monaco-menu').first();
        if (
          !(await menu.waitFor({ state: 'hidden', timeout: 2_000 }).then(
            () => true,
            () => false,
          ))
        ) {
          log(`context-menu ${a.item}: the menu stayed open after the click; pressing Enter on the item`);
          await item.hover({ timeout: 2_000 }).catch(() => undefined);
          if (await menu.isVisible().catch(() => false)) await page.keyboard.press('Enter');
        }
        if (a.input === undefined) return { clicked: a.item };
        // The last try waits long: once the extension host stalled 24 s, and the command's input box came just after a 10 s wait.
        const shown = await box.waitFor({ state: 'visible', timeout: attempt < 3 ? 5_000 : 30_000 }).then(
          () => true,
          (e) => (attempt < 3 ? false : Promise.reject(e)),
        );
        if (shown) break;
        // What the window showed instead (this has flaked, cause not yet found): kept for the next reader.
        await page.screenshot({ path: join(out, `context-menu-miss-${Date.now()}.png`) }).catch(() => undefined);
        log(`context-menu ${a.item}: no input box, right-clicking again (attempt ${attempt + 1})`);
        await page.keyboard.press('Escape'); // whatever the first try left open
        await sleep(1000);
      }
      const prefilled = await box.inputValue();
      await box.fill(a.input);
      await box.press('Enter');
      return { clicked: a.item, prefilled };
    }
  }
}

/**
 * One wheel step over every list in the sidebar, of half its pane (no row is skipped): down for 8 steps, then up
 * for 8, and again (the row looked for may be on either side of what each pane draws).
 */
async function scrollSidebarLists(page: Page, step: number): Promise<void> {
  const lists = page.locator('.part.sidebar .pane-body .monaco-list');
  for (let i = 0; i < (await lists.count().catch(() => 0)); i++) {
    const box = await lists
      .nth(i)
      .boundingBox()
      .catch(() => null);
    if (!box || box.height < 20) continue;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.wheel(0, (step % 16 < 8 ? 1 : -1) * Math.round(box.height / 2));
  }
}

/**
 * A modal dialog an earlier suite left open (an agent's study-set delete asks in one; the approvals suite answers it
 * through the command, so VS Code's own dialog stays up) takes every click: a person closes it first.
 */
async function closeDialog(page: Page, log: (m: string) => void): Promise<void> {
  const dialog = page.locator('.monaco-dialog-box').first();
  for (let attempt = 1; attempt <= 3 && (await dialog.isVisible().catch(() => false)); attempt++) {
    log(`closing a dialog left open: ${JSON.stringify((await dialog.innerText().catch(() => '')).slice(0, 120))}`);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden', timeout: 3_000 }).catch(() => undefined);
  }
}

/**
 * A row the list drew can still lie past its pane's edge or under the next pane's header (the Statistics deck's row,
 * last in the full run: drawn, yet its right-click waited 30 s for the row to take the pointer). A person scrolls:
 * wheel the lists until a trial click would land.
 */
async function bringIntoReach(page: Page, row: ReturnType<typeof sidebarRow>): Promise<boolean> {
  for (let step = 0; step < 16; step++) {
    if (
      await row.click({ button: 'right', trial: true, timeout: 2_000 }).then(
        () => true,
        () => false,
      )
    )
      return true;
    await scrollSidebarLists(page, step);
  }
  return false;
}

/** The sidebar's row labelled exactly `label`. */
const sidebarRow = (page: Page, label: string) =>
  page
    .locator('.part.sidebar .monaco-list-row', {
      has: page.locator('.label-name', { hasText: new RegExp(`^${escapeRe(label)}$`) }),
    })
    .first();

/**
 * notification: waits for the toast with every `expect` text (and a status bar
 * item with `statusExpect`), saves the window as `file` (and the status bar as
 * `statusFile`), then clicks the toast's button `click`. Answers the toast's
 * text and the Study Bridge status bar texts.
 */
async function serveNotification(
  page: Page,
  a: Extract<UiAction, { action: 'notification' }>,
  out: string,
  log: (m: string) => void,
): Promise<unknown> {
  const toast = page.locator('.notification-toast', { hasText: a.expect[0] }).last();
  const text = await until(
    async () => {
      const t = (await toast.innerText().catch(() => '')) || '';
      return a.expect.every((e) => t.includes(e)) ? t : undefined;
    },
    20_000,
    `a notification with ${JSON.stringify(a.expect)}`,
  ).catch(async (e: Error) => {
    // What was on screen instead: the window, and every toast's text in the error.
    await page.screenshot({ path: join(out, a.file.replace(/\.png$/, '-timeout.png')) }).catch(() => undefined);
    const shown = await page
      .locator('.notification-toast')
      .allInnerTexts()
      .catch(() => []);
    throw new Error(`${e.message}; toasts shown: ${JSON.stringify(shown)}`);
  });
  const status = await until(
    async () => {
      const s = await statusBarTexts(page);
      return !a.statusExpect || s.some((x) => x.includes(a.statusExpect!)) ? s : undefined;
    },
    20_000,
    `a status bar item with ${a.statusExpect}`,
  );
  await sleep(300); // the toast's slide-in settles
  await page.screenshot({ path: join(out, a.file) });
  if (a.statusFile)
    await page
      .locator('.part.statusbar')
      .first()
      .screenshot({ path: join(out, a.statusFile) });
  log(`screenshot ${join(out, a.file)}`);
  if (a.click)
    await toast
      .locator('.monaco-button', { hasText: new RegExp(`^${escapeRe(a.click)}$`) })
      .first()
      .click();
  return { text, status };
}

async function serveWebview(
  page: Page,
  a: Extract<UiAction, { action: 'webview' }>,
  out: string,
  log: (m: string) => void,
): Promise<unknown> {
  const timeoutMs = a.timeoutMs ?? 20_000;
  const frame = await webviewFrame(page, a.marker, timeoutMs);
  const bodyText = () =>
    frame
      .locator('body')
      .innerText()
      .catch((e) => `(unreadable: ${(e as Error).message})`);
  for (const [field, value] of Object.entries(a.fill ?? {}))
    await frame.locator(field).first().fill(value, { timeout: timeoutMs });
  if (a.click) await clickTaken(frame, a.click, a.clickShows, timeoutMs, log);
  if (a.input !== undefined) {
    const box = page.locator('.quick-input-widget .quick-input-box input').first();
    await box.waitFor({ state: 'visible', timeout: timeoutMs });
    await box.fill(a.input);
    await box.press('Enter');
  }
  if (a.waitFor) {
    await frame
      .locator(a.waitFor)
      .first()
      .waitFor({ state: 'visible', timeout: timeoutMs })
      .catch(async (e) => {
        await page.screenshot({ path: join(out, `webview-timeout-${Date.now()}.png`) }).catch(() => undefined);
        throw new Error(`${(e as Error).message.split('\n')[0]}; webview shows: ${(await bodyText()).slice(0, 1500)}`);
      });
  }
  let body = '';
  try {
    await until(
      async () => {
        body = await frame.locator('body').innerText();
        return (a.expect ?? []).every((t) => body.includes(t)) ? true : undefined;
      },
      timeoutMs,
      `webview texts ${JSON.stringify(a.expect)}`,
    );
  } catch (e) {
    await page.screenshot({ path: join(out, `webview-timeout-${Date.now()}.png`) });
    throw new Error(`${(e as Error).message}; webview shows: ${body.slice(0, 1500)}`, { cause: e });
  }
  const read: Record<string, string[]> = {};
  for (const sel of a.read ?? []) read[sel] = await frame.locator(sel).allInnerTexts();
  if (a.screenshot) {
    await sleep(300); // layout settles
    await page.screenshot({ path: join(out, a.screenshot) });
    log(`screenshot ${join(out, a.screenshot)}`);
  }
  return { body, read };
}

/**
 * Clicks `selector` in the webview. With `shows` (selectors the page shows once it took the click, such as a
 * busy button), a click the page never saw is repeated, as a person clicks again: a click landing while the
 * nested frame is still being laid out was lost once on VS Code 1.139 (Submit, no request reached the host).
 */
async function clickTaken(
  frame: FrameLocator,
  selector: string,
  shows: string[] | undefined,
  timeoutMs: number,
  log: (m: string) => void,
) {
  for (let attempt = 1; ; attempt++) {
    await frame.locator(selector).first().click({ timeout: timeoutMs });
    if (!shows?.length) return;
    const taken = frame.locator(shows.join(', ')).first();
    if (
      await taken.waitFor({ state: 'visible', timeout: 3_000 }).then(
        () => true,
        () => false,
      )
    )
      return;
    if (attempt === 3)
      throw new Error(`the webview showed none of ${JSON.stringify(shows)} after three clicks on ${selector}`);
    log(
      `webview: the click on ${selector} showed none of ${JSON.stringify(shows)}; clicking again (attempt ${attempt + 1})`,
    );
  }
}

/** Drags the sash on the sidebar's right edge until the sidebar is `width` px wide. */
async function widenSidebar(page: Page, width: number) {
  const box = await page.locator('.part.sidebar').first().boundingBox();
  if (!box || box.width >= width) return;
  const y = box.y + box.height / 2;
  await page.mouse.move(box.x + box.width, y);
  await page.mouse.down();
  await page.mouse.move(box.x + width, y, { steps: 5 });
  await page.mouse.up();
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
