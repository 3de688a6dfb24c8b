// The feature blocks of GET /capabilities (capabilities.ts): each one is described
// only when its route is served, so a bridge built with fewer routes says less.
import type { BridgeLimits } from '../../config';
import { FILL_INDEX_SEMANTICS } from '../../domain/cards/notePalette';
import { MAX_OUTLINE_CARDS, MAX_OUTLINE_DEPTH } from '../../domain/mindmap/outlineImport';
import { MARKUP_KINDS, MAX_IMPORT_CARDS, NOTE_KINDS } from '../../domain/annotations/annotationPlan';

/** Which routes are served: `served` asks, `feature` gives the block only when its route is. */
export interface Served {
  served: (method: string, path: string) => boolean;
  feature: <T>(method: string, path: string, value: T) => T | undefined;
}

/** Writing cards: create, metadata, copy, hashtags. */
export function noteFeatures({ feature }: Served) {
  return {
    fillIndexSemantics: FILL_INDEX_SEMANTICS,
    noteCreate: feature('POST', '/study-sets/{id}/notes', {
      route: '/study-sets/{id}/notes',
      parentDefault: 'root_card',
      excerptAnchoring:
        'token alignment on the stored page text (one rect per line in sourceAnchor.rects), like POST /documents/{id}/locate',
    }),
    noteMetadata: feature('POST', '/notes/metadata', {
      maxNoteIds: 200,
      colorIndex: '0..15',
      fillIndex: [-1, 0, 1, 2],
      persistedMeans: 'independent_read_back_agreed',
      palette: { route: '/study-sets/{id}/note-palette' },
    }),
    noteCopy: feature('POST', '/notes/copy', {
      modes: ['reference', 'clone'],
      scope: 'selected_roots_and_all_mind_map_descendants',
      target: 'existing_parent_card',
      maxSourceRoots: 50,
    }),
    noteHashtags: feature('POST', '/notes/hashtags', {
      operations: ['add', 'remove', 'replace'],
      storedValue: 'one_complete_leaf_path',
      hierarchySeparator: '/',
      maxNoteIds: 200,
      maxHashtags: 100,
      removeDefault: 'exact_full_path',
      recursiveRemoveFlag: 'includeDescendants',
      writeRoute: '/notes/hashtags',
      misuseCode: 'HASHTAG_ROUTE_REQUIRED',
    }),
  };
}

/** Review decks: their cards, the scheduler, reviews. */
export function deckFeatures({ served, feature }: Served) {
  return {
    reviewDeckCards: feature('POST', '/decks/{id}/cards', {
      questionModes: ['automatic', 'custom_text', 'content_part'],
      customTextField: 'question',
      contentSelectorField: 'questionContentId',
      route: '/decks/{id}/cards',
      maxCards: 50,
      scheduler: 'FSRS (ts-fsrs, default parameters)',
      dueRoute: served('GET', '/decks/{id}/due') ? '/decks/{id}/due' : undefined,
      reviewRoute: served('POST', '/decks/{id}/reviews') ? '/decks/{id}/reviews' : undefined,
      reviewLogRoute: served('GET', '/decks/{id}/reviews') ? '/decks/{id}/reviews' : undefined,
      reviewBody: ['cardNoteId', 'rating', 'reviewedAt', 'durationMs'],
      ratings: ['again', 'hard', 'good', 'easy'],
      ratingNumbers: { again: 1, hard: 2, good: 3, easy: 4 },
      clozeMask: '[…]',
      reviewOrder: ['learning', 'review', 'new'],
      nextIntervalsField: 'nextIntervals',
    }),
  };
}

/** Pictures of cards: image occlusions and rendering. */
export function cardImageFeatures({ feature }: Served) {
  return {
    imageOcclusions: feature('POST', '/notes/{id}/image-occlusions', {
      coordinateSpace: 'normalized_top_left',
      operations: ['add', 'replace'],
      maxMasks: 200,
      nativeStorage: 'note_parts.data.occlusion',
      requiresDryRun: true,
      fingerprints: ['expectedSourceFingerprint', 'expectedMaskFingerprint'],
    }),
    noteImages: feature('GET', '/notes/{id}/render', {
      maxEdge: [64, 4096],
      maxEdgeDefault: 2048,
      renderWidth: [320, 1200],
      renderMaxPixels: 36_000_000,
      formats: ['png', 'pdf'],
    }),
  };
}

/** Whole study sets: printing, outlines, PDF annotations, sync, snapshots. */
export function studySetFeatures({ served, feature }: Served) {
  return {
    mindMapPrint: feature('POST', '/study-sets/{id}/mind-map-print/preview', {
      schema: 'study-bridge.mindMapPrintPlan.v0',
      routes: { preview: '/study-sets/{id}/mind-map-print/preview', export: '/study-sets/{id}/mind-map-print/export' },
      modes: ['keepStructure', 'classic', 'cardFlow'],
      densityValue: { min: 0, max: 1 },
      requiresMax: false,
      outputFolder: 'MindMapExports',
      sharesBusyWith: 'POST /documents/{id}/export (429 EXPORT_BUSY)',
    }),
    outlineExchange: feature('GET', '/study-sets/{id}/outline', {
      formats: ['opml', 'md'],
      importRoute: served('POST', '/library/study-sets/import') ? '/library/study-sets/import' : undefined,
      opmlFields: { text: 'title', _note: 'texts, blank-line separated', _page: "an excerpt's page" },
      maxImportCards: MAX_OUTLINE_CARDS,
      maxImportDepth: MAX_OUTLINE_DEPTH,
    }),
    pdfAnnotations: feature('POST', '/documents/{id}/annotations/import', {
      excerptKinds: [...MARKUP_KINDS],
      noteKinds: [...NOTE_KINDS],
      skipped: 'Ink and other kinds, each with a reason',
      importKey: 'page + rectangles (within 1 pt): importing again creates nothing',
      maxImportCards: MAX_IMPORT_CARDS,
      exportRoute: served('GET', '/study-sets/{id}/annotated-pdf') ? '/study-sets/{id}/annotated-pdf' : undefined,
    }),
    legacySync: feature('GET', '/sync/legacy/events', {
      lanes: ['documents'],
      inventoryObserveOnly: true,
      inventoryAuthoritative: false,
      eventsLimit: [1, 200],
      observes: 'library files changed, removed or added behind the bridge, and recheck results',
    }),
    snapshots: feature('POST', '/snapshots/{id}/restore', {
      descriptionPrefix: 'Agent:',
      reuseWhenUnchanged: true,
      restoreCovers: 'cards of the set; not document tables of contents',
    }),
  };
}

/** Sizes an agent plans around; the configurable ones from the bridge's limits. */
export function capabilityLimits(limits: BridgeLimits) {
  return {
    pagesPerCall: 60,
    preparePagesMax: 60,
    batchGetMax: 200,
    hashtagsMetadataFoldMax: 200,
    moveCopyDeleteMax: 50,
    deckCardsMax: 50,
    treeTitleChars: 64,
    tocLevels: [0, 7],
    virtualPageFrom: 66000,
    jsonBodyBytes: limits.jsonBodyBytes,
    uploadBytes: limits.uploadBytes,
    maxPages: limits.maxPages,
    installCodeSeconds: limits.installCodeMs / 1000,
    pairCodeSeconds: limits.pairCodeMs / 1000,
    pairAttempts: limits.pairAttempts,
  };
}
