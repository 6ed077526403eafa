#!/usr/bin/env node
// check-book: checks the *rendered* mdBook in headless Chromium.
//
//   node scripts/check-book/check.mjs <book-output-dir> <path-to-src/SUMMARY.md>
//
// It serves <book-output-dir> on 127.0.0.1 (random port) with a tiny static
// HTTP server, opens index.html and every page listed in SUMMARY.md, and for
// each page checks that:
//   1. it loads with HTTP 200, throws no uncaught error and logs no console error;
//   2. every mermaid block (`pre.mermaid`) was rendered into an <svg> that is
//      not mermaid's "Syntax error" diagram;
//   3. every internal link (same origin) points at a file that exists in the
//      output folder, and its #fragment (if any) is an id/name in that file.
// It also types a query into mdBook's search box on the introduction page and
// requires at least one result. Requests to anything but loopback are aborted
// and reported as warnings. Exit code 0 when everything is fine, 1 otherwise.
//
// Environment: CHROMIUM_PATH (default /usr/bin/chromium).

import { chromium } from 'playwright-core';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];
const CONCURRENCY = 2;
const PAGE_TIMEOUT_MS = 15_000;
const MERMAID_TIMEOUT_MS = 10_000;
const SEARCH_TIMEOUT_MS = 10_000;
const SEARCH_PAGE = 'introduction.html';
const SEARCH_QUERY = 'structured concurrency';

const CONTENT_TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.txt': 'text/plain; charset=utf-8',
};

// ---------------------------------------------------------------------------
// Inputs

/** The pages to check: index.html, then `path.html` for every `[Title](path.md)` in SUMMARY.md. */
function pagesFromSummary(summaryPath) {
  const text = fs.readFileSync(summaryPath, 'utf8');
  const pages = ['index.html'];
  for (const m of text.matchAll(/\[[^\]]*\]\(([^)\s]+\.md)\)/g)) {
    const html = m[1].replace(/^\.\//, '').replace(/\.md$/, '.html');
    if (!pages.includes(html)) pages.push(html);
  }
  return pages;
}

/** Maps a URL pathname to a file inside root, or null if it escapes root. */
function fileForPathname(root, pathname) {
  let rel;
  try {
    rel = decodeURIComponent(pathname);
  } catch {
    return null;
  }
  if (rel.endsWith('/')) rel += 'index.html';
  const file = path.resolve(root, '.' + path.posix.normalize(rel));
  return file === root || file.startsWith(root + path.sep) ? file : null;
}

