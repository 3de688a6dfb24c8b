// The PDF reader's page markup (the host wraps it in webviewPage's shell). No vscode here:
// the accessibility unit test reads it (every control labelled).

/** `menuContext`: the viewer's data-vscode-context, already escaped for an attribute; `opening`: openingStage's markup. */
export function readerBody(menuContext: string, opening = ''): string {
  return `<header class="toolbar" role="toolbar" aria-label="Reader">
  <button id="outlineToggle" type="button" class="icon" title="Outline" aria-label="Outline" aria-controls="outline" aria-pressed="false">☰</button>
  <span id="title" class="title">Loading…</span><span id="setTitle" class="set-title"></span>
  <span class="spacer"></span>
  <span class="group"><input id="pageInput" class="page-input" type="number" min="1" value="1" aria-label="Page"><span id="pageCount" class="muted"></span></span>
  <span class="group">
    <button id="zoomOut" type="button" class="icon" title="Zoom out (Ctrl/Cmd -)" aria-label="Zoom out">−</button>
    <span id="zoomLabel" class="zoom-label" aria-live="polite">100%</span>
    <button id="zoomIn" type="button" class="icon" title="Zoom in (Ctrl/Cmd +)" aria-label="Zoom in">+</button>
    <button id="fitWidth" type="button" class="secondary" title="Fit the page width (Ctrl/Cmd 0)" aria-label="Fit the page width">Fit</button>
  </span>
  <span class="group find">
    <input id="findInput" type="search" placeholder="Find in book" aria-label="Find in book">
    <button id="findPrev" type="button" class="icon" title="Previous match (Shift+Enter)" aria-label="Previous match">↑</button>
    <button id="findNext" type="button" class="icon" title="Next match (Enter)" aria-label="Next match">↓</button>
    <span id="findCount" class="muted" aria-live="polite"></span>
  </span>
  <button id="pageTone" type="button" class="secondary" aria-label="Page colours: Auto">◐ Auto</button>
  <button id="makeCard" type="button" title="Make a card of the selected text (Ctrl+Alt+M)" aria-label="Make a card of the selected text" disabled>Make card</button>
</header>
<main class="reader">
  <nav id="outline" class="outline" aria-label="Outline"><div id="outlineList"></div></nav>
  <div id="viewerContainer" class="viewer-container" tabindex="0" aria-label="Book pages" data-vscode-context="${menuContext}"><div id="viewer" class="pdfViewer"></div></div>${opening}
</main>
<div id="notice" class="notice" role="status" aria-live="polite" hidden></div>`;
}

/** The opening picture's size and place, as pdf.js will lay out its page (`scale`: pdf.js's scale value). */
export interface OpeningPicture {
  page: number;
  widthPt: number;
  heightPt: number;
  scale: string | null;
  /** A data: URL in the first HTML, a blob: URL from the page's script. */
  src: string;
}

/**
 * The opening picture (openingImage.ts) in a box like the viewer's (media/pdfReader.css): at its top, centred,
 * fit-width 40 px narrower (pdf.js's padding), else at pdf.js's size (points × zoom × 4/3, rounded down).
 * No style attribute (the CSP has none inline): width and height attributes give the size, or the ratio.
 */
export function openingStage(p: OpeningPicture): string {
  const zoom = Number(p.scale);
  const fixed = Number.isFinite(zoom) && zoom > 0;
  const [w, h] = fixed
    ? [Math.floor((p.widthPt * zoom * 4) / 3), Math.floor((p.heightPt * zoom * 4) / 3)]
    : [Math.round(p.widthPt * 100), Math.round(p.heightPt * 100)];
  const src = p.src.replace(/"/g, '&quot;');
  return `<div id="openingStage" class="opening-stage" aria-hidden="true"><img id="openingPage" class="${fixed ? 'fixed' : 'fit-width'}" alt="" elementtiming="opening-page" data-page="${p.page}" width="${w}" height="${h}" src="${src}"></div>`;
}
