/**
 * A burst of 2,000 captures sent as fast as the test can (about two seconds here) reaches the
 * open dashboard complete, while the page stays responsive: the longest main-thread task
 * (PerformanceObserver 'longtask', wall time) and the CPU time of the main thread's tasks (a
 * Chromium trace) are measured and reported, and the list stays virtualised.
 */
import { expect, test } from 'bun:test';
import { CHROMIUM_SKIP, openPage, signUpAccount, useChromium } from '../support/browser';
import { call } from '../support/client';
import { describeBackends } from '../support/suite';

const BURST = 2000;
const CONCURRENCY = 64;

const browser = useChromium();

/** Installed before the burst: the longest task, and how late a 50 ms timer ever fired. */
const PROBE = `(() => {
  window.__longest = 0; window.__tasks = 0; window.__lag = 0;
  new PerformanceObserver((list) => { for (const e of list.getEntries()) { window.__tasks++; window.__longest = Math.max(window.__longest, e.duration); } }).observe({ type: 'longtask' });
  let last = performance.now();
  setInterval(() => { const now = performance.now(); window.__lag = Math.max(window.__lag, now - last - 50); last = now; }, 50);
})()`;

interface TraceEvent {
  name: string;
  pid: number;
  tid: number;
  dur?: number;
  tdur?: number;
  args?: { name?: string };
}

/**
 * From a Chromium trace: the CPU time (not wall time) of the renderer main thread's tasks. A long
 * task on a busy machine is mostly waiting for a core; its CPU time is what the page itself spent.
 */
function mainThreadCpu(trace: Buffer): { longest: number; total: number } {
  const events = (JSON.parse(trace.toString()) as { traceEvents: TraceEvent[] }).traceEvents;
  const main = new Set(events.filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`));
  const tasks = events.filter((e) => e.name === 'RunTask' && main.has(`${e.pid}:${e.tid}`)).map((e) => (e.tdur ?? 0) / 1000);
  return { longest: Math.max(0, ...tasks), total: tasks.reduce((a, b) => a + b, 0) };
}

describeBackends('dashboard under a burst', (h) => {
  test(`${BURST} captures arrive complete and the page stays responsive`, async () => {
    const chromiumBrowser = browser();
    const account = await signUpAccount(h.url);
    const ep = (await call(h.url, 'POST', '/api/endpoints', { token: account.session, body: { name: 'burst' } })).body as { slug: string; url: string };
    const { page, context, errors } = await openPage(chromiumBrowser, h.url, account);
    try {
      // Some history, scrolled down a little: the rows in view must stay put while the burst lands above.
      for (let i = 0; i < 60; i++) await fetch(`${ep.url}/before/${i}`, { method: 'POST' });
      await page.goto(`${h.url}/endpoints/${ep.slug}`);
      await page.getByRole('status', { name: 'Stream status' }).filter({ hasText: 'Live' }).waitFor();
      await page.locator('.list-count').filter({ hasText: '60 requests' }).waitFor();
      expect(await page.evaluate(`(() => { const el = document.querySelector('.request-scroller'); el.scrollTop = 560; return el.scrollTop; })()`)).toBe(560);
      await page.waitForTimeout(100);
      const topRow = async () => String(await page.evaluate(`(() => { const s = document.querySelector('.request-scroller').getBoundingClientRect(); return document.elementFromPoint(s.left + 40, s.top + 5).closest('a').getAttribute('href'); })()`));
      const inView = await topRow();
      expect(inView).toContain('/requests/req_');
      await page.evaluate(PROBE);
      await chromiumBrowser.startTracing(page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline'] });

      const body = JSON.stringify({ id: 'evt_burst', object: 'event', type: 'charge.succeeded', data: { object: { amount: 1999, currency: 'eur', description: 'x'.repeat(400) } } });
      const started = performance.now();
      let next = 0;
      const sender = async () => {
        while (next < BURST) {
          const i = next++;
          const r = await fetch(`${ep.url}/burst/${i}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
          if (r.status !== 200) throw new Error(`capture ${i}: ${r.status}`);
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, sender));
      const sendMs = performance.now() - started;

      const total = BURST + 60;
      await page.locator('.list-count').filter({ hasText: `${total.toLocaleString('en')} requests` }).waitFor({ timeout: 30_000 });
      const arrivedMs = performance.now() - started;
      await page.waitForTimeout(100);
      // No layout shift: the row that was at the top of the view still is.
      expect(await topRow()).toBe(inView);
      // Responsive: a click on a row opens it at once.
      const clickAt = performance.now();
      await page.getByRole('list', { name: 'Requests' }).getByRole('link', { name: /\/burst\// }).first().click();
      await page.getByRole('article').getByRole('table', { name: 'Headers' }).waitFor();
      const clickMs = performance.now() - clickAt;
      const longest = Number(await page.evaluate('window.__longest'));
      const tasks = Number(await page.evaluate('window.__tasks'));
      const lag = Number(await page.evaluate('window.__lag'));
      const rows = await page.locator('.request-item').count();
      const cpu = mainThreadCpu(await chromiumBrowser.stopTracing());
      console.log(
        `[${h.backend}] burst: ${BURST} sent in ${Math.round(sendMs)} ms, all listed after ${Math.round(arrivedMs)} ms; ` +
          `longest task ${Math.round(longest)} ms (${tasks} tasks over 50 ms), worst timer lag ${Math.round(lag)} ms, ` +
          `row opened in ${Math.round(clickMs)} ms, ${rows} rows in the DOM; main thread CPU: longest task ${Math.round(cpu.longest)} ms, ${Math.round(cpu.total)} ms in all`,
      );
      // Wall times (the sender's pace, the longest task, the click) are reported, not checked: on a
      // loaded 2-core CI machine they measure the neighbours (a CI run had the burst itself take
      // over 5 s). CPU time does not grow with the neighbours' load: no task may do much work at
      // once, and a page that froze on the burst would show it here.
      expect(rows).toBeLessThan(100);
      expect(cpu.longest).toBeLessThan(200);
      // The list holds every capture once: the count is of distinct ids, and the API agrees.
      const page1 = (await call(h.url, 'GET', `/api/search/requests/count?slug=${ep.slug}`, { token: account.session })).body as { count: number };
      expect(page1.count).toBe(total);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
}, {}, CHROMIUM_SKIP);
