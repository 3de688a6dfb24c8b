/** Shell scripts served by GET /install (piped into `sh` by the user). */

const SKILL_EOF = 'STUDY_BRIDGE_SKILL_EOF';

/** The MCP line for Claude Code; reads the token from its file so it never lands in shell history. */
export const claudeMcpCommand = (baseUrl: string, tokenExpr = '$(cat ~/.config/study-bridge/token)') =>
  `claude mcp add --transport http study-bridge ${baseUrl}/mcp --header "Authorization: Bearer ${tokenExpr}"`;

export const installCommand = (baseUrl: string, code: string) => `curl -sSL '${baseUrl}/install?code=${code}' | sh`;

export function skillMarkdown(guideMarkdown: string, baseUrl: string): string {
  return `---
name: study-bridge
description: Read and edit the user's study library (PDF books, study sets of cards, review decks, book-splitting bundles) through the local Study Bridge HTTP API at ${baseUrl}. Use when the user mentions their books, study sets, cards, decks or "this page".
---

Token: \`~/.config/study-bridge/token\` (send \`Authorization: Bearer <token>\`). Base URL: \`${baseUrl}\`.
Before acting, check \`GET /status\`; when its \`guide.sha256\` differs from the one below, read \`GET /guide\` again.

The guide below gives each workflow (read a book, split it into cards, decks, edits, search) as literal requests.

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
