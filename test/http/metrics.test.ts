// The request path's metrics counted per series (SeriesCounter, SeriesHistogram): what /metrics
// prints and what `get()` returns are exactly what prom-client's own Counter and Histogram give for
// the same updates, in either calling convention, across scrapes and after a reset.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Counter, Histogram, Registry } from 'prom-client';
import { SeriesCounter, SeriesHistogram } from '../../src/http/metrics.ts';

const buckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

function pair() {
  const ours = new Registry();
  const theirs = new Registry();
  const counterConfig = {
    name: 'requests_total',
    help: 'Requests',
    labelNames: ['route', 'method', 'status'] as const,
  };
  const histogramConfig = {
    name: 'duration_seconds',
    help: 'Duration',
    labelNames: ['route', 'method'] as const,
    buckets,
  };
  return {
    ours,
    theirs,
    counter: new SeriesCounter({ ...counterConfig, registers: [ours] }),
    plainCounter: new Counter({ ...counterConfig, registers: [theirs] }),
    histogram: new SeriesHistogram({ ...histogramConfig, registers: [ours] }),
    plainHistogram: new Histogram({ ...histogramConfig, registers: [theirs] }),
  };
}

// Values in every bucket, on bounds, past the last one, and zero.
const observations: Array<[string, string, number, number]> = [
  ['/uuid', 'GET', 200, 0.0004],
  ['/apps/de/:id', 'GET', 200, 0.005],
  ['/uuid', 'GET', 200, 0.02],
  ['/apps/de/:id', 'POST', 404, 0.3],
  ['unmatched', 'GET', 404, 0],
  ['/uuid', 'HEAD', 200, 31],
  ['/apps/de/:id', 'GET', 502, 2.5],
  ['/uuid', 'GET', 200, 7],
];

describe('metrics counted per series', () => {
  test('/metrics text and get() are prom-client’s for the same updates', async () => {
    const m = pair();
    for (const [round, slice] of [observations.slice(0, 3), observations.slice(3)].entries()) {
      for (const [route, method, status, seconds] of slice) {
        m.counter.series(route, method, status).inc();
        m.plainCounter.inc({ route, method, status: String(status) });
        if (round === 0) m.histogram.series(route, method).observe(seconds);
        else m.histogram.observe({ route, method }, seconds);
        m.plainHistogram.observe({ route, method }, seconds);
      }
      // Scraped after each round: counts pending since the last scrape are added, not lost or doubled.
      assert.equal(await m.ours.metrics(), await m.theirs.metrics());
      assert.deepEqual(await m.counter.get(), await m.plainCounter.get());
      assert.deepEqual(await m.histogram.get(), await m.plainHistogram.get());
      assert.deepEqual(await m.ours.getMetricsAsJSON(), await m.theirs.getMetricsAsJSON());
    }
  });

  test('reset and zero as prom-client’s; a value that is not a number refused', async () => {
    const m = pair();
    m.histogram.series('/uuid', 'GET').observe(0.1);
    m.plainHistogram.observe({ route: '/uuid', method: 'GET' }, 0.1);
    m.histogram.reset();
    m.plainHistogram.reset();
    m.histogram.zero({ route: '/a', method: 'PUT' });
    m.plainHistogram.zero({ route: '/a', method: 'PUT' });
    m.histogram.series('/b', 'GET').observe(0.2);
    m.plainHistogram.observe({ route: '/b', method: 'GET' }, 0.2);
    assert.equal(await m.ours.metrics(), await m.theirs.metrics());
    assert.throws(() => m.histogram.series('/b', 'GET').observe(NaN), TypeError);
  });
});
