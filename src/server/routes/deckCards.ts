import type { RouteDecl } from '../http/routeTable';

/** Routes: review cards of decks (FSRS) and deck open. */
export const deckCardRoutes: RouteDecl[] = [];
