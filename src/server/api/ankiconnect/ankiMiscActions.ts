import type { ActionDecl } from './ankiActionTypes';
import { AnkiError } from './ankiError';
import { createModel, modelByName } from './ankiModels';

/**
 * AnkiConnect's note-type, media and housekeeping actions: the note types
 * (Basic, Cloze and those made by createModel) with their templates and
 * styling, the media folder's names and removal, and sync (the library is
 * local: nothing to do).
 */

export const MISC_ACTIONS: Record<string, ActionDecl> = {
  modelStyling: { scope: 'read', run: (p, ctx) => ({ css: modelByName(ctx.store, p.modelName).css }) },
  modelTemplates: {
    scope: 'read',
    run: (p, ctx) =>
      Object.fromEntries(
        modelByName(ctx.store, p.modelName).templates.map((t) => [t.name, { Front: t.qfmt, Back: t.afmt }]),
      ),
  },
  createModel: { scope: 'write', run: (p, ctx) => createModel(ctx.store, p) },
  getMediaFilesNames: {
    scope: 'read',
    run: (p, ctx) => ctx.media.names(typeof p.pattern === 'string' ? p.pattern : '*'),
  },
  deleteMediaFile: {
    scope: 'write',
    run: async (p, ctx) => {
      if (typeof p.filename !== 'string') throw new AnkiError('filename must be a string');
      await ctx.media.remove(p.filename);
      return null;
    },
  },
  sync: { scope: 'read', run: () => 'not needed: the library is local' },
};