function isFile(file) {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------
// Static server (loopback only)

function startServer(root) {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    const file = fileForPathname(root, url.pathname);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405).end();
    } else if (!file || !isFile(file)) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    } else {
      const type = CONTENT_TYPES[path.extname(file).toLowerCase()] || 'application/octet-stream';
      res.writeHead(200, { 'content-type': type, 'cache-control': 'no-cache' });
      if (req.method === 'HEAD') res.end();
      else fs.createReadStream(file).pipe(res);
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

// ---------------------------------------------------------------------------
// Network guard: only loopback may be reached.

function isLoopbackHost(host) {
  return host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** Aborts every http(s)/ws(s) request to a non-loopback host; records it in `blocked`. */
async function guardNetwork(page, blocked) {
  await page.route('**/*', (route) => {
    const url = new URL(route.request().url());
    const networked = ['http:', 'https:', 'ws:', 'wss:'].includes(url.protocol);
    if (networked && !isLoopbackHost(url.hostname)) {
      blocked.add(url.href);
      return route.abort('blockedbyclient');
    }
    return route.continue();
  });
}

// ---------------------------------------------------------------------------
// Link targets: ids of a file, parsed once with a regex and cached.

const idCache = new Map();

function decodeEntities(s) {
  return s
    .replace(/&#x([0-9a-f]+);/gi, (_, h) => String.fromCodePoint(parseInt(h, 16)))
    .replace(/&#(\d+);/g, (_, d) => String.fromCodePoint(Number(d)))
    .replace(/&quot;/g, '"').replace(/&#39;|&apos;/g, "'")
    .replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

function idsOf(file) {
  if (!idCache.has(file)) {
    const html = fs.readFileSync(file, 'utf8');
    const ids = new Set();
    for (const m of html.matchAll(/\s(?:id|name)\s*=\s*(?:"([^"]*)"|'([^']*)')/gi)) {
      ids.add(decodeEntities(m[1] ?? m[2]));
    }
    idCache.set(file, ids);
  }
  return idCache.get(file);
}

/**
 * Checks one link found on a page. Returns { internal: false } for links that
 * are not ours to check, otherwise { internal: true, problem: string|null }.
 */
function checkLink(root, origin, { raw, abs }) {
  let url;
  try {
    url = new URL(abs);
  } catch {
    return { internal: true, problem: `unparsable link "${raw}"` };
  }
  // mailto:, javascript:, tel:, data: ... and other hosts (GitHub edit links, crates, docs) are external.
  if (!['http:', 'https:'].includes(url.protocol) || url.origin !== origin) return { internal: false };
  const file = fileForPathname(root, url.pathname);
  const shown = url.pathname.replace(/^\//, '') + url.hash;
  if (!file || !isFile(file)) return { internal: true, problem: `broken link "${raw}": ${shown} does not exist` };
  const fragment = url.hash.slice(1);
  if (fragment && /\.html?$/i.test(file)) {
    let id;
    try {
      id = decodeURIComponent(fragment);
    } catch {
      id = fragment;
    }
    if (!idsOf(file).has(id)) return { internal: true, problem: `broken anchor "${raw}": no id "${id}" in ${shown.split('#')[0]}` };
  }
  return { internal: true, problem: null };
}

// ---------------------------------------------------------------------------
// Per-page checks

/** Waits for mermaid, then returns { count, problems } for the page's diagrams. */
async function checkMermaid(page) {
  const problems = [];
  await page
    .waitForFunction(
      () => [...document.querySelectorAll('pre.mermaid')].every((pre) => pre.querySelector('svg')),
      null,
      { timeout: MERMAID_TIMEOUT_MS },
    )
    .catch(() => {}); // a timeout is reported below, diagram by diagram
  const diagrams = await page.evaluate(() =>
    [...document.querySelectorAll('pre.mermaid')].map((pre) => {
      const svg = pre.querySelector('svg');
      const error = !!svg && (svg.getAttribute('aria-roledescription') === 'error' || /Syntax error/i.test(svg.textContent));
      return { svg: !!svg, error };
    }),
  );
  // mermaid may also put an error diagram outside the <pre> (e.g. appended to <body>).
  const strayErrors = await page.evaluate(
    () => [...document.querySelectorAll('svg[aria-roledescription="error"]')].filter((s) => !s.closest('pre.mermaid')).length,
  );
  diagrams.forEach((d, i) => {
    const where = `mermaid diagram #${i + 1}`;
    if (!d.svg) problems.push(`${where} was not rendered within ${MERMAID_TIMEOUT_MS / 1000}s`);
    else if (d.error) problems.push(`${where} rendered mermaid's syntax-error diagram`);
  });
  if (strayErrors) problems.push(`${strayErrors} mermaid error diagram(s) outside pre.mermaid`);
  return { count: diagrams.filter((d) => d.svg && !d.error).length, problems };
}

/** Checks every a[href] of the loaded page; returns { count, problems }. */
async function checkLinks(page, root, origin) {
  const links = await page.evaluate(() =>
    [...document.querySelectorAll('a[href]')].map((a) => ({ raw: a.getAttribute('href'), abs: a.href })),
  );
  const seen = new Set(); // each distinct URL is checked once per page
  const problems = [];
  let count = 0;
  for (const link of links) {
    if (seen.has(link.abs)) continue;
    seen.add(link.abs);
    const result = checkLink(root, origin, link);
    if (result.internal) count++;
    if (result.problem) problems.push(result.problem);
  }
  return { count, problems };
}

/** Collects a page's uncaught errors and console errors; they are judged by judgeErrors() at the end. */
function watchErrors(page) {
  const events = [];
  page.on('pageerror', (err) => events.push({ kind: 'uncaught error', text: err.message.split('\n')[0] }));
  page.on('crash', () => events.push({ kind: 'crash', text: 'page crashed' }));
  page.on('console', (msg) => {
    if (msg.type() === 'error') events.push({ kind: 'console error', text: msg.text(), url: msg.location()?.url });
  });
  return events;
}

/**
 * Turns collected errors into { problems, warnings }. Everything is a problem,
 * except these two rules, both about requests that *we* aborted because they
 * left loopback (which the brief wants as warnings, not failures):
 *  - "Failed to load resource" logged for a URL we blocked: already printed as
 *    a "blocked" warning, so it is not repeated.
 *  - uncaught "Failed to fetch" on a page where we blocked a request: mdBook's
 *    book.js fetches https://play.rust-lang.org/meta/crates for every page with
 *    a Rust playground block, without a .catch(), so aborting that request
 *    surfaces as an uncaught TypeError. Printed as a warning. (Fetches to our
 *    own server cannot fail like this: an HTTP 404 does not reject fetch().)
 */
function judgeErrors(events, blocked) {
  const problems = [];
  const warnings = [];
  for (const e of events) {
    if (e.kind === 'console error' && /^Failed to load resource/.test(e.text) && blocked.has(e.url)) continue;
    if (e.kind === 'uncaught error' && e.text === 'Failed to fetch' && blocked.size > 0) {
      warnings.push(`uncaught "Failed to fetch", caused by a blocked request`);
      continue;
    }
    problems.push(`${e.kind}: ${e.text}${e.url ? ` (${e.url})` : ''}`);
  }
  return { problems, warnings };
}

/**
 * Opens a fresh page (network guarded, errors watched), runs `body(page, problems)`
 * and returns { problems, warnings, blocked, ...whatever body returned }.
 */
async function onPage(context, body) {
  const problems = [];
  const blocked = new Set();
  const page = await context.newPage();
  page.setDefaultTimeout(PAGE_TIMEOUT_MS);
  const events = watchErrors(page);
  await guardNetwork(page, blocked);
  let result = {};
  try {
    result = await body(page, problems);
  } catch (err) {
    problems.push(`could not check page: ${err.message.split('\n')[0]}`);
  } finally {
    await page.close().catch(() => {});
  }
  const judged = judgeErrors(events, blocked);
  return { ...result, problems: [...judged.problems, ...problems], warnings: judged.warnings, blocked: [...blocked] };
}

/** Checks one book page: HTTP status, errors, mermaid diagrams, internal links. */
async function checkPage(context, base, root, rel) {
  const result = await onPage(context, async (page, problems) => {
    const response = await page.goto(new URL(rel, base).href, { waitUntil: 'load' });
    const status = response ? response.status() : 0;
    if (status !== 200) {
      problems.push(`HTTP ${status}`);
      return {};
    }
    const mermaid = await checkMermaid(page);
    const links = await checkLinks(page, root, new URL(base).origin);
    problems.push(...mermaid.problems, ...links.problems);
    return { diagrams: mermaid.count, links: links.count };
  });
  return { rel, diagrams: 0, links: 0, ...result };
}

/** Types SEARCH_QUERY into mdBook's search bar on SEARCH_PAGE and counts the results. */
async function checkSearch(context, base) {
  const result = await onPage(context, async (page, problems) => {
    await page.goto(new URL(SEARCH_PAGE, base).href, { waitUntil: 'load' });
    // mdBook 0.5 uses the mdbook- prefixed ids; older versions the plain ones.
    await page.locator('#mdbook-search-toggle, #search-toggle').first().click();
    const bar = page.locator('#mdbook-searchbar, #searchbar').first();
    await bar.waitFor({ state: 'visible' });
    await bar.pressSequentially(SEARCH_QUERY, { delay: 20 });
    const results = page.locator('#mdbook-searchresults li, #searchresults li');
    await results.first().waitFor({ state: 'attached', timeout: SEARCH_TIMEOUT_MS }).catch(() => {});
    const count = await results.count();
    if (count === 0) problems.push(`search for "${SEARCH_QUERY}" gave no results`);
    return { count };
  });
  return { rel: `${SEARCH_PAGE} (search)`, count: 0, ...result };
}

// ---------------------------------------------------------------------------
// Running and reporting

/** Runs `worker` over `items` with at most `limit` in flight; `onResult(i, r)` as each finishes. */
async function pool(items, limit, worker, onResult) {
  let next = 0;
  async function lane() {
    while (next < items.length) {
      const i = next++;
      onResult(i, await worker(items[i]));
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

/** Prints results in input order as soon as all earlier ones are in. */
function orderedPrinter(print) {
  const results = [];
  let printed = 0;
  return (i, result) => {
    results[i] = result;
    while (results[printed]) print(results[printed++]);
  };
}

/** One line `ok   <page>  (<details>)` or `FAIL ...`, then its problems and warnings. */
function printResult(r, details) {
  console.log(`${r.problems.length ? 'FAIL' : 'ok  '} ${r.rel}  (${details})`);
  for (const p of r.problems) console.log(`       - ${p}`);
  for (const url of r.blocked) console.log(`warn ${r.rel}: blocked non-loopback request ${url}`);
  for (const w of r.warnings) console.log(`warn ${r.rel}: ${w}`);
}

async function main() {
  const [outDir, summaryPath] = process.argv.slice(2);
  if (!outDir || !summaryPath) {
    console.error('usage: node check.mjs <book-output-dir> <path-to-src/SUMMARY.md>');
    return 1;
  }
  const root = path.resolve(outDir);
  if (!isFile(path.join(root, 'index.html'))) {
    console.error(`book-check: ${root} has no index.html; build the book first`);
    return 1;
  }
  const pages = pagesFromSummary(summaryPath);

  const server = await startServer(root);
  const base = `http://127.0.0.1:${server.address().port}/`;
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
  const context = await browser.newContext({ serviceWorkers: 'block' });
  const started = Date.now();
  const results = [];
  let search;
  try {
    await pool(pages, CONCURRENCY, (rel) => checkPage(context, base, root, rel),
      orderedPrinter((r) => {
        results.push(r);
        printResult(r, `${r.diagrams} diagrams, ${r.links} links`);
      }));
    search = await checkSearch(context, base);
    printResult(search, `${search.count} results for "${SEARCH_QUERY}"`);
  } finally {
    await browser.close().catch(() => {});
    server.close();
  }

  const sum = (key) => results.reduce((n, r) => n + r[key], 0);
  const problems = results.reduce((n, r) => n + r.problems.length, 0) + search.problems.length;
  const verdict = problems ? `FAILED (${problems} problems)` : 'ok';
  console.log(`book-check: ${results.length} pages, ${sum('diagrams')} diagrams, ${sum('links')} internal links checked, ` +
    `${search.count} search results: ${verdict}`);
  console.error(`book-check: took ${((Date.now() - started) / 1000).toFixed(1)}s`);
  return problems ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`book-check: ${err.stack || err}`);
    process.exit(1);
  },
);
