import type { Context } from 'koa';
import type { BridgeServices } from '../../services';
import { asNoSpace, failedForSpace } from '../../ground/store/diskSpace';
import type { RouteDecl } from './routeTable';

/**
 * A full disk anywhere below a route's handler: the 507 gets the free bytes
 * of the data dir (what the error mapper cannot know), and /status reads the
 * disk again. Other errors pass unchanged.
 */
export function withNoSpaceAnswer(route: RouteDecl, services: BridgeServices, handle: (ctx: Context) => Promise<void>) {
  return async (ctx: Context) => {
    try {
      await handle(ctx);
    } catch (e) {
      if (!failedForSpace(e)) throw e;
      services.storage?.noteNoSpace();
      throw asNoSpace(e, `${route.method} ${route.path}`, services.config.dataDir);
    }
  };
}
