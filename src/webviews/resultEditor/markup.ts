// The result.md preview's page markup (the host wraps it in webviewPage's shell). No vscode here:
// the accessibility unit test reads it (every control labelled).
export const RESULT_EDITOR_BODY = `<header class="bar">
  <div class="heading"><strong>Card preview</strong> <span id="status" class="status" aria-live="polite">Connecting…</span></div>
  <div class="actions">
    <button id="openAsText" class="secondary" type="button" title="Reopen result.md in the text editor" aria-label="Reopen result.md in the text editor">Open as Text</button>
    <button id="submit" type="button" disabled title="Save result.md and import these cards into the study set" aria-label="Submit: save result.md and import these cards into the study set">Submit</button>
  </div>
</header>
<section id="message" class="message" role="status" hidden></section>
<section id="receipt" class="receipt" hidden></section>
<section id="summary" class="summary" hidden></section>
<section id="problems" class="problems" hidden></section>
<section id="tree" class="tree" aria-label="Card tree as it will import"></section>`;
