/// <reference lib="dom" />
import { rangeStats } from './bookRange';
import type { OpenPhases } from './protocol';

/**
 * Adds to the first page's figures where the time before it went: the document's HTML and VS Code's navigation,
 * each of the page's scripts and stylesheets, the book's ranges read. `started`: performance.now() at boot.ts.
 */
export function addLoadPhases(phases: OpenPhases, started: number): void {
  const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
  phases.html = Math.round(nav?.responseEnd ?? 0) - Math.round(started);
  // Diagnostic (ms from the document's start): where VS Code's fake.html navigation waited.
  if (nav)
    phases.nav = {
      worker: Math.round(nav.workerStart),
      fetch: Math.round(nav.fetchStart),
      request: Math.round(nav.requestStart),
      response: Math.round(nav.responseStart),
      end: Math.round(nav.responseEnd),
      domContentLoaded: Math.round(nav.domContentLoadedEventStart),
    };
  phases.loaded = Object.fromEntries(
    (performance.getEntriesByType('resource') as PerformanceResourceTiming[])
      .filter((e) => /\.(css|js)$/.test(e.name))
      .map((e) => [e.name.split('/').pop() ?? e.name, Math.round(e.responseEnd - started)]),
  );
  phases.ranges = rangeStats.requests;
  phases.rangeMeanMs = rangeStats.requests ? Math.round(rangeStats.totalMs / rangeStats.requests) : 0;
}
