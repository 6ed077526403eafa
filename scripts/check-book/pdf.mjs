#!/usr/bin/env node
// The book and the workshop's paper as PDF, printed by the system Chromium (scripts/pdf
// runs it; it is also how to print them by hand):
//
//   node scripts/check-book/pdf.mjs BOOK_HTML SUMMARY_MD OUT_DIR [COMMIT_LINE]
//
// From mdBook's print page (BOOK_HTML/print.html: every chapter in one page) it makes two
// editions of the book, A4, with page numbers and the parts and chapters as PDF bookmarks:
//   OUT_DIR/async-rust-without-arc.pdf           the full edition: speaker notes shown, and
//                                                the solution pages in a part of their own
//   OUT_DIR/async-rust-without-arc-attendee.pdf  no solution pages, no speaker notes
// In both, every chapter starts a page, each part has a title page, folded boxes (hints,
// answers) are printed open, long code lines wrap instead of running off the page, and
// every mermaid diagram is drawn as SVG before printing. A layout check in print media
// fails the run if anything (code, a table, a diagram) is wider than the page.
// It also prints OUT_DIR/card.html and OUT_DIR/sheets.html (written by scripts/lib/paper.py)
// to card.pdf and sheets.pdf. OUT_DIR/paper.json records what was printed: pages are
// counted by scripts/lib/paper-check.py from the PDFs themselves.
//
// Environment: CHROMIUM_PATH (default /usr/bin/chromium).

import { chromium } from 'playwright-core';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [bookArg, summaryArg, outArg, commitLine = ''] = process.argv.slice(2);
if (!bookArg || !summaryArg || !outArg) {
  console.error('usage: node scripts/check-book/pdf.mjs BOOK_HTML SUMMARY_MD OUT_DIR [COMMIT_LINE]');
  process.exit(2);
}
const bookDir = path.resolve(bookArg);
const outDir = path.resolve(outArg);
const NAME = 'async-rust-without-arc';

// A4 with these margins; the layout check lays the page out at the same width.
const PAGE = { widthMm: 210, heightMm: 297, top: 16, bottom: 18, side: 16 };
const CONTENT_PX = Math.floor(((PAGE.widthMm - 2 * PAGE.side) / 25.4) * 96);
const MERMAID_TIMEOUT_MS = 120_000;

/** SUMMARY.md in order: parts (`# Part I: …`) and the pages listed under each. */
function readSummary(file) {
  const entries = [];
  let part = null;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const heading = line.match(/^# (.+)$/);
    if (heading && heading[1] !== 'Summary') { part = heading[1].trim(); continue; }
    const link = line.match(/^(\s*)(?:- )?\[([^\]]+)\]\(([^)]+\.md)\)/);
    if (link) {
      entries.push({ title: link[2], path: link[3], part, depth: Math.floor(link[1].length / 2),
        solution: /-solution\.md$/.test(link[3]) });
    }
  }
  return entries;
}

const entries = readSummary(summaryArg);
const EDITIONS = [
  { file: `${NAME}.pdf`, name: 'full', label: 'Full edition',
    note: 'With the speaker notes, and every lab\'s solution in the part "Solutions", after Part V.' },
  { file: `${NAME}-attendee.pdf`, name: 'attendee', label: 'Attendee edition',
    note: 'Without the solution pages and the speaker notes: each lab\'s solution is in the book online, and in the full edition.' },
];

// Print CSS for the book: A4, page numbers in the footer (Chromium's footer template),
// code wrapped at the margin, chapters on new pages, nothing wider than the page.
const BOOK_CSS = `
@page { size: A4; margin: ${PAGE.top}mm ${PAGE.side}mm ${PAGE.bottom}mm ${PAGE.side}mm; }
html { font-size: 55%; }
.content main { max-width: none !important; margin: 0 !important; }
.content, .page { padding: 0 !important; }
pre, pre > code { white-space: pre-wrap !important; overflow-wrap: anywhere; word-break: normal; }
:not(pre) > code { white-space: normal !important; overflow-wrap: anywhere; }
pre { overflow: visible !important; font-size: 0.8em; page-break-inside: auto; }
pre > code.hljs, pre > code { overflow: visible !important; max-height: none !important; }
pre > .buttons, .clip-button, .play-button { display: none !important; }
table { display: table; max-width: 100%; table-layout: auto; font-size: 0.85em; }
td, th { overflow-wrap: anywhere; }
img { max-width: 100%; height: auto; }
/* A diagram keeps the width mermaid gave it (its inline max-width), no wider than the page,
   and no taller than most of one: a tall flowchart is scaled down whole. */
pre.mermaid { white-space: normal !important; text-align: center; break-inside: avoid; }
pre.mermaid svg { max-height: 200mm; }
details { border-left: 2px solid #ccc; padding-left: 0.6em; margin: 0.6em 0; }
details > summary { font-weight: bold; list-style: none; }
details > summary::-webkit-details-marker { display: none; }
details.speaker-notes { border-left: 3px solid #b36b00; background: #fff8ec; padding: 0.3em 0.6em; }
section.paper-chapter { break-before: page; }
section.paper-part { break-before: page; padding-top: 30%; }
section.paper-front { padding-top: 30%; }
section.paper-part h1, section.paper-front h1 { font-size: 2.4em; }
section.paper-part ul, nav.paper-toc ul { line-height: 1.5; list-style: none; padding-left: 0; }
nav.paper-toc { break-before: page; }
nav.paper-toc > ul > li { margin-top: 0.6em; font-weight: bold; }
nav.paper-toc ul ul { font-weight: normal; padding-left: 1.5em; }
a.external-link-url { font-size: 0.8em; color: #555; word-break: break-all; }
`;

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const FOOTER = `<div style="font-size:8px;width:100%;text-align:center;color:#666;font-family:sans-serif;">
<span class="pageNumber"></span></div>`;

