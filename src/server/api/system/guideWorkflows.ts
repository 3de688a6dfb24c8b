/**
 * The guide's workflows. Each step is a literal request in one code span:
 * `METHOD /path?query {json body}`, `<name>` standing for the field `name` of
 * an earlier answer. The unit test guideLiterals.test.ts parses every such
 * span and validates it against its route's declared schemas, so a renamed
 * field fails a test instead of misleading an agent. `<<proof METHOD /path>>`
 * is replaced by the route's proof field (routeProof.ts), `<<importFolders>>` by
 * the folders this bridge imports from by path (guide.ts).
 */

export interface Workflow {
  /** study_guide's topic; `aliases` are the topic names of earlier guides, still answered. */
  topic: string;
  aliases: readonly string[];
  title: string;
  /** Served only when the bridge declares every one of these paths. */
  needs: readonly string[];
  text: string;
}

const read = `1. \`GET /search?q=drawing%20commands&scope=documents\` → \`documents[].bookmd5\` and its best \`pages\`; or
   \`GET /library/study-sets\` → \`GET /study-sets/<topicid>/documents\`.
2. \`GET /documents/<bookmd5>/outline\` → \`segments[]\` {title, startPage, level}, \`extraction.state\`.
3. \`GET /documents/<bookmd5>/pages?start=19&end=21\` → \`pages[].text\` (≤ 60 pages a call; \`&blocks=1\` adds blocks).
   A page not read yet: 409 \`EXTRACTION_IN_PROGRESS\` (retryable).
`;

const upload = `1. \`POST /library/study-sets {"title":"Asymptote","confirm":true}\` → \`topicid\`, <<proof POST /library/study-sets>>.
2. \`POST /library/documents/upload?filename=asymptote.pdf&topicid=<topicid>&confirm=1\` with the PDF's bytes as the body
   (MCP: \`bodyBase64\`) → \`bookmd5\`, \`created\`, \`addedToStudySet\`. A PDF in <<importFolders>>:
   \`POST /library/documents/import {"path":"~/Downloads/asymptote.pdf","topicid":"<topicid>","confirm":true}\`;
   else upload the bytes.
`;

const split = `1. Pick chapters from the outline. Prepare ≤ 60 pages (\`async\` above 10; 429 \`PREPARE_BUSY\`: wait):
   \`POST /bundles/prepare {"topicid":"<topicid>","bookmd5":"<bookmd5>","segments":[{"startPage":19,"endPage":26}],"preset":"book-breakdown","anchorMode":"page_text","async":true}\`
   → 202 \`bundleId\`, \`bundlePath\`. Scans, formulas, exams: \`"anchorMode":"block"\` (exams \`"preset":"exam-general"\`).
2. \`GET /bundles\` every 15 s until its \`state\` is \`prepared\`.
3. Read \`GET /bundles/<bundleId>/files?path=source.json\` (the pages' text; also \`TASK.md\`, \`OUTPUT-CONTRACT.md\`).
4. Write \`result.md\`, starting from the draft there: \`#\`…\`######\` headings = cards, one per concept; under each,
   \`[excerpt: …]\` quoting the page verbatim (never paraphrased). Same machine: write the file \`<bundlePath>/result.md\`;
   else send its text as \`resultMarkdown\` in check and submit.
5. \`POST /bundles/<bundleId>/check {"excerptMode":"child"}\` writes nothing: fix \`problems\` and unanchored
   \`excerpts\` until \`ok\`. \`cardsCreated\` = the cards submit will make. excerptMode \`child\` (default, one card per
   concept): each excerpt becomes its own card under its heading's card; \`link\` (always, in block mode): excerpts go into that card.
6. \`POST /bundles/<bundleId>/submit {"excerptMode":"child"}\` commits at once (snapshot first: \`preImportSnapshotId\`) →
   \`cardsCreated\`, \`rootNoteId\`, \`receipt[].noteid\`. Lost cards: \`parsed.headings\` ≠ \`importedCards\`; see \`failedExcerpts\`.
   409 \`SUBMIT_IN_FLIGHT\`: do not retry. Submitting again replaces the tree.
`;

