/**
 * Static SVG charts for the bench report: Vega-Lite specs compiled and rendered by Vega's headless
 * view (no browser, no canvas, nothing fetched when the page is viewed).
 */
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

type Row = Record<string, string | number | null>;

const BASE = {
  $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
  background: 'white',
  config: { font: 'system-ui, sans-serif', legend: { labelLimit: 320 } },
} as const;

export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/**
 * Horizontal bars of `value` per `label`, with an optional dashed rule (a target) and text at each
 * bar; with `color`, one bar per colour side by side within each label (grouped, not stacked).
 */
export function bars(opts: { title: string; rows: Row[]; value: string; label: string; unit: string; color?: string; rule?: { at: number; text: string }; text?: string; width?: number }): TopLevelSpec {
  const layers: unknown[] = [
    {
      mark: { type: 'bar', tooltip: true },
      encoding: {
        y: { field: opts.label, type: 'nominal', sort: null, title: null, axis: { labelLimit: 320 } },
        x: { field: opts.value, type: 'quantitative', title: opts.unit, stack: null },
        ...(opts.color ? { color: { field: opts.color, type: 'nominal', title: null }, yOffset: { field: opts.color, type: 'nominal' } } : {}),
      },
    },
    {
      mark: { type: 'text', align: 'left', dx: 4 },
      encoding: {
        y: { field: opts.label, type: 'nominal', sort: null },
        x: { field: opts.value, type: 'quantitative', stack: null },
        ...(opts.color ? { yOffset: { field: opts.color, type: 'nominal' } } : {}),
        text: { field: opts.text ?? opts.value, type: opts.text ? 'nominal' : 'quantitative', ...(opts.text ? {} : { format: ',.0f' }) },
      },
    },
  ];
  if (opts.rule) {
    layers.push(
      { data: { values: [{ at: opts.rule.at, text: opts.rule.text }] }, mark: { type: 'rule', strokeDash: [4, 4], color: '#c0392b' }, encoding: { x: { field: 'at', type: 'quantitative' } } },
      { data: { values: [{ at: opts.rule.at, text: opts.rule.text }] }, mark: { type: 'text', color: '#c0392b', align: 'left', dx: 3, baseline: 'top', y: 0 }, encoding: { x: { field: 'at', type: 'quantitative' }, text: { field: 'text' } } },
    );
  }
  return { ...BASE, title: opts.title, width: opts.width ?? 560, data: { values: opts.rows }, layer: layers } as TopLevelSpec;
}

/** Lines of `y` against `x` per `series`, points marked; `rule` draws a horizontal target. */
export function lines(opts: { title: string; rows: Row[]; x: string; y: string; series: string; xTitle: string; yTitle: string; logY?: boolean; rule?: { at: number; text: string } }): TopLevelSpec {
  const layers: unknown[] = [
    {
      mark: { type: 'line', point: true, tooltip: true },
      encoding: {
        x: { field: opts.x, type: 'quantitative', title: opts.xTitle, scale: { zero: false } },
        y: { field: opts.y, type: 'quantitative', title: opts.yTitle, ...(opts.logY ? { scale: { type: 'log' } } : {}) },
        color: { field: opts.series, type: 'nominal', title: null },
      },
    },
  ];
  if (opts.rule) {
    layers.push(
      { data: { values: [{ at: opts.rule.at, text: opts.rule.text }] }, mark: { type: 'rule', strokeDash: [4, 4], color: '#c0392b' }, encoding: { y: { field: 'at', type: 'quantitative' } } },
      { data: { values: [{ at: opts.rule.at, text: opts.rule.text }] }, mark: { type: 'text', color: '#c0392b', align: 'left', baseline: 'bottom', x: 2 }, encoding: { y: { field: 'at', type: 'quantitative' }, text: { field: 'text' } } },
    );
  }
  return { ...BASE, title: opts.title, width: 560, height: 300, data: { values: opts.rows }, layer: layers } as TopLevelSpec;
}

/** Stacked horizontal bars: `value` per `part`, one bar per `group`. */
export function stacked(opts: { title: string; rows: Row[]; group: string; part: string; value: string; unit: string }): TopLevelSpec {
  return {
    ...BASE,
    title: opts.title,
    width: 560,
    data: { values: opts.rows },
    mark: { type: 'bar', tooltip: true },
    encoding: {
      y: { field: opts.group, type: 'nominal', title: null, axis: { labelLimit: 320 } },
      x: { field: opts.value, type: 'quantitative', title: opts.unit, stack: 'zero' },
      color: { field: opts.part, type: 'nominal', title: null, sort: { field: opts.value, op: 'sum', order: 'descending' } },
      order: { field: opts.value, type: 'quantitative', sort: 'descending' },
    },
  } as TopLevelSpec;
}
