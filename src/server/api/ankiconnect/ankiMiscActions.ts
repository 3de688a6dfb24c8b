import type { ActionDecl } from './ankiActionTypes';
import { AnkiError } from './ankiError';
import { isModel } from './ankiFields';

/**
 * AnkiConnect's note-type, media and housekeeping actions: the two note types
 * served (Basic, Cloze) with their templates and styling, the media folder's
 * names and removal, and sync (the library is local: nothing to do).
 */

const CSS =
  '.card {\n font-family: arial;\n font-size: 20px;\n text-align: center;\n color: black;\n background-color: white;\n}\n';
const TEMPLATES = {
  Basic: { 'Card 1': { Front: '{{Front}}', Back: '{{FrontSide}}\n\n<hr id=answer>\n\n{{Back}}' } },
  Cloze: { Cloze: { Front: '{{cloze:Text}}', Back: '{{cloze:Text}}<br>\n{{Back Extra}}' } },
};

function modelOf(p: Record<string, unknown>) {
  if (!isModel(p.modelName)) throw new AnkiError(`model was not found: ${String(p.modelName)}`);
  return p.modelName;
}

export const MISC_ACTIONS: Record<string, ActionDecl> = {
  modelStyling: { scope: 'read', run: (p) => (modelOf(p), { css: CSS }) },
  modelTemplates: { scope: 'read', run: (p) => TEMPLATES[modelOf(p)] },
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