const cards = `1. \`GET /study-sets/<topicid>/tree\` → \`nodes[]\` {noteid, parent, title}; \`POST /notes/batch-get {"noteIds":["<noteid>"]}\`
   → \`texts[]\` (sparse: 0 body, 1.. comments).
2. \`POST /study-sets/<topicid>/notes {"title":"Pens","text":"What a pen holds.","excerpt":{"bookmd5":"<bookmd5>","page":19,"text":"<a sentence of that page, verbatim>"},"confirm":true}\`
   → <<proof POST /study-sets/{id}/notes>>, \`noteid\`. Many at once: \`{"cards":[{"title":"Pens"},{"title":"Width","parentIndex":0}],"confirm":true}\`.
`;

const edit = `1. \`POST /study-sets/<topicid>/snapshots {"description":"Before renaming"}\` → \`snapshotId\`.
2. \`POST /notes/<noteid>/title {"text":"Pens and pictures","expectedPrefix":"Pens","confirm":true}\`: \`expectedPrefix\` = the first
   32 characters you read (\`""\` if empty); 409 when the card changed since. Body text: the same at \`/notes/<noteid>/text\`.
   Tags only via \`POST /notes/hashtags {"noteIds":["<noteid>"],"operation":"add","hashtags":["Graphics/Pens"],"confirm":true}\`.
3. Undo: \`POST /snapshots/<snapshotId>/restore {}\` previews (422 \`details\`), then \`{"confirm":true}\`. 409
   \`USER_EDITS_PRESENT\` lists the person's edits: \`"force":true\` only with their consent.
`;

const decks = `1. \`POST /decks {"title":"Asymptote review","confirm":true}\` → \`deckId\`, <<proof POST /decks>>.
2. \`POST /decks/<deckId>/cards {"cards":[{"sourceNoteId":"<noteid>"}],"confirm":true}\` → <<proof POST /decks/{id}/cards>>
   (\`"question":"A pen holds {{cloze}}"\` for a cloze). Adding a card again reschedules it.
3. \`GET /decks/<deckId>\` → \`cardCount\`, \`counts\`/\`due\` by state, \`nextDueAt\`.
   \`GET /decks/<deckId>/due\` → \`cards[]\` in review order: ask \`question.text\`, reveal \`answer\`. Due by a date, in
   the order added: \`GET /decks/<deckId>/due?until=2030-01-31\`.
4. \`POST /decks/<deckId>/reviews {"cardNoteId":"<cardNoteId>","rating":"good","confirm":true}\` (again|hard|good|easy; let the
   person choose) → <<proof POST /decks/{id}/reviews>>, \`due\`, \`reviewLogId\`.
`;

const search = `1. \`GET /search?q=pen&scope=notes\` → \`notes[]\` {noteid, topicid, snippet}; \`scope\`: all|notes|studysets|documents.
   \`truncated:true\` is not "nothing more": narrow the query.
`;

export const WORKFLOWS: readonly Workflow[] = [
  { topic: 'read', aliases: ['find'], title: 'Read a book', needs: ['/documents/{id}/pages'], text: read },
  {
    topic: 'upload',
    aliases: ['study-set'],
    title: 'New study set, add a book',
    needs: ['/library/documents/upload'],
    text: upload,
  },
  { topic: 'bundles', aliases: ['split'], title: 'Split a book into cards', needs: ['/bundles/prepare'], text: split },
  {
    topic: 'cards',
    aliases: [],
    title: 'Read and make cards',
    needs: ['/study-sets/{id}/notes', '/notes/batch-get'],
    text: cards,
  },
  {
    topic: 'edit',
    aliases: ['snapshots'],
    title: 'Edit cards safely',
    needs: ['/notes/{id}/title', '/snapshots/{id}/restore'],
    text: edit,
  },
  {
    topic: 'decks',
    aliases: [],
    title: 'Make and review a deck',
    needs: ['/decks/{id}/cards', '/decks/{id}/due'],
    text: decks,
  },
  { topic: 'search', aliases: [], title: 'Search', needs: ['/search'], text: search },
];
