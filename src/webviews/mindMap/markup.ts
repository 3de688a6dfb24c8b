// The mind map's page markup (the host wraps it in webviewPage's shell). No vscode here:
// the accessibility unit test reads it (every control labelled).

/** `title`: the set's title, already escaped for HTML. */
export function mindMapBody(title: string): string {
  return `<header class="bar">
  <strong id="title">${title}</strong>
  <span id="status" class="status" aria-live="polite">Loading…</span>
  <span class="spacer"></span>
  <button id="fit" type="button" title="Fit the whole map into the panel" aria-label="Fit the whole map into the panel">Fit</button>
  <button id="refresh" type="button" title="Read the set again" aria-label="Read the set again">Refresh</button>
</header>
<div id="problem" class="problem" role="alert" hidden></div>
<svg id="map" class="map" role="group" aria-label="Mind map of ${title}. Tab moves between cards; Enter opens a card; the arrow keys right and left unfold and fold it"></svg>`;
}
