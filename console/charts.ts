import { h, svg } from './dom';

/** Hand-drawn inline SVG charts: bars (grouped or stacked) with a legend; no chart library. */

const PALETTE = ['#2f6fde', '#1a9e5c', '#d9822b', '#c23030', '#7c4dbd', '#00838f', '#8d6e63'];

/** Set through the CSSOM: the console's content security policy refuses inline style attributes. */
function swatch(color: string): HTMLElement {
  const i = h('i', {});
  i.style.background = color;
  return i;
}

export interface Series {
  name: string;
  values: number[];
}

export interface BarChartOptions {
  title: string;
  testId: string;
  labels: string[];
  series: Series[];
  stacked?: boolean;
  unit?: string;
}

function fmt(n: number, unit = ''): string {
  const text = Number.isInteger(n) ? String(n) : n.toFixed(n < 10 ? 2 : 1);
  return unit ? `${text} ${unit}` : text;
}

export function barChart(options: BarChartOptions): HTMLElement {
  const { labels, series } = options;
  const width = 520;
  const height = 220;
  const pad = { left: 44, right: 8, top: 12, bottom: 40 };
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  const totals = labels.map((_, i) =>
    options.stacked
      ? series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0)
      : Math.max(0, ...series.map((s) => s.values[i] ?? 0)),
  );
  const max = Math.max(1, ...totals);
  const y = (v: number) => pad.top + plotH - (v / max) * plotH;
  const band = plotW / Math.max(1, labels.length);
  const barW = options.stacked ? band * 0.6 : (band * 0.8) / Math.max(1, series.length);
  const chart = svg('svg', {
    viewBox: `0 0 ${width} ${height}`,
    width,
    height,
    role: 'img',
    'aria-label': options.title,
  });
  for (const tick of [0, 0.5, 1]) {
    const v = max * tick;
    chart.appendChild(
      svg('line', { x1: pad.left, x2: width - pad.right, y1: y(v), y2: y(v), class: 'gridline' }),
    );
    chart.appendChild(
      svg('text', { x: pad.left - 4, y: y(v) + 4, 'text-anchor': 'end', class: 'axis' }, fmt(v)),
    );
  }
  labels.forEach((label, i) => {
    const x0 = pad.left + i * band;
    let stackBase = 0;
    series.forEach((s, k) => {
      const v = s.values[i] ?? 0;
      if (v <= 0) return;
      const x = options.stacked ? x0 + (band - barW) / 2 : x0 + band * 0.1 + k * barW;
      const top = options.stacked ? y(stackBase + v) : y(v);
      const bottom = options.stacked ? y(stackBase) : y(0);
      stackBase += v;
      chart.appendChild(
        svg(
          'rect',
          {
            x,
            y: top,
            width: Math.max(1, barW - 2),
            height: Math.max(1, bottom - top),
            fill: PALETTE[k % PALETTE.length]!,
            'data-series': s.name,
            'data-label': label,
            'data-value': v,
            class: 'bar',
          },
          svg('title', {}, `${label} · ${s.name}: ${fmt(v, options.unit)}`),
        ),
      );
      if (!options.stacked)
        chart.appendChild(
          svg('text', { x: x + barW / 2 - 1, y: top - 2, 'text-anchor': 'middle', class: 'value' }, fmt(v)),
        );
    });
    if (options.stacked && stackBase > 0)
      chart.appendChild(
        svg(
          'text',
          { x: x0 + band / 2, y: y(stackBase) - 2, 'text-anchor': 'middle', class: 'value' },
          fmt(stackBase),
        ),
      );
    chart.appendChild(
      svg(
        'text',
        { x: x0 + band / 2, y: height - pad.bottom + 14, 'text-anchor': 'middle', class: 'axis' },
        label,
      ),
    );
  });
  chart.appendChild(
    svg('line', { x1: pad.left, x2: width - pad.right, y1: y(0), y2: y(0), class: 'baseline' }),
  );
  const legend = h(
    'div',
    { class: 'legend' },
    series.map((s, k) => h('span', {}, swatch(PALETTE[k % PALETTE.length]!), ` ${s.name}`)),
  );
  const empty = labels.length === 0 || totals.every((t) => t === 0);
  return h(
    'figure',
    { class: 'chart', 'data-testid': options.testId },
    h('figcaption', {}, options.title, options.unit ? h('small', {}, ` (${options.unit})`) : null),
    empty ? h('p', { class: 'muted' }, 'Nothing in this range.') : chart,
    empty ? null : legend,
  );
}

/** A row of small bars (one per hour): a callback rate at a glance. */
export function sparkline(values: number[], label: string): SVGElement {
  const width = 120;
  const height = 24;
  const max = Math.max(1, ...values);
  const w = width / Math.max(1, values.length);
  return svg(
    'svg',
    { viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-label': label, class: 'spark' },
    values.map((v, i) =>
      svg('rect', {
        x: i * w,
        y: height - (v / max) * height,
        width: Math.max(1, w - 1),
        height: (v / max) * height || 0.5,
      }),
    ),
  );
}
