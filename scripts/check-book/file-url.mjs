#!/usr/bin/env node
// Checks a rendered book opened from disk (file://), as an attendee of a workshop with no
// network opens the offline kit's book (scripts/offline-kit --test runs it):
//
//   node scripts/check-book/file-url.mjs <book-html-dir>
//
// It opens the title page, the introduction, three pages of part 1 with mermaid diagrams
// and the workshop appendix, and requires: no console error or uncaught exception, no request
// for anything but file:// (any other request is blocked and reported), every mermaid
// block rendered to an SVG, and mdBook's search answering from disk. Exit 1 on failure.
//
// Environment: CHROMIUM_PATH (default /usr/bin/chromium).

import { chromium } from 'playwright-core';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const root = path.resolve(process.argv[2] || 'book/html');
const pages = ['index.html', 'introduction.html', 'part1/01-futures.html', 'part1/02-combinators.html',
  'part1/03-tasks.html', 'appendix/workshop.html'].filter((rel) => fs.existsSync(path.join(root, rel)));
const problems = [];
let diagrams = 0;
let searchResults = 0;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  const context = await browser.newContext();
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('file:')) return route.continue();
    problems.push(`request for ${url} (blocked: the book must work with no network)`);
    return route.abort();
  });
  for (const rel of pages) {
    const page = await context.newPage();
    page.on('console', (m) => { if (m.type() === 'error') problems.push(`${rel}: console error: ${m.text()}`); });
    page.on('pageerror', (e) => problems.push(`${rel}: uncaught ${e.message}`));
    await page.goto(pathToFileURL(path.join(root, rel)).href, { waitUntil: 'load' });
    const blocks = await page.locator('pre.mermaid').count();
    if (blocks > 0) {
      try {
        await page.waitForFunction((n) => document.querySelectorAll('pre.mermaid svg').length >= n,
          blocks, { timeout: 15_000 });
      } catch {
        problems.push(`${rel}: ${blocks} mermaid blocks, not all rendered to SVG`);
      }
      diagrams += blocks;
    }
    if (rel === 'introduction.html') {
      await page.locator('#mdbook-search-toggle, #search-toggle').first().click();
      await page.locator('#mdbook-searchbar, #searchbar').first().pressSequentially('structured concurrency', { delay: 20 });
      const results = page.locator('#mdbook-searchresults li, #searchresults li');
      await results.first().waitFor({ state: 'attached', timeout: 10_000 }).catch(() => {});
      searchResults = await results.count();
      if (searchResults === 0) problems.push('search found nothing for "structured concurrency" from disk');
    }
    await page.close();
  }
} finally {
  await browser.close();
}
for (const p of problems) console.log(`FAIL ${p}`);
console.log(`book-from-disk: ${pages.length} pages from file://, ${diagrams} diagrams rendered, ${searchResults} search results: ${problems.length ? 'FAILED' : 'ok'}`);
process.exit(problems.length ? 1 : 0);
