/** Shell scripts served by GET /install (piped into `sh` by the user). */

const SKILL_EOF = 'STUDY_BRIDGE_SKILL_EOF';

/** The MCP line for Claude Code; reads the token from its file so it never lands in shell history. */
export const claudeMcpCommand = (baseUrl: string, tokenExpr = '$(cat ~/.config/study-bridge/token)') =>
  `claude mcp add --transport http study-bridge ${baseUrl}/mcp --header "Authorization: Bearer ${tokenExpr}"`;

export const installCommand = (baseUrl: string, code: string) => `curl -sSL '${baseUrl}/install?code=${code}' | sh`;

/** The workflow people install the skill for; the guide below repeats it with every route. */
const SPLIT_A_BOOK = `## Split a book into cards (the main workflow)
1. Find the chapters: \`GET /documents/{bookmd5}/outline\` (PDF page order, never printed page numbers); the study set must be
   a study set (\`GET /library/study-sets\`), never a review deck.
2. Probe one or two pages with \`GET /documents/{id}/pages?start=N&end=N&blocks=1\`. Prose → preset \`book-breakdown\`,
   anchorMode \`page_text\`; exams → \`exam-general\` + \`block\`; scanned or formula-dense pages → \`block\`.
3. \`POST /bundles/prepare {"topicid","bookmd5","segments":[{"startPage","endPage"}],"preset","anchorMode","async":true}\`
   (≤ 60 actual pages; async above 10). \`warnings\` → discard and prepare again with the right pairing. 429 → wait
   \`retryAfterSeconds\`, do not re-send at once.
4. Poll \`GET /bundles\` every ~15 s until \`state:"prepared"\`; only then read \`TASK.md\`, \`OUTPUT-CONTRACT.md\`, \`source.json\`.
5. Write \`result.md\`: ≤ 6 heading levels, \`[excerpt: …]\` copied verbatim (never paraphrased), \`[block: b_<page>_<seq>]\` in
   block mode. \`## [[Title]]\` merges into that card; it is never a link.
6. \`POST /bundles/{id}/check\` until no problems and every excerpt is anchored (it writes nothing; submit is not a test).
7. \`POST /bundles/{id}/submit\` once. Check \`parsed.headings == parsed.importedCards\` and
   \`parsed.excerptsTotal == parsed.excerptsAnchored\` (else \`failedExcerpts\` gives line and reason) and tell the user.
   409 \`SUBMIT_IN_FLIGHT\`: do not retry; read \`GET /bundles\`. Submitting again replaces the imported tree.
8. \`POST /bundles/{id}/discard\` when done: the folder goes, the cards stay.
`;

export function skillMarkdown(guideMarkdown: string, baseUrl: string): string {
  return `---
name: study-bridge
description: Read and edit the user's study library (PDF books, study sets of cards, review decks, book-splitting bundles) through the local Study Bridge HTTP API at ${baseUrl}. Use when the user mentions their books, study sets, cards, decks or "this page".
---

Token: \`~/.config/study-bridge/token\` (send \`Authorization: Bearer <token>\`). Base URL: \`${baseUrl}\`.
Before acting, check \`GET /status\`; when its \`guide.sha256\` differs from the one below, read \`GET /guide\` again.

${SPLIT_A_BOOK}
${guideMarkdown}`;
}

export function installScript(opts: { token: string; baseUrl: string; guideMarkdown: string }): string {
  const skill = skillMarkdown(opts.guideMarkdown, opts.baseUrl);
  if (skill.includes(SKILL_EOF)) throw new Error('guide contains the heredoc terminator');
  return `#!/bin/sh
# Study Bridge agent setup: writes the bridge token, installs the agent skill, suggests MCP.
set -eu
umask 077
TOKEN='${opts.token}'
BASE_URL='${opts.baseUrl}'
CONF="$HOME/.config/study-bridge"
mkdir -p "$CONF"
printf '%s\\n' "$TOKEN" > "$CONF/token"
chmod 600 "$CONF/token"
printf '%s\\n' "$BASE_URL" > "$CONF/base-url"
for dir in "$HOME/.claude/skills/study-bridge" "$HOME/.agents/skills/study-bridge"; do
  mkdir -p "$dir"
  cat > "$dir/SKILL.md" <<'${SKILL_EOF}'
${skill}
${SKILL_EOF}
done
echo "Study Bridge: token written to $CONF/token (mode 600)."
echo "Skill installed in ~/.claude/skills/study-bridge and ~/.agents/skills/study-bridge."
echo "Optional: connect Claude Code over MCP with"
echo '  ${claudeMcpCommand(opts.baseUrl)}'
`;
}

export function expiredInstallScript(): string {
  return `#!/bin/sh
echo "Study Bridge: this install code is invalid, already used or expired." >&2
echo "Install codes work once and last 10 minutes. Make a new one in VS Code (Study Bridge: Connect an agent...)" >&2
echo "or with: study-bridge install-code" >&2
exit 1
`;
}
