/**
 * One line per capture (tail, listen) in aligned columns: the short ones at fixed widths, then the
 * free text (the path, an event, a failure), whose width varies and which therefore comes last,
 * so a stream of captures reads down each column. On a terminal the line is fitted to its width,
 * over-long values cut with "…"; piped (`| grep`, `> file`), every value is printed whole.
 */
import stringWidth from 'string-width';
import { paint, type Paint, type Style } from './output';

/** A fixed-width column. */
export interface Cell {
  text: string;
  width: number;
  /** Numbers (a size, a latency) line up on their last digit. */
  right?: boolean;
  color?: Paint;
  /**
   * A column a narrow terminal may go without (1 first, then 2 …), so that the free text keeps
   * MIN_CUT columns rather than the line wrapping: what it shows is not what the line is for.
   */
  drop?: number;
}

/** A piece of the free text at the end of the line. */
export interface Part {
  text: string;
  color?: Paint;
  /** Never cut (a command to copy): the other parts make room for it. */
  whole?: boolean;
}

const GAP = '  ';
/**
 * When a part that may not be cut (the resend command) wraps the line anyway, the others are cut
 * to no fewer columns than this (or their own width): `/hooks/strip…` still says which path.
 */
const MIN_CUT = 12;
const ELLIPSIS = '…';

/**
 * Columns a string takes on a terminal (a CJK character two, a combining mark none). string-width
 * rather than Bun.stringWidth: the CLI runs under Node too (cli/build.ts), and one measure on both
 * runtimes lines a column up the same whichever one runs it.
 */
export const widthOf = (text: string): number => stringWidth(text);

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** `text` in at most `width` columns, ending in "…" when cut. */
export function cut(text: string, width: number): string {
  if (widthOf(text) <= width) return text;
  if (width <= 0) return '';
  let kept = '';
  let used = 0;
  for (const { segment } of graphemes.segment(text)) {
    const w = widthOf(segment);
    if (used + w > width - 1) break;
    kept += segment;
    used += w;
  }
  return kept + ELLIPSIS;
}

/** `text` filled with spaces to `width` columns (on the left when `right`). */
export const pad = (text: string, width: number, right = false): string => {
  const fill = ' '.repeat(Math.max(0, width - widthOf(text)));
  return right ? fill + text : text + fill;
};

/**
 * The width of the terminal stdout is, or null when stdout is not one (or says 0 columns, as a
 * pseudo-terminal nobody sized does): then nothing is cut.
 */
export function terminalColumns(): number | null {
  const columns = process.stdout.isTTY === true ? process.stdout.columns : undefined;
  return columns !== undefined && columns > 0 ? columns : null;
}

/**
 * Shrinks the parts that may be cut, the widest first, until the free text fits `room` columns:
 * a long path beside a short event gives way, and the event stays whole. When the parts that may
 * not be cut leave no room, the line wraps whatever is cut, and the others keep MIN_CUT columns.
 */
function fitParts(parts: Part[], room: number): string[] {
  const texts = parts.map((p) => p.text);
  const widths = texts.map(widthOf);
  const total = () => widths.reduce((a, b) => a + b, 0) + GAP.length * (widths.length - 1);
  const least = widths.reduce((n, w, i) => n + (parts[i]?.whole ? w : 1), 0) + GAP.length * (widths.length - 1);
  const floors = widths.map((w, i) => (parts[i]?.whole ? w : Math.min(w, least > room ? MIN_CUT : 1)));
  while (total() > room) {
    let widest = -1;
    for (const [i, w] of widths.entries()) {
      if (w <= (floors[i] ?? w)) continue;
      if (widest < 0 || w > (widths[widest] ?? 0)) widest = i;
    }
    if (widest < 0) break;
    // Down to the next widest at most, so two long parts end up cut alike.
    const next = Math.max(0, ...widths.filter((_, i) => i !== widest && !parts[i]?.whole));
    const width = widths[widest] ?? 0;
    const to = Math.max(floors[widest] ?? 1, Math.min(width - 1, Math.max(next, width - (total() - room))));
    texts[widest] = cut(parts[widest]?.text ?? '', to);
    widths[widest] = widthOf(texts[widest] ?? '');
  }
  return texts;
}

/** The cells without the droppable ones, fewest first, that keep them from fitting in `room` columns. */
function fitCells(cells: Cell[], room: number): Cell[] {
  let kept = cells;
  const width = () => kept.reduce((n, c) => n + c.width + GAP.length, 0);
  const order = [...new Set(cells.map((c) => c.drop).filter((d) => d !== undefined))].sort((a, b) => a - b);
  for (const drop of order) {
    if (width() <= room) break;
    kept = kept.filter((c) => c.drop !== drop);
  }
  return kept;
}

/**
 * The cells, two spaces apart, then the parts. `columns` is the terminal's width (`terminalColumns`),
 * or null to print every value whole.
 *
 * @example alignedLine(style, terminalColumns(), [{ text: 'POST', width: 7 }], [{ text: '/stripe' }])
 */
export function alignedLine(style: Style, columns: number | null, cells: Cell[], parts: Part[]): string {
  const shown = parts.filter((p) => p.text !== '');
  const kept = columns === null ? cells : fitCells(cells, columns - MIN_CUT);
  const head = kept.map((c, i) => {
    const text = columns === null ? c.text : cut(c.text, c.width);
    // Nothing after the last cell: no padding to leave at the end of the line.
    const last = i === kept.length - 1 && shown.length === 0 && c.right !== true;
    return { text: last ? text : pad(text, c.width, c.right === true), color: c.color };
  });
  const used = head.reduce((n, c) => n + widthOf(c.text) + GAP.length, 0);
  const texts = columns === null ? shown.map((p) => p.text) : fitParts(shown, columns - used);
  const line = [
    ...head.map((c) => (c.color && c.text.trim() !== '' ? paint(style, c.color, c.text) : c.text)),
    ...shown.map((p, i) => (p.color ? paint(style, p.color, texts[i] ?? '') : (texts[i] ?? ''))),
  ].join(GAP);
  return line.replace(/ +$/, '');
}
