import { existsSync } from 'node:fs';
import { invalidInput } from '../../errors';
import { documentFileMissing } from '../library/documentCatalogue';
import { assertStudySet } from '../library/studySets';
import type { Store } from '../../ground/store/store';
import type { UiHost } from '../ui/uiHost';
import type { StudySets } from '../library/studySets';
import type { DocumentCatalogue } from '../library/documentCatalogue';
import type { StudySetDocuments } from './studySetDocuments';
import { getNote, type NoteRow } from './noteRows';

/** What opening a set reads and drives. */
interface Services {
  store: Store;
  ui: UiHost;
  studySets: StudySets;
  studySetDocuments: Pick<StudySetDocuments, 'list'>;
  documents: DocumentCatalogue;
}

/**
 * POST /study-sets/{id}/open: asks the UI to open the set with a document
 * (default its main one). A library document outside the set opens
 * temporarily (tempOpen:true); a document whose file is gone is refused
 * (422 DOCUMENT_FILE_MISSING) rather than opened blank. Asynchronous: the
 * outcome shows in GET /context.
 */
export async function openStudySet(services: Services, topicid: string, bookmd5?: string) {
  const set = services.studySets.get(topicid);
  const docs = services.studySetDocuments.list(topicid);
  const target = bookmd5 ?? docs.mainDocument ?? undefined;
  let tempOpen = false;
  if (target) {
    const member = docs.documents.find((d) => d.bookmd5 === target);
    let missing: boolean;
    if (member) missing = member.sourceState !== 'normal';
    else {
      missing = !existsSync(services.documents.filePath(services.documents.get(target)));
      tempOpen = true;
    }
    if (missing) {
      throw documentFileMissing(target, 'restore the file or open another document');
    }
  }
  await services.ui.open({ topicid, title: set.title, isDeck: false, bookmd5: target });
  return { accepted: true, topicid, bookmd5: target ?? null, tempOpen };
}

/**
 * POST /notes/{id}/focus: asks the UI to show the card. `topicid` picks the
 * set when the card is shown in several: the card's own set, or a set holding
 * a reference copy of it (or its original); any other set → 422 NOTE_NOT_IN_SET.
 */
export async function focusNote(services: Pick<Services, 'store' | 'ui'>, noteid: string, topicid?: string) {
  const { store } = services;
  const note = getNote(store, noteid);
  let target: NoteRow = note;
  if (topicid && topicid !== note.topicid) {
    assertStudySet(store, topicid);
    const alt = store.get<NoteRow>(
      'SELECT * FROM notes WHERE topicid = ? AND hidden = 0 AND (reference_of = ? OR noteid = ?) ORDER BY created_at, noteid LIMIT 1',
      [topicid, note.reference_of ?? note.noteid, note.reference_of ?? ''],
    );
    if (!alt)
      throw invalidInput(
        `Card ${noteid} is not shown in study set ${topicid} (it belongs to ${note.topicid}). Nothing was opened.`,
        { noteid, topicid, cardTopicid: note.topicid },
        'NOTE_NOT_IN_SET',
      );
    target = alt;
  }
  const topic = store.get<{ title: string; kind: string }>('SELECT title, kind FROM topics WHERE topicid = ?', [
    target.topicid,
  ]);
  await services.ui.open({
    topicid: target.topicid,
    title: topic?.title ?? '',
    isDeck: topic?.kind === 'deck',
    noteid: target.noteid,
  });
  return { accepted: true, noteid: target.noteid, topicid: target.topicid };
}
