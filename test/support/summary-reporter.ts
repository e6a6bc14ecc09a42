import type { Reporter, TestModule } from 'vitest/node';

/**
 * Ends the run with the plain `N passed, N failed` line that CI reads in any language, after vitest's own
 * summary (whose colours and layout are not meant for machines).
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
      // A file that failed to load has no tests to count but is a failure all the same.
      if (module.state() === 'failed' && [...module.children.allTests()].length === 0) failed++;
    }
    process.stdout.write(
      `\ntests: ${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}\n`,
    );
  }
}
