import { describeDrift, installResponseCheck, takeDrifts } from './responseCheck';

/**
 * Mocha root hook plugin (registered in .mocharc.json `require`): every JSON
 * success body the API tests receive is checked against its route's declared
 * response schema for the whole run.
 */
installResponseCheck();

export const mochaHooks = {
  afterEach(this: Mocha.Context) {
    const drifts = takeDrifts();
    if (drifts.length) throw new Error(drifts.map(describeDrift).join('\n'));
  },
};