/** mdBook's print page, loaded once with every diagram drawn; each edition starts from it. */
async function openBook(browser) {
  const started = Date.now();
  const context = await browser.newContext({ colorScheme: 'light', viewport: { width: CONTENT_PX, height: 1000 } });
  const problems = [];
  // Nothing but the book from disk; mdBook's print page calls window.print() on load.
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('file:')) return route.continue();
    problems.push(`request for ${url} blocked: the book must print from disk`);
    return route.abort();
  });
  await context.addInitScript(() => { window.print = () => {}; });
  const page = await context.newPage();
  page.on('pageerror', (e) => problems.push(`uncaught ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  await page.goto(pathToFileURL(path.join(bookDir, 'print.html')).href, { waitUntil: 'load' });

  // Diagrams: every mermaid block drawn as an SVG, none left as source.
  const diagrams = await page.locator('pre.mermaid').count();
  try {
    await page.waitForFunction((n) => document.querySelectorAll('pre.mermaid svg').length >= n,
      diagrams, { timeout: MERMAID_TIMEOUT_MS, polling: 250 });
  } catch {
    const drawn = await page.locator('pre.mermaid svg').count();
    problems.push(`only ${drawn} of ${diagrams} mermaid diagrams were drawn`);
  }
  const syntaxErrors = await page.evaluate(() => [...document.querySelectorAll('pre.mermaid svg')]
    .filter((s) => /Syntax error/i.test(s.textContent)).length);
  if (syntaxErrors) problems.push(`${syntaxErrors} mermaid diagrams are mermaid's "Syntax error" picture`);
  await page.evaluate(() => { window.pristineBook = document.querySelector('#mdbook-content main').innerHTML; });
  return { context, page, diagrams, problems, seconds: (Date.now() - started) / 1000 };
}

async function printBook(book, edition) {
  const started = Date.now();
  const { page, diagrams } = book;
  const problems = [];
  const shape = await page.evaluate(({ entries, edition, css, commitLine }) => {
    const main = document.querySelector('#mdbook-content main');
    main.innerHTML = window.pristineBook;
    if (!document.getElementById('paper-css')) {
      const style = document.createElement('style');
      style.id = 'paper-css';
      style.textContent = css;
      document.head.append(style);
    }

    // Split the print page into chapters: mdBook puts a page-break div between them.
    const isBreak = (n) => n.nodeType === 1 && n.tagName === 'DIV' && /break-before:\s*page/.test(n.getAttribute('style') || '');
    const segments = [[]];
    for (const node of [...main.childNodes]) {
      if (isBreak(node)) { node.remove(); segments.push([]); } else segments[segments.length - 1].push(node);
    }
    if (segments.length !== entries.length) {
      return { error: `print.html has ${segments.length} chapters, SUMMARY.md lists ${entries.length}` };
    }
    const sections = segments.map((nodes, i) => {
      const s = document.createElement('section');
      s.className = 'paper-chapter';
      s.dataset.path = entries[i].path;
      for (const n of nodes) s.append(n);
      return s;
    });
    const headingOf = (s) => s.querySelector('h1');
    for (const [i, s] of sections.entries()) {
      if (!headingOf(s)) return { error: `${entries[i].path} has no h1 on the print page` };
    }

    // Parts: a title page listing its chapters, then the chapters. The full edition moves
    // the solution pages into a part of their own, before the appendices; the attendee
    // edition leaves them out.
    const parts = [];
    const partOf = new Map();
    const addPart = (title) => { const p = { title, items: [] }; parts.push(p); return p; };
    const solutions = { title: 'Solutions', items: [] };
    for (const [i, e] of entries.entries()) {
      if (e.solution) {
        if (edition === 'full') solutions.items.push(i);
        continue;
      }
      const key = e.part || '';
      if (!partOf.has(key)) partOf.set(key, addPart(e.part));
      partOf.get(key).items.push(i);
    }
    if (edition === 'full') {
      const appendix = parts.findIndex((p) => /^Append/i.test(p.title || ''));
      parts.splice(appendix < 0 ? parts.length : appendix, 0, solutions);
    }

    const escape = (t) => t.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
    const idOf = (i) => headingOf(sections[i]).id;
    const titleOf = (i) => headingOf(sections[i]).textContent.trim();
    const kept = new Set(parts.flatMap((p) => p.items));
    for (const [i, s] of sections.entries()) if (!kept.has(i)) s.remove();

    main.replaceChildren();
    const front = document.createElement('section');
    front.className = 'paper-front';
    front.innerHTML = `<h1>${escape(document.title)}</h1>
      <p>${escape(document.querySelector('meta[name=description]')?.content || '')}</p>
      <p><strong>${escape(edition === 'full' ? 'Full edition' : 'Attendee edition')}.</strong> ${escape(commitLine)}</p>
      <p>Book text: CC BY 4.0. Code: MIT OR Apache-2.0.</p>`;
    main.append(front);
    const toc = document.createElement('nav');
    toc.className = 'paper-toc';
    toc.innerHTML = '<h1 id="paper-contents">Contents</h1><ul>' + parts.map((p, k) =>
      `<li>${p.title ? `<a href="#paper-part-${k}">${escape(p.title)}</a>` : ''}<ul>` +
      p.items.map((i) => `<li><a href="#${idOf(i)}">${escape(titleOf(i))}</a></li>`).join('') +
      '</ul></li>').join('') + '</ul>';
    main.append(toc);
    for (const [k, p] of parts.entries()) {
      if (p.title) {
        const t = document.createElement('section');
        t.className = 'paper-part';
        t.innerHTML = `<h1 id="paper-part-${k}">${escape(p.title)}</h1><ul>` +
          p.items.map((i) => `<li>${escape(titleOf(i))}</li>`).join('') + '</ul>' +
          (p === solutions ? '<p>Each lab\'s solution page, in the order of the labs.</p>' : '');
        main.append(t);
      }
      for (const i of p.items) main.append(sections[i]);
    }

    // Folded boxes print open; speaker notes are marked, or left out of the attendee edition.
    let speakerNotes = 0;
    for (const d of [...main.querySelectorAll('details')]) {
      const summary = d.querySelector(':scope > summary');
      if (summary && /^\s*Speaker notes\s*$/i.test(summary.textContent)) {
        speakerNotes++;
        if (edition !== 'full') { d.remove(); continue; }
        d.classList.add('speaker-notes');
      }
      d.open = true;
    }

    // Links: to a page left out of this edition, plain text; to the web, the address after
    // the link text, since paper cannot be clicked.
    let unlinked = 0;
    for (const a of [...main.querySelectorAll('a[href]')]) {
      const href = a.getAttribute('href');
      if (href.startsWith('#')) {
        if (!document.getElementById(decodeURIComponent(href.slice(1)))) {
          a.replaceWith(...a.childNodes);
          unlinked++;
        }
      } else if (/^https?:/.test(href) && a.textContent.trim() !== href && !a.closest('h1,h2,h3,h4,pre')) {
        const url = document.createElement('a');
        url.className = 'external-link-url';
        url.href = href;
        url.textContent = ` (${href})`;
        a.after(url);
      }
    }
    return {
      chapters: kept.size,
      parts: parts.map((p) => ({ title: p.title, chapters: p.items.map((i) => entries[i].path) })),
      speakerNotes, unlinked,
    };
  }, { entries, edition: edition.name, css: BOOK_CSS, commitLine });
  if (shape.error) throw new Error(shape.error);

  // The layout check: in print media, at the page's width, nothing may stick out of it.
  await page.emulateMedia({ media: 'print', colorScheme: 'light' });
  const overflows = await page.evaluate(() => {
    const main = document.querySelector('#mdbook-content main');
    const right = main.getBoundingClientRect().right + 1;
    const found = [];
    for (const el of main.querySelectorAll('pre, code, table, svg, img, p, li, h1, h2, h3, h4, blockquote')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0) continue;
      const wide = r.right > right || (el.tagName === 'PRE' && el.scrollWidth > el.clientWidth + 1);
      if (wide && !found.some((f) => f.el.contains(el))) {
        const chapter = el.closest('section.paper-chapter')?.dataset.path || '(front matter)';
        found.push({ el, text: `${chapter}: <${el.tagName.toLowerCase()}> ${Math.round(r.width)}px wide: ${el.textContent.trim().slice(0, 80)}` });
      }
    }
    return { width: main.getBoundingClientRect().width, found: found.map((f) => f.text) };
  });
  for (const o of overflows.found) problems.push(`wider than the page: ${o}`);

  const file = path.join(outDir, edition.file);
  await page.pdf({
    path: file, preferCSSPageSize: true, printBackground: true, outline: true, tagged: true,
    displayHeaderFooter: true, headerTemplate: '<span></span>', footerTemplate: FOOTER,
  });
  return { edition: edition.name, file: edition.file, diagrams, ...shape, layoutWidth: overflows.width,
    overflows: overflows.found.length, seconds: (Date.now() - started) / 1000, problems };
}

