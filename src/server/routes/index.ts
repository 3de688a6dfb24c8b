import type { RouteDecl } from '../http/routeTable';
import { studySetRoutes } from './studySets';
import { systemRoutes } from './system';
import { documentRoutes } from './documents';
import { libraryDocumentRoutes } from './libraryDocuments';
import { searchRoutes } from './search';
import { deckRoutes } from './decks';

/** The route table: every route the bridge serves, each declared once in its module. */
export const allRoutes: readonly RouteDecl[] = [...systemRoutes, ...studySetRoutes, ...documentRoutes, ...libraryDocumentRoutes, ...searchRoutes, ...deckRoutes];
