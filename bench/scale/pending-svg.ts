import type { ScaleResults } from './results';

/** Pending count items against time, one line, the parts marked. */
export const pendingSvg = (results: ScaleResults) => {
  const points = results.pending;
  if (points.length < 2) return undefined;
  const width = 860;
  const height = 360;
  const margin = { left: 70, right: 20, top: 30, bottom: 40 };
  const xMax = Math.max(...points.map((p) => p.ms), 1);
  const yMax = Math.max(...points.map((p) => p.pending), 10);
  const x = (value: number) => margin.left + (value / xMax) * (width - margin.left - margin.right);
  const y = (value: number) => height - margin.bottom - (value / yMax) * (height - margin.top - margin.bottom);
  const xmlText = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;');
  return `${[
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<text x="${margin.left}" y="18" font-size="13">Pending count items against time (${xmlText(results.tree)}; read behind the API's back)</text>`,
    ...[0, 0.25, 0.5, 0.75, 1].flatMap((f) => [
      `<line x1="${margin.left}" x2="${width - margin.right}" y1="${y(f * yMax)}" y2="${y(f * yMax)}" stroke="#ddd"/>`,
      `<text x="${margin.left - 6}" y="${y(f * yMax) + 4}" text-anchor="end">${Math.round(f * yMax)}</text>`,
    ]),
    ...results.marks.flatMap((m, i) => {
      const at = x(m.ms).toFixed(1);
      // Labels of the later parts end at their line, so that they stay inside the chart.
      const late = x(m.ms) > width / 2;
      return [
        `<line x1="${at}" x2="${at}" y1="${margin.top}" y2="${height - margin.bottom}" stroke="#999" stroke-dasharray="3,3"/>`,
        `<text x="${late ? x(m.ms) - 3 : x(m.ms) + 3}" y="${margin.top + 12 + (i % 4) * 12}" text-anchor="${late ? 'end' : 'start'}" fill="#555">${xmlText(m.label)}</text>`,
      ];
    }),
    `<polyline fill="none" stroke="#d95f02" stroke-width="2" points="${points.map((p) => `${x(p.ms).toFixed(1)},${y(p.pending).toFixed(1)}`).join(' ')}"/>`,
    `<text x="${(margin.left + width - margin.right) / 2}" y="${height - 10}" text-anchor="middle">seconds since the start (${(xMax / 1000).toFixed(0)} s in all)</text>`,
    '</svg>',
  ].join('\n')}\n`;
};
