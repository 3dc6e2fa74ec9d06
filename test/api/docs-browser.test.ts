import fs from 'node:fs';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { fileTeardown } from '../helpers/teardown';
import { bearer, createUser } from '../helpers/users';

/**
 * The docs pages in a real browser (Chromium, headless): koa2-swagger-ui's page renders, Authorize takes a Bearer
 * token and "Try it out" calls the API with it, and the page fetches nothing from outside the server, offline as
 * online: any request leaving the server fails a test, and so does any console error (a style or script the
 * page's policy refuses is one).
 */

const swaggerUiVersion = (
  JSON.parse(fs.readFileSync(require.resolve('swagger-ui-dist/package.json'), 'utf8')) as { version: string }
).version;
// A name that is not localhost: Swagger UI treats localhost specially (no online validator), production does not.
const docsHost = 'docs.coopbank.test';
const file = fileTeardown(test);
let app: TestApp;
let origin: string;
let browser: Browser;
let session: Record<string, string>;

test.before(async () => {
  const executablePath = chromiumPath();
  const { knex } = await createTestDatabase(file);
  app = await startTestApp(file, { knex });
  origin = app.baseUrl.replace('127.0.0.1', docsHost);
  await createUser(knex, 'docs.reader');
  session = await bearer(app, 'docs.reader');
  browser = await puppeteer.launch({
    executablePath,
    // Chromium's sandbox refuses to start as root (CI); docsHost is the test app; no proxy from the environment.
    args: ['--no-sandbox', `--host-resolver-rules=MAP ${docsHost} 127.0.0.1`, '--no-proxy-server'],
  });
  file.teardown(() => browser.close());
});

/** The browser: CHROMIUM_PATH, else `chromium` on PATH; the tests fail (never skip) without one. */
function chromiumPath(): string {
  const onPath = (process.env.PATH ?? '')
    .split(path.delimiter)
    .map((dir) => path.join(dir, 'chromium'))
    .find((candidate) => fs.existsSync(candidate));
  const found = process.env.CHROMIUM_PATH || onPath;
  if (!found)
    throw new Error(
      'the docs browser test needs Chromium: `apt-get install chromium`, ' +
        'or set CHROMIUM_PATH to a Chromium or Chrome binary',
    );
  return found;
}

/**
 * A page for test `t`, closed when it ends, and what a broken docs page would show on it: a request leaving the
 * server (aborted, so nothing leaves even when the test fails), a failed or refused request, a console error
 * (CSP violations are reported there), an uncaught exception. The tests run one at a time: a page behind another
 * is hidden, and a hidden page draws no frames, which clicks wait for.
 */
async function watchedPage(t: ExecutionContext): Promise<{ page: Page; problems: string[] }> {
  const problems: string[] = [];
  const page = await browser.newPage();
  t.teardown(() => page.close());
  // Generous: Swagger UI takes seconds to read an OpenAPI 3.1 document this size, more on a busy machine.
  page.setDefaultTimeout(30_000);
  await page.setRequestInterception(true);
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.protocol === 'data:' || url.origin === origin) return void request.continue();
    problems.push(`request outside the server: ${request.url()}`);
    void request.abort('blockedbyclient');
  });
  page.on('requestfailed', (request) =>
    problems.push(`request failed: ${request.url()} ${request.failure()?.errorText}`),
  );
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`${response.status()} for ${response.url()}`);
  });
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${String(error)}`));
  return { page, problems };
}

/** Opens a docs page and waits until Swagger UI shows its operations. */
async function openDocs(page: Page, pagePath: string): Promise<void> {
  await page.goto(`${origin}${pagePath}`);
  await page.waitForSelector('.opblock');
}

/** Enters text into a field as a paste does, in one input event: React sees it, and it is faster than typing. */
async function typeInto(page: Page, selector: string, text: string): Promise<void> {
  await page.locator(selector).click();
  await page.keyboard.sendCharacter(text);
}

/** Authorize: the Bearer token in the dialog, applied, dialog closed. */
async function authorize(page: Page, token: string): Promise<void> {
  await page.locator('.auth-wrapper .btn.authorize').click();
  await typeInto(page, '#auth-bearer-value', token);
  await page.locator('.auth-btn-wrapper .btn.authorize').click();
  await page.locator('.auth-btn-wrapper button[aria-label="Remove authorization"]').wait();
  await page.locator('.auth-btn-wrapper .btn-done').click();
}

test.serial('the whole API page: Authorize with a Bearer token, then Try it out on a GET answers 200', async (t) => {
  const { page, problems } = await watchedPage(t);
  const token = session.authorization!.replace('Bearer ', '');
  await openDocs(page, '/api/v1/docs/');
  await authorize(page, token);

  // The filter brings the module up: the list renders only the operations on screen, auth's are further down.
  await typeInto(page, '.operation-filter-input', 'auth');
  const operation = '#operations-auth-getCurrentUser';
  await page.locator(`${operation} .opblock-summary-control`).click();
  await page.locator(`${operation} .try-out__btn`).click();
  const [sent] = await Promise.all([
    page.waitForRequest((request) => request.url().endsWith('/api/v1/auth/users/me/')),
    page.locator(`${operation} .execute`).click(),
  ]);
  const response = `${operation} .live-responses-table .response`;
  const status = await page
    .locator(`${response} .response-col_status`)
    .map((cell) => cell.textContent)
    .wait();
  const body = await page.$eval(`${response} .response-col_description .highlight-code pre`, (pre) => pre.textContent);

  t.is(sent.headers().authorization, `Bearer ${token}`);
  t.is(status?.trim(), '200');
  const expected = await app.request('GET', '/api/v1/auth/users/me/', { headers: session });
  t.is(expected.body.username, 'docs.reader');
  t.deepEqual(JSON.parse(body ?? ''), expected.body);
  t.deepEqual(problems, []);
});

test.serial('a module page renders its own operations only', async (t) => {
  const { page, problems } = await watchedPage(t);
  await openDocs(page, '/api/v1/members/docs/');
  const tags = await page.$$eval('.opblock-tag', (headings) =>
    headings.map((heading) => heading.getAttribute('data-tag')),
  );
  t.deepEqual(tags, ['members']);
  // The standalone preset's top bar (a box that loads any URL) is hidden; the template's Google Fonts link is gone.
  t.is(await page.$('.topbar'), null);
  const stylesheets = await page.evaluate(
    '[...document.querySelectorAll(\'link[rel="stylesheet"]\')].map((link) => link.href)',
  );
  t.deepEqual(stylesheets, [`${origin}/api/v1/docs/assets/${swaggerUiVersion}/swagger-ui.min.css`]);
  t.is(
    await page.evaluate('getComputedStyle(document.body).backgroundColor'),
    'rgb(250, 250, 250)',
    "the page's own style element applies",
  );
  t.deepEqual(problems, []);
});
