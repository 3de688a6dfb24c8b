import type { ApprovalService } from '../../domain/approvals/approvalService';
import type { Decks } from '../../domain/library/decks';
import type { Caller } from '../../domain/security/tokens';
import type { Scope } from '../../domain/security/scopes';
import type { UiHost } from '../../domain/ui/uiHost';
import type { Store } from '../../ground/store/store';
import type { AnkiMedia } from './ankiMedia';
import type { AnkiNotes } from './ankiNotes';

/** What an AnkiConnect action runs with, and how one is declared (the action tables import these). */

export interface ActionContext {
  store: Store;
  decks: Decks;
  ui: UiHost;
  notes: AnkiNotes;
  media: AnkiMedia;
  caller: Caller;
  /** The person's approvals (an agent's deleteNotes waits for them where the policy says so). */
  approvals?: Pick<ApprovalService, 'policy' | 'hold'>;
}

export interface ActionDecl {
  scope: Extract<Scope, 'read' | 'write'>;
  run(params: Record<string, unknown>, ctx: ActionContext): unknown;
}
