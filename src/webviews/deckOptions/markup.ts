// The Deck Options page's markup (the host wraps it in webviewPage's shell). No vscode here:
// the accessibility unit test reads it (every control labelled). Each field has an error
// line under it (`err-<key>`), where the bridge's refusal of that field is shown.

const error = (key: string) => `<p id="err-${key}" class="field-error" role="alert" hidden></p>`;

/** A labelled number or text field. */
function field(key: string, label: string, hint: string, attrs: string): string {
  return `<div class="field">
    <label for="${key}">${label}</label>
    <input id="${key}" name="${key}" ${attrs} aria-label="${label}" aria-describedby="hint-${key} err-${key}">
    <span id="hint-${key}" class="hint">${hint}</span>
    ${error(key)}
  </div>`;
}

const checkbox = (key: string, label: string) => `<div class="field check">
    <input id="${key}" name="${key}" type="checkbox" aria-label="${label}">
    <label for="${key}">${label}</label>
    ${error(key)}
  </div>`;

const STEPS_HINT = 'minutes, hours or days, separated by spaces: 1m 10m 1h 2d';

export const DECK_OPTIONS_BODY = `<header class="bar">
  <strong id="deck" class="deck">Deck Options</strong>
  <span id="presetUse" class="hint" aria-live="polite"></span>
</header>
<main id="deckOptionsForm" class="form" aria-label="Deck options">
  <section class="group" aria-labelledby="presetHeading">
    <h2 id="presetHeading">Preset</h2>
    <div class="preset-row">
      <select id="preset" aria-label="Options preset this deck uses"></select>
      <button id="addPreset" type="button" class="secondary" aria-label="Add a preset with the default options">Add preset</button>
      <button id="clonePreset" type="button" class="secondary" aria-label="Clone the chosen preset">Clone preset</button>
    </div>
    ${field('name', 'Preset name', 'Renames the preset for every deck using it', 'type="text" maxlength="200"')}
  </section>
  <section class="group" aria-labelledby="limitsHeading">
    <h2 id="limitsHeading">Daily limits</h2>
    ${field('newPerDay', 'New cards/day', 'New cards introduced per study day', 'type="number" min="0" max="9999" step="1"')}
    ${field('reviewsPerDay', 'Maximum reviews/day', 'Review cards shown per study day', 'type="number" min="0" max="99999" step="1"')}
  </section>
  <section class="group" aria-labelledby="stepsHeading">
    <h2 id="stepsHeading">New cards and lapses</h2>
    ${field('learningSteps', 'Learning steps', STEPS_HINT, 'type="text" spellcheck="false"')}
    ${field('relearningSteps', 'Relearning steps', STEPS_HINT, 'type="text" spellcheck="false"')}
    ${field('leechThreshold', 'Leech threshold', 'Lapses that make a card a leech', 'type="number" min="1" max="99" step="1"')}
    <div class="field">
      <label for="leechAction">Leech action</label>
      <select id="leechAction" name="leechAction" aria-label="Leech action">
        <option value="tag">Tag only</option>
        <option value="suspend">Suspend card</option>
      </select>
      ${error('leechAction')}
    </div>
  </section>
  <section class="group" aria-labelledby="buryHeading">
    <h2 id="buryHeading">Burying</h2>
    ${checkbox('buryNewSiblings', 'Bury new siblings')}
    ${checkbox('buryReviewSiblings', 'Bury review siblings')}
    ${checkbox('buryInterdayLearningSiblings', 'Bury interday learning siblings')}
  </section>
  <section class="group" aria-labelledby="fsrsHeading">
    <h2 id="fsrsHeading">FSRS and the study day</h2>
    ${field('desiredRetention', 'Desired retention', 'Chance of recalling a card when it is due (0.70–0.99)', 'type="number" min="0.7" max="0.99" step="0.01"')}
    ${field('maximumInterval', 'Maximum interval (days)', 'Longest interval a card may get', 'type="number" min="1" max="36500" step="1"')}
    ${field('dayStartHour', 'Next day starts at (hour)', 'Local hour 0–23 at which a new study day begins', 'type="number" min="0" max="23" step="1"')}
  </section>
</main>
<footer class="actions">
  <section id="message" class="message" role="status" hidden></section>
  <button id="save" type="button" aria-label="Save the options and use this preset for the deck">Save</button>
</footer>`;
