#!/usr/bin/env node
// Checks the room board's page in headless Chromium (labs/runner/tests/room.rs runs it
// against a room on 127.0.0.1 that five simulated attendees report to):
//
//   node scripts/check-book/room.mjs URL NAME LAB STATE [SCREENSHOT.png]
//
// It opens URL, requires no console error, no uncaught exception and no request that
// leaves the room's own address, and prints the board as the page shows it (one JSON
// line: every row's name and cells, the counts per lab, the issues, and how many <img>
// and <script> elements the board holds: HTML in a name must stay text). Then, without
// reloading, it waits up to 60 s for NAME's cell in LAB to reach STATE (the test makes
// that happen), and prints the board again. Exit 1 on any problem.
//
// Environment: CHROMIUM_PATH (default /usr/bin/chromium).

import { chromium } from 'playwright-core';

const [url, name, lab, state, screenshot] = process.argv.slice(2);
if (!url || !name || !lab || !state) {
  console.error('usage: room.mjs URL NAME LAB STATE [SCREENSHOT.png]');
  process.exit(2);
}
const origin = new URL(url).origin;
const problems = [];

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});

// The board as the page shows it.
function read() {
  const board = document.getElementById('board');
  const rows = [...board.querySelectorAll('table.grid tbody tr')].map((tr) => ({
    name: tr.querySelector('th .who').textContent,
    cells: Object.fromEntries([...tr.querySelectorAll('td.cell')].map((td) => [
      td.dataset.lab, { state: td.dataset.state, text: td.querySelector('.what').textContent }])),
  }));
  const counts = Object.fromEntries([...board.querySelectorAll('tr.counts td')].map((td) => [
    td.dataset.lab, { done: +td.dataset.done, working: +td.dataset.working, notStarted: +td.dataset.notStarted }]));
  const issues = [...board.querySelectorAll('.issues li')].map((li) => ({
    people: li.querySelector('.people').textContent,
    what: li.querySelector('.what').textContent,
    href: li.querySelector('a.page').getAttribute('href'),
  }));
  return {
    rows, counts, issues,
    images: board.querySelectorAll('img').length,
    scripts: document.querySelectorAll('script').length,
    live: document.getElementById('live').textContent,
    navigations: performance.getEntriesByType('navigation').length,
  };
}

try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
  await context.route('**/*', (route) => {
    const requested = route.request().url();
    if (requested.startsWith(origin + '/') || requested.startsWith('data:')) return route.continue();
    problems.push(`request for ${requested} (blocked: the room serves everything itself)`);
    return route.abort();
  });
  const page = await context.newPage();
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`uncaught ${e.message}`));
  let loads = 0;
  page.on('load', () => { loads += 1; });
  await page.goto(url, { waitUntil: 'load' });
  await page.locator('table.grid').waitFor({ timeout: 10_000 });
  console.log(JSON.stringify(await page.evaluate(read)));
  if (screenshot) await page.screenshot({ path: screenshot.replace(/\.png$/, '-before.png'), fullPage: true });

  try {
    await page.waitForFunction(([who, n, want]) => [...document.querySelectorAll('table.grid tbody tr')]
      .some((tr) => tr.querySelector('th .who').textContent === who
        && tr.querySelector(`td.cell[data-lab="${n}"]`)?.dataset.state === want),
    [name, lab, state], { timeout: 60_000, polling: 200 });
  } catch {
    problems.push(`${name}'s lab ${lab} did not turn ${state} on the page within 60 s`);
  }
  if (loads !== 1) problems.push(`the page loaded ${loads} times: live updates must not reload it`);
  console.log(JSON.stringify(await page.evaluate(read)));
  if (screenshot) await page.screenshot({ path: screenshot, fullPage: true });
} finally {
  await browser.close();
}
for (const p of problems) console.error(p);
process.exit(problems.length ? 1 : 0);
