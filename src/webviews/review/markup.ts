// The review panel's page markup (the host wraps it in webviewPage's shell). No vscode here:
// the accessibility unit test reads it (every control labelled).
export const REVIEW_BODY = `<header class="bar">
  <strong id="deck" class="deck">Review</strong>
  <span id="progress" class="progress" aria-live="polite"></span>
  <span id="counts" class="counts" title="New · learning · review cards left" aria-label="New, learning and review cards left"></span>
</header>
<main id="review" class="stage" tabindex="-1" aria-label="Review card. Space or Enter shows the answer; 1 to 4 grade it; O opens an excerpt's page">
  <section id="message" class="message" role="status" hidden></section>
  <section id="card" class="card" hidden>
    <div id="question" class="question"></div>
    <hr id="divider" class="divider" hidden>
    <div id="answer" class="answer" hidden></div>
  </section>
  <section id="summary" class="summary" hidden></section>
</main>
<footer id="actions" class="actions">
  <button id="show" type="button" hidden title="Show the answer (Space)" aria-label="Show the answer (Space)">Show answer <kbd>Space</kbd></button>
  <div id="grades" class="grades" role="group" aria-label="Grade this card" hidden>
    <button type="button" class="grade again" data-rating="again" title="Again (1)" aria-label="Grade Again (1)"><span class="interval"></span><span class="label">Again</span><kbd>1</kbd></button>
    <button type="button" class="grade hard" data-rating="hard" title="Hard (2)" aria-label="Grade Hard (2)"><span class="interval"></span><span class="label">Hard</span><kbd>2</kbd></button>
    <button type="button" class="grade good" data-rating="good" title="Good (3)" aria-label="Grade Good (3)"><span class="interval"></span><span class="label">Good</span><kbd>3</kbd></button>
    <button type="button" class="grade easy" data-rating="easy" title="Easy (4)" aria-label="Grade Easy (4)"><span class="interval"></span><span class="label">Easy</span><kbd>4</kbd></button>
  </div>
</footer>`;