/** A generated HTML page (card, sheets) printed as it is: its own CSS sets the page. */
async function printPage(page, html, pdf) {
  const started = Date.now();
  await page.goto(pathToFileURL(path.join(outDir, html)).href, { waitUntil: 'load' });
  const overflows = await page.evaluate(() => [...document.querySelectorAll('body *')]
    .filter((el) => el.getBoundingClientRect().right > document.body.getBoundingClientRect().right + 1)
    .map((el) => `<${el.tagName.toLowerCase()}> ${el.textContent.trim().slice(0, 60)}`));
  await page.pdf({ path: path.join(outDir, pdf), preferCSSPageSize: true, printBackground: true, outline: true, tagged: true });
  return { file: pdf, from: html, overflows: overflows.length,
    problems: overflows.map((o) => `${html}: wider than the page: ${o}`), seconds: (Date.now() - started) / 1000 };
}

fs.mkdirSync(outDir, { recursive: true });
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', args: CHROMIUM_ARGS });
const report = { commit: commitLine, editions: [], pages: [] };
try {
  const book = await openBook(browser);
  report.book = { diagrams: book.diagrams, seconds: book.seconds, problems: book.problems };
  for (const edition of EDITIONS) report.editions.push(await printBook(book, edition));
  await book.context.close();
  const sheets = fs.existsSync(path.join(outDir, 'sheets'))
    ? fs.readdirSync(path.join(outDir, 'sheets')).filter((f) => f.endsWith('.html')).sort().map((f) => `sheets/${f}`) : [];
  const context = await browser.newContext({ colorScheme: 'light' });
  await context.route('**/*', (route) => (route.request().url().startsWith('file:') ? route.continue() : route.abort()));
  const page = await context.newPage();
  await page.emulateMedia({ media: 'print', colorScheme: 'light' });
  for (const html of ['card.html', 'sheets.html', ...sheets]) {
    if (fs.existsSync(path.join(outDir, html))) report.pages.push(await printPage(page, html, html.replace(/\.html$/, '.pdf')));
  }
  await context.close();
} finally {
  await browser.close();
}
fs.writeFileSync(path.join(outDir, 'paper.json'), JSON.stringify(report, null, 2) + '\n');
const problems = [report.book, ...report.editions, ...report.pages].flatMap((r) => r.problems);
console.log(`pdf: the print page loaded with ${report.book.diagrams} diagrams drawn in ${report.book.seconds.toFixed(1)} s`);
for (const p of problems) console.log(`FAIL ${p}`);
for (const e of report.editions) {
  console.log(`pdf: ${e.file}: ${e.chapters} chapters in ${e.parts.length} parts, ${e.diagrams} diagrams, ` +
    `${e.speakerNotes} speaker notes ${e.edition === 'full' ? 'shown' : 'left out'}, ${e.unlinked} links to pages left out made text, ` +
    `${e.overflows} elements wider than the page, ${e.seconds.toFixed(1)} s`);
}
const sheetPdfs = report.pages.filter((p) => p.file.startsWith('sheets/'));
for (const p of report.pages.filter((p) => !p.file.startsWith('sheets/'))) {
  console.log(`pdf: ${p.file} from ${p.from}: ${p.overflows} elements wider than the page, ${p.seconds.toFixed(1)} s`);
}
console.log(`pdf: sheets/*.pdf, one per lab: ${sheetPdfs.length}, ${sheetPdfs.reduce((n, p) => n + p.overflows, 0)} elements wider than the page, ` +
  `${sheetPdfs.reduce((n, p) => n + p.seconds, 0).toFixed(1)} s`);
process.exit(problems.length ? 1 : 0);
