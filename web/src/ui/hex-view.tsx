/** Bytes as a hex dump (offset, hex, ASCII), virtualised so a large body scrolls quickly. */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useRef } from 'react';
import { HEX_ROW, hexLine } from '../lib/body';

const hexLineSize = () => 20;

export function HexView({ bytes }: { bytes: Uint8Array }) {
  const scroller = useRef<HTMLDivElement>(null);
  const lines = Math.ceil(bytes.length / HEX_ROW);
  const v = useVirtualizer({ count: lines, getScrollElement: () => scroller.current, estimateSize: hexLineSize, overscan: 20 });
  return (
    <div className="hex-scroller" ref={scroller} role="region" aria-label="Hex view" tabIndex={0} style={{ height: Math.min(lines * 20 + 8, 352) }}>
      <div className="hex" style={{ height: v.getTotalSize() }}>
        {v.getVirtualItems().map((row) => {
          const line = hexLine(bytes, row.index);
          return (
            <div key={row.key} className="hex-line" style={{ transform: `translateY(${row.start}px)` }}>
              <span className="hex-offset">{line.offset}</span>
              <span className="hex-bytes">{line.hex}</span>
              <span className="hex-ascii">{line.ascii}</span>
            </div>
          );
        })}
      </div>
    </div>
  );
}
